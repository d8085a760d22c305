#!/usr/bin/env bash
# Builds the core Debian package (railgauge and railgauge-dbgsym, debian/) with dpkg-buildpackage
# into build-package/ (or $PACKAGE_DIR), checks it with lintian (no error, no warning) and runs
# the unpacked binary outside the checkout. With --image, also builds the OCI image
# localhost/railgauge:<version> (deploy/Containerfile) on a Debian 12 base made by debootstrap,
# and checks it without running a container: in its root, mounted and entered with chroot, it
# runs `railgauge run quick` and `check --inventory-only`, then `dpkg -r` must remove the package
# cleanly.
#
# With --cuda, also the GPU package railgauge-cuda (scripts/package_cuda.sh: build/'s CUDA binary
# with cuBLASLt and NCCL from NVIDIA's wheels on PyPI), and with --image its image
# localhost/railgauge-cuda:<version> too, checked the same way.
#
#   scripts/package.sh [--image] [--cuda]
#
# Needs scripts/setup.sh's packages (debhelper, help2man, lintian); --image also installs
# debootstrap and podman when they are missing. Runs as root (debootstrap, chroot, podman).
#
# The package is compiled with build/'s flags (debian/rules), so ccache hands it build/'s
# objects: every translation unit that includes no generated header hits in ccache's
# preprocessor mode (the build directories differ, so direct mode misses). build-deb/ stays,
# and the next run builds on it incrementally (dpkg-buildpackage -nc).
# Time on the 2-core Debian 12 VM, other builds sharing its cores (`time scripts/package.sh
# --image`): 1 min 41 s to 3 min 1 s (4 runs) with build-deb/ kept and the base image there.
# From a fresh clone after build/ (CI's case) about 6.5 min, the sum of its steps measured one by
# one: compile from ccache 158 s, packaging 112 s, lintian 9 s, package_image.sh with no base
# image 109 s (docs/install.md, "Times and sizes").
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "package.sh: $*" >&2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

image=0
cuda=0
while [ $# -gt 0 ]; do
  case $1 in
  --image) image=1 ;;
  --cuda) cuda=1 ;;
  -h | --help) usage; exit 0 ;;
  *) log "unknown argument '$1'"; usage >&2; exit 2 ;;
  esac
  shift
done

for tool in dpkg-buildpackage dh help2man lintian; do
  command -v "$tool" >/dev/null || { log "$tool is missing: run scripts/setup.sh"; exit 1; }
done
out=${PACKAGE_DIR:-build-package}
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$out/railgauge_${version}_${arch}.deb
dbgsym=$out/railgauge-dbgsym_${version}_${arch}.deb
changes=$out/railgauge_${version}_${arch}.changes
rm -f "$out"/railgauge_* "$out"/railgauge-dbgsym_*

# --- the package -----------------------------------------------------------------------------
step_start=$SECONDS
# -nc (no clean first): build-deb/ of an earlier run is built on incrementally. dh_clean
# removes the rest of that run (the stamp, the packages' trees, the dbgsym root, which would
# otherwise keep the old binary's debug file beside the new one) but not the build directory.
dh_clean
# debhelper (compat 13) builds with HOME set to a directory of its own, where ccache would start
# an empty cache and compile every file again: name the cache build/ filled.
if command -v ccache >/dev/null; then
  CCACHE_DIR=${CCACHE_DIR:-$(ccache --get-config cache_dir)}
  export CCACHE_DIR
fi
# A cold build (no ccache of build/) on 2 cores takes most of an hour; the limit is
# RAILGAUGE_PACKAGE_TIMEOUT_S seconds, and running out of it is said as such, not as a failure of
# the build.
limit_s=${RAILGAUGE_PACKAGE_TIMEOUT_S:-5400}
status=0
RAILGAUGE_DEB_DESTDIR=$out timeout "$limit_s" nice -n 5 dpkg-buildpackage -b -us -uc -nc \
  --changes-file="$changes" --buildinfo-file="${changes%.changes}.buildinfo" \
  --changes-option=-u"$out" --buildinfo-option=-u"$out" >"$out/build.log" 2>&1 || status=$?
if [ "$status" -eq 124 ]; then
  tail -5 "$out/build.log" >&2
  log "dpkg-buildpackage ran out of its $limit_s s and was stopped (a cold build without" \
    "ccache's copy of build/ takes longest): run it again to go on from where it stopped" \
    "(build-deb/ is kept), or raise RAILGAUGE_PACKAGE_TIMEOUT_S; the log is $out/build.log"
  exit 1
elif [ "$status" -ne 0 ]; then
  tail -40 "$out/build.log" >&2
  log "dpkg-buildpackage failed (exit $status); the whole log is $out/build.log"
  exit 1
fi
log "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) and $(basename "$dbgsym")" \
  "($(du -k "$dbgsym" | cut -f1) KiB) in $((SECONDS - step_start)) s"

step_start=$SECONDS
timeout 600 lintian --fail-on error,warning "$changes"
log "lintian: no error or warning in $((SECONDS - step_start)) s"

# --- what the package holds --------------------------------------------------------------------
fail() { log "$*"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends == *libyaml-cpp* && $depends == *libstdc++6* ]] ||
  fail "Depends lacks the libraries the binary links (dpkg-shlibdeps did not run?): $depends"
[[ $depends != *cuda* && $depends != *nccl* && $depends != *nvidia* ]] ||
  fail "Depends names a package outside Debian's archive: $depends"
contents=$(dpkg-deb -c "$deb")
for path in ./usr/bin/railgauge ./usr/share/man/man1/railgauge.1.gz \
  ./usr/share/doc/railgauge/copyright ./usr/share/railgauge/suites/quick.yaml \
  ./usr/share/railgauge/rules/host-only.yaml ./usr/share/railgauge/peaks/gpu_peaks.yaml \
  ./usr/share/railgauge/schema/record.schema.json ./usr/share/railgauge/slurm/slurm_burnin.sbatch; do
  [[ $contents == *" $path"$'\n'* || $contents == *" $path" ]] || fail "$(basename "$deb") lacks $path"
done
root=$(mktemp -d /tmp/railgauge-package.XXXXXX)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root/pkg"
dpkg-deb -x "$dbgsym" "$root/dbgsym"
binary=$root/pkg/usr/bin/railgauge
# Captured, not piped into grep -q: an early exit of grep would fail the pipe (pipefail).
sections=$(readelf -S "$binary")
[[ $sections != *.debug_info* ]] || fail "$binary is not stripped"
build_id=$(readelf -n "$binary" | sed -n 's/.*Build ID: //p')
debug_files=$(cd "$root/dbgsym" && find usr/lib/debug -name '*.debug')
[ "$debug_files" = "usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" ] ||
  fail "railgauge-dbgsym should hold the debug file of build id $build_id alone: $debug_files"
linked=$(ldd "$binary")
[[ ! $linked =~ cuda|cublas|nccl ]] || fail "the binary links CUDA or NCCL: $linked"
# Run from outside the checkout: the data must come from the package, beside the binary.
(cd "$root" && "$binary" --version && "$binary" list >/dev/null &&
  "$binary" run quick --filter 'memory.host_*' --out "$root/runs" --quiet) ||
  fail "the unpacked binary does not run"
log "the .deb holds a stripped binary, its data and man page; debug symbols in -dbgsym"

# --- the GPU package ---------------------------------------------------------------------------
cuda_deb=$out/railgauge-cuda_${version}_${arch}.deb
[ "$cuda" -eq 0 ] || "$(dirname "$0")/package_cuda.sh" "$deb" build

[ "$image" -eq 1 ] || exit 0

# --- the images --------------------------------------------------------------------------------
"$(dirname "$0")/package_image.sh" "$deb" "$version"
[ "$cuda" -eq 0 ] || "$(dirname "$0")/package_image.sh" "$cuda_deb" "$version"
