#!/bin/bash
# Writes a help2man include file with a COMMANDS section: the --help of every subcommand of
# RAILGAUGE (and of theirs, `db ingest`, `import perftest`), as the binary prints it, so that the
# man page holds each command's options and not the top-level --help alone. debian/rules passes
# it to help2man beside docs/railgauge.h2m.
#
#   man_commands.sh RAILGAUGE > commands.h2m
set -euo pipefail
(($# == 1)) || { echo "usage: man_commands.sh RAILGAUGE > commands.h2m" >&2; exit 4; }
# Through PATH, so that each usage line names `railgauge`, not the build tree's path.
PATH="$(cd "$(dirname "$1")" && pwd):$PATH"
railgauge=$(basename "$1")

# The names under "Subcommands:" in a --help text, one a line.
subcommands() {
  sed -n '/^Subcommands:$/,/^$/p' | sed -n 's/^  \([a-z][a-z0-9-]*\)  .*/\1/p'
}

# The line every command's --help ends with, pointing to the exit-status table: the page holds
# the table once (railgauge --help, at the top), so each section leaves the line out.
footer=$("$railgauge" --help | grep -m1 '^Exit status: `railgauge exit-statuses`' || true)

# One command's --help as a preformatted roff block: a line that roff would read as a request
# (a leading . or ') is escaped, and so is every backslash.
section() {
  local text
  text=$("$railgauge" "$@" --help)
  [[ -z "$footer" ]] || text=$(printf '%s\n' "$text" | { grep -vxF -e "$footer" || true; })
  printf '.SS "railgauge %s"\n.nf\n' "$*"
  printf '%s\n' "$text" | sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
  printf '.fi\n'
  printf '%s\n' "$text" | subcommands | while read -r sub; do
    section "$@" "$sub"
  done
}

echo "[COMMANDS]"
"$railgauge" --help | subcommands | while read -r cmd; do
  section "$cmd"
done
