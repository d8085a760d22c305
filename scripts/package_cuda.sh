#!/usr/bin/env bash
# Builds the GPU package railgauge-cuda_<version>_amd64.deb beside the core one: the core
# package's files (suites, rules, schemas, man page, docs) with a CUDA build's railgauge in place of
# the core binary, and the CUDA libraries that binary links, cuBLASLt and NCCL, from NVIDIA's
# redistributable wheels on PyPI (deploy/cuda/wheels.txt pins their versions and hashes), in
# /usr/lib/railgauge-cuda, which the binary's RUNPATH names. cudart is linked in statically. A GPU
# node then needs NVIDIA's driver alone (libcuda and NVML, which the NVIDIA container toolkit
# mounts into a container). The package replaces the core one: the same paths, one binary.
#
# Then it checks the package: lintian (no error, no warning); every library the unpacked binary
# links resolves, from this Debian 12 machine or the package, with no CUDA toolkit on the library
# path; and the binary starts and waives its GPU benchmarks for want of a driver, never for want of
# CUDA (scripts/cuda_waivers.py). The image (scripts/package.sh --image --cuda) is checked again
# in its own root by scripts/package_image.sh.
#
#   scripts/package_cuda.sh CORE_DEB [BUILD_DIR]     (scripts/package.sh --cuda calls it)
#
# CORE_DEB is the core package scripts/package.sh built; BUILD_DIR (default build/) a CUDA build of
# railgauge (scripts/build.sh on a machine with the CUDA toolkit), whose binary is packed as it is,
# stripped: nothing is compiled here. The wheels are downloaded once, into the CORE_DEB's directory
# (wheels/), and their hashes checked each time.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "package_cuda.sh: $*" >&2; }
fail() {
  log "$*"
  exit 1
}
[ $# -ge 1 ] && [ $# -le 2 ] && [ -f "$1" ] || {
  log "usage: $0 CORE_DEB [BUILD_DIR] (CORE_DEB: the core .deb scripts/package.sh built)"
  exit 2
}
core_deb=$(realpath "$1")
build_dir=$(realpath "${2:-build}")
out=$(dirname "$core_deb")
for tool in dpkg-deb dpkg-shlibdeps lintian patchelf pip3 readelf strip; do
  command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup.sh"
done
binary_in=$build_dir/bin/railgauge
[ -x "$binary_in" ] || fail "$binary_in is missing: build railgauge first (scripts/build.sh)"
# The CUDA build links cuBLASLt and NCCL; a build configured without the toolkit links neither.
needed=$(readelf -d "$binary_in")
[[ $needed == *libcublasLt.so.* && $needed == *libnccl.so.* ]] ||
  fail "$binary_in was built without CUDA or NCCL (was the CUDA toolkit in /usr/local/cuda when" \
    "$build_dir was configured?): the GPU package needs a CUDA build"
version=$(dpkg-deb -f "$core_deb" Version)
arch=$(dpkg-deb -f "$core_deb" Architecture)
package=railgauge-cuda
deb=$out/${package}_${version}_${arch}.deb
rm -f "$deb"

# --- the wheels --------------------------------------------------------------------------------
step_start=$SECONDS
wheels=$out/wheels
mkdir -p "$wheels"
# pip checks each file's hash against wheels.txt, those already here too; a wrong one fails.
timeout 900 pip3 download --quiet --disable-pip-version-check --no-deps --require-hashes \
  --only-binary=:all: -d "$wheels" -r deploy/cuda/wheels.txt >"$out/wheels.log" 2>&1 ||
  { tail -20 "$out/wheels.log" >&2; fail "pip download of deploy/cuda/wheels.txt failed"; }
log "the CUDA wheels are in $wheels (checked against their hashes) after $((SECONDS - step_start)) s"

# --- the tree ----------------------------------------------------------------------------------
step_start=$SECONDS
work=$(mktemp -d /tmp/railgauge-cuda-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
# dpkg-shlibdeps takes a library under debian/<package>/ for one of the package's own.
root=$work/debian/$package
mkdir -p "$(dirname "$root")"
dpkg-deb -R "$core_deb" "$root"
mv "$root/usr/share/doc/railgauge" "$root/usr/share/doc/$package"
libdir=$root/usr/lib/$package
mkdir -p "$libdir"
unzip_one() { # WHEEL MEMBER DEST: one file of a wheel (a zip archive)
  python3 -c 'import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)' "$@"
}
cublas_wheel=$(ls "$wheels"/nvidia_cublas-*.whl)
nccl_wheel=$(ls "$wheels"/nvidia_nccl_cu13-*.whl)
unzip_one "$cublas_wheel" nvidia/cu13/lib/libcublasLt.so.13 "$libdir/libcublasLt.so.13"
unzip_one "$nccl_wheel" nvidia/nccl/lib/libnccl.so.2 "$libdir/libnccl.so.2"
docdir=$root/usr/share/doc/$package
license_of() { # WHEEL: the path of its License.txt inside it (dist-info/licenses/)
  python3 -c 'import sys, zipfile
print(next(n for n in zipfile.ZipFile(sys.argv[1]).namelist() if n.endswith("License.txt")))' "$1"
}
unzip_one "$cublas_wheel" "$(license_of "$cublas_wheel")" "$docdir/cublas-License.txt"
unzip_one "$nccl_wheel" "$(license_of "$nccl_wheel")" "$docdir/nccl-License.txt"
chmod 0644 "$libdir"/*.so.* "$docdir"/*-License.txt
# NCCL's wheel ships its symbol table, which lintian refuses in a package: stripped as Debian
# strips (cuBLASLt's comes stripped and is packed as it is).
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$libdir/libnccl.so.2"
install -m 0755 "$binary_in" "$root/usr/bin/railgauge"
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/railgauge"
# Only the package's own directory: the build's RUNPATH named the toolkit and the build tree.
patchelf --set-rpath "/usr/lib/$package" "$root/usr/bin/railgauge"
cat "deploy/cuda/copyright" >>"$docdir/copyright"

# The control file: the core one's, renamed, its Depends read again from the new binary.
mkdir -p "$work/debian"
cp debian/control "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -l"$libdir" -e "$root/usr/bin/railgauge" 2>"$out/shlibdeps.log") ||
  { cat "$out/shlibdeps.log" >&2; fail "dpkg-shlibdeps failed on the CUDA binary"; }
depends=${shlibs#shlibs:Depends=}
installed_kib=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
python3 - "$root/DEBIAN/control" "$package" "$depends" "$installed_kib" <<'EOF_CONTROL'
import email.parser, sys
path, package, depends, installed_kib = sys.argv[1:]
core = email.parser.Parser().parse(open(path))
fields = {
    "Package": package,
    "Version": core["Version"],
    "Architecture": core["Architecture"],
    "Maintainer": core["Maintainer"],
    "Installed-Size": installed_kib,
    "Depends": depends,
    "Conflicts": "railgauge",
    "Replaces": "railgauge",
    "Provides": f"railgauge (= {core['Version']})",
    # cuBLASLt's license allows redistribution, not modification: Debian's non-free.
    "Section": "non-free/science",
    "Priority": "optional",
}
summary = "microbenchmarks and fabric validation for GPU training clusters (CUDA)"
body = """ railgauge measures the parts of a GPU training node and its fabric: host and
 device memory bandwidth, GEMM throughput, host-device copies, RDMA verbs and
 TCP between nodes, and collectives. `railgauge check` judges runs against
 acceptance rules and names the node, GPU or NIC that fails.
 .
 This is the GPU package: railgauge built with CUDA and NCCL, with the CUDA
 libraries it links (cuBLASLt and NCCL, NVIDIA's redistributable builds) in
 /usr/lib/railgauge-cuda. A GPU node needs only NVIDIA's driver; without one,
 the GPU benchmarks are recorded as waived with that reason."""
with open(path, "w") as out:
    for key, value in fields.items():
        out.write(f"{key}: {value}\n")
    out.write(f"Description: {summary}\n{body}\n")
EOF_CONTROL
(cd "$root" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +
# gzip, not dpkg-deb's default xz: xz takes minutes over cuBLASLt's 540 MB on 2 cores (and
# Debian 12's lintian refuses zstd members).
dpkg-deb --root-owner-group -Zgzip -z1 --build "$root" "$deb" >/dev/null
log "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) in $((SECONDS - step_start)) s"

# --- the checks --------------------------------------------------------------------------------
step_start=$SECONDS
# Every check but binaries/spelling, which reads the strings of NVIDIA's 730 MB of libraries
# (text this project does not write; its own binary's strings are checked in the core package):
# 113 s with it, 51 s without, on the 2-core machine.
timeout 600 lintian --fail-on error,warning -X binaries/spelling "$deb"
log "lintian: no error or warning in $((SECONDS - step_start)) s"
step_start=$SECONDS
unpacked=$work/unpacked
dpkg-deb -x "$deb" "$unpacked"
binary=$unpacked/usr/bin/railgauge
# The installed RUNPATH names /usr/lib/railgauge-cuda, not this tree: ldd reads the unpacked
# libraries through LD_LIBRARY_PATH instead, and nothing else of CUDA's is on the path.
linked=$(env -u LD_LIBRARY_PATH LD_LIBRARY_PATH="$unpacked/usr/lib/$package" ldd "$binary")
[[ $linked != *"not found"* ]] || fail "a library the CUDA binary links is missing: $linked"
for lib in libcublasLt.so.13 libnccl.so.2; do
  [[ $linked == *"$lib => $unpacked/usr/lib/$package/$lib"* ]] ||
    fail "$lib resolves outside the package: $linked"
done
[[ $linked != */usr/local/cuda* ]] || fail "the binary reaches the CUDA toolkit: $linked"
listed=$(cd "$work" && LD_LIBRARY_PATH="$unpacked/usr/lib/$package" "$binary" list 2>&1) ||
  fail "the unpacked CUDA binary does not list its benchmarks: $listed"
python3 scripts/cuda_waivers.py <<<"$listed" || fail "the GPU benchmarks' waivers (above)"
log "the CUDA binary links only Debian's libraries and the package's, and waives the GPU" \
  "benchmarks for want of a driver, in $((SECONDS - step_start)) s"
