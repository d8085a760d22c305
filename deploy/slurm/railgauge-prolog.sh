#!/bin/sh
# Slurm prolog: refuse a job on a node whose inventory fails the profile (GPU and NIC counts, ECC
# and row remaps, PCIe width and generation, NVLink, link state; `railgauge check
# --inventory-only`, seconds).
#
#   slurm.conf:  Prolog=/usr/share/railgauge/slurm/railgauge-prolog.sh
#   settings:    /etc/default/railgauge-prolog (shell assignments), or the environment:
#     RAILGAUGE_PROLOG_RULES  the profile (a shipped name or a rules YAML path; default
#                             h100-sxm-ib)
#     RAILGAUGE               the railgauge binary (default: railgauge on PATH, then
#                             /usr/bin/railgauge)
#     RAILGAUGE_PROLOG_LOG    a file each refusal is appended to (default
#                             /var/log/railgauge/prolog.log; syslog gets it too where there is one)
#     RAILGAUGE_PROLOG_TIMEOUT_S  the check's time limit (default 30)
#
# A prolog that exits non-zero makes Slurm requeue the job and drain the node, with the reason
# "Prolog error" unless the node is already drained: slurmctld drains with that reason only a
# node not drained yet. So this script drains the node itself first, with railgauge's first
# finding as the reason ("railgauge prolog: FAIL gpu-count [health]: ..."), then exits 1; a
# rack team reads why in `sinfo -R` instead of a slurmd log. Exit status of the check: 0 pass and
# 1 warn let the job run; 2 fail, 3 (railgauge failed), 4 (bad input: nothing judged) and 124
# (no answer in time) refuse it, as a verdict never passes what it could not read.
# shellcheck source=/dev/null
[ -r /etc/default/railgauge-prolog ] && . /etc/default/railgauge-prolog
rules=${RAILGAUGE_PROLOG_RULES:-h100-sxm-ib}
limit_s=${RAILGAUGE_PROLOG_TIMEOUT_S:-30}
log=${RAILGAUGE_PROLOG_LOG:-/var/log/railgauge/prolog.log}
binary=${RAILGAUGE:-$(command -v railgauge || echo /usr/bin/railgauge)}
node=${SLURMD_NODENAME:-$(hostname -s)}

out=$(timeout "$limit_s" "$binary" check --rules "$rules" --inventory-only 2>&1)
rc=$?
[ "$rc" -le 1 ] && exit 0

# The first finding when it judged (2: "FAIL gpu-count: n1 node: ... = 7, needs >= 8"); otherwise
# railgauge's own first line (3, 4), and the timeout's own words (124). Slurm keeps a reason of
# any length; a line of `sinfo -R` is read best short, so it is cut at 200 characters (the whole
# output goes to the log).
why=$(printf '%s\n' "$out" | awk '/^(FAIL|MISSING|WARN)[ \/]/ && !rule { rule = $1 " " $2; next }
  rule && /^  / { sub(/^ +/, ""); print rule ": " $0; exit }
  rule { print rule; exit }')
[ -n "$why" ] || why=$(printf '%s\n' "$out" | grep -m1 -v '^[[:space:]]*$')
[ "$rc" -eq 124 ] && why="no answer within $limit_s s"
reason=$(printf 'railgauge prolog (exit %s, %s): %s' "$rc" "$rules" "${why:-it printed nothing}" |
  cut -c1-200)

scontrol update nodename="$node" state=drain reason="$reason" ||
  echo "railgauge prolog: scontrol could not drain $node; Slurm drains it as 'Prolog error'" >&2
mkdir -p "$(dirname "$log")" 2>/dev/null
{
  printf '%s %s job %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$node" "${SLURM_JOB_ID:-?}" \
    "$reason"
  printf '%s\n' "$out"
} >>"$log" 2>/dev/null
command -v logger >/dev/null && logger -t railgauge "$node: $reason" 2>/dev/null
exit 1
