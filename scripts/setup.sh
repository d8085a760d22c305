#!/usr/bin/env bash
# Installs what railgauge needs to build and test on Debian 12 (as root, or through sudo).
# Optional backends that are missing (CUDA, NCCL, an RDMA NIC) only turn their benchmarks into
# waivers; the CUDA toolkit is taken from /usr/local/cuda when it is there.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git dpkg-dev ccache
  libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libhwloc-dev hwloc libpugixml-dev
  libbenchmark-dev libgtest-dev libgmock-dev
  libopenmpi-dev openmpi-bin libibverbs-dev ibverbs-providers rdma-core libopenblas-dev
  python3 python3-jsonschema python3-pip python3-venv
  chromium fonts-dejavu-core python3-pil
  clang libclang-rt-14-dev
  likwid mbw
  libsqlite3-dev libpq-dev postgresql
  debhelper help2man lintian # scripts/package.sh: the Debian package, its man page and check
  patchelf # scripts/package_cuda.sh: the GPU package binary's RUNPATH
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup.sh: run as root or install sudo" >&2; exit 1; }
  as_root=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# NVML is loaded at run time; building its inventory needs only nvml.h, which NVIDIA ships on
# PyPI. Without it the build still succeeds and the inventory says NVML was not built in.
python=$(command -v python3)
if ! "$python" -c "import sysconfig,os,sys; p=sysconfig.get_paths()['purelib']; sys.exit(0 if os.path.exists(p+'/nvidia/nvml_dev/include/nvml.h') else 1)"; then
  "$python" -m pip install -q --disable-pip-version-check nvidia-nvml-dev-cu12 2>/dev/null ||
    "$python" -m pip install -q --disable-pip-version-check --break-system-packages nvidia-nvml-dev-cu12 ||
    echo "setup.sh: nvml.h not installed; the NVML inventory will be built as a stub" >&2
fi
# The Kubernetes schema check of deploy/k8s: kubernetes-validate, pinned, in its own virtual
# environment (it needs a newer jsonschema than Debian 12's, which the other tests use).
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.venv-deploy
requirements=$root/deploy/k8s/validate-requirements.txt
if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null; then
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
echo "setup.sh: dependencies present"
