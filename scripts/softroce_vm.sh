#!/usr/bin/env bash
# Runs railgauge's verbs code for real on Soft-RoCE (rdma_rxe) inside a small VM under QEMU's
# software emulation, with perftest beside it on the same device, and reports railgauge /
# perftest ratios. For machines (and CI) without an RDMA NIC or a kernel with InfiniBand.
#
#   scripts/softroce_vm.sh [--build-dir DIR] [--cache-dir DIR] [--out DIR] [--job FILE] [--reps N]
#
# --reps N: how many alternating runs of railgauge and perftest make the ratio table (default 3;
# CI runs 2, for its time: one run of each is too noisy under emulation to judge a ratio by; each
# more run adds about a minute in the guest).
# --job FILE runs FILE in the guest instead of scripts/softroce/guest_job.sh (an experiment on
# part of the steps, in minutes instead of the whole job; the status then is FILE's).
#
# Steps, each under a timeout: install the host packages (apt-get), build the binaries the
# guest needs, download Debian's stock kernel (its rdma_rxe module; cached), pack a busybox
# initramfs with the binaries and the shared libraries they load, boot QEMU TCG with 4 vCPUs,
# create rxe0 and rxe1 over two dummy devices, run the `softroce` tests, railgauge's rdma
# benchmarks, --reps alternating runs of railgauge and perftest's ib_{write,read,send}_{bw,lat}
# at 2000 iterations each, a four-process rdma.pair_matrix and the fabric under load (incast,
# qp_scaling, latency_under_load) as four processes in the guest, and read the results back
# through a 9p share.
# Exit status: 0 when the guest's tests, benchmarks and perftest all passed, every record is
# valid and the ratio table was made (ratios.py exit 0 or 1: figures missing), 1 otherwise.
# Gated on setup, data checks and exit status only: emulated speed is about 100x below
# hardware, so the ratios are reported, never asserted.
set -euo pipefail
caller_dir=$(pwd)
cd "$(dirname "$0")/.."
repo=$(pwd)
build_dir=${BUILD_DIR:-build-softroce}
cache_dir=${RAILGAUGE_SOFTROCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/railgauge-softroce}
out_dir=""
job=scripts/softroce/guest_job.sh
reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --cache-dir) cache_dir=$2; shift 2 ;;
    --out) out_dir=$2; shift 2 ;;
    --job) job=$(cd "$caller_dir" && realpath "$2"); shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    -h|--help) sed -n 2,23p "$0"; exit 0 ;;
    *) echo "softroce_vm.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || { echo "softroce_vm.sh: --reps wants a count of 1 or more, not '$reps'" >&2; exit 2; }
out_dir=${out_dir:-$build_dir/softroce}
log() { echo "softroce_vm: $*" >&2; }
start_s=$(date +%s)

# --- host packages (do not add rdma-core: it pulls in udev and upgrades systemd) -----------
packages=(qemu-system-x86 busybox-static ibverbs-utils ibverbs-providers libibverbs-dev perftest
          iproute2 cpio kmod python3)
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  timeout 600 "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  timeout 900 "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# --- the binaries the guest runs ------------------------------------------------------------
targets=(railgauge rdma_softroce_tests rdma_perftest_import)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  # Without CUDA: the guest has no GPU, and the CUDA libraries a CUDA build links (cuBLASLt
  # alone is over 500 MB) would not fit the guest's memory as an initramfs.
  timeout 1800 cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DRAILGAUGE_ENABLE_CUDA=OFF >/dev/null
fi
timeout 3600 cmake --build "$build_dir" -j "$(nproc)" --target "${targets[@]}" >/dev/null
railgauge_bin=$build_dir/bin/railgauge
# Pipes that end early (grep -q, head, awk's exit) are avoided here: the writer would die of
# SIGPIPE and pipefail would fail the script on a match.
linked=$(ldd "$railgauge_bin")
if [[ $linked == *libcublas* || $linked == *libnccl* ]]; then
  log "$build_dir is a CUDA build: its libraries do not fit the guest's memory; give a build" \
    "directory configured with -DRAILGAUGE_ENABLE_CUDA=OFF (the default build-softroce is)"
  exit 2
fi
tests_bin=$(find "$build_dir" -type f -name rdma_softroce_tests -perm -u+x -print -quit)
import_bin=$(find "$build_dir" -type f -name rdma_perftest_import -perm -u+x -print -quit)
for f in "$railgauge_bin" "$tests_bin" "$import_bin"; do
  [ -x "$f" ] || { log "missing binary '$f' after the build"; exit 1; }
done

# --- kernel and modules: Debian's current ABI, resolved now (security updates replace it) ---
mkdir -p "$cache_dir"
kpkg=$(apt-cache depends linux-image-amd64 |
  awk '/Depends: linux-image-[0-9]/ && !k {k = $2} END {print k}')
[ -n "$kpkg" ] || { log "cannot resolve linux-image-amd64's kernel package (apt-get update?)"; exit 1; }
kver=${kpkg#linux-image-}
kroot=$cache_dir/$kver
modules=(crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe dummy
         virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
         netfs fscache 9pnet 9pnet_virtio 9p)
if [ ! -f "$kroot/done" ]; then
  log "downloading $kpkg"
  rm -rf "$kroot" && mkdir -p "$kroot/deb"
  (cd "$kroot/deb" && timeout 900 apt-get download -q "$kpkg" >/dev/null)
  deb=$(ls "$kroot"/deb/*.deb)
  pattern=$(printf '/%s.ko\\|' "${modules[@]}")
  mapfile -t want < <(dpkg-deb --fsys-tarfile "$deb" | tar -t | grep -e "^./boot/vmlinuz-" -e "/modules.builtin" -e "/modules.order" -e "${pattern%\\|}")
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$kroot" "${want[@]}"
  rm -rf "$kroot/deb"
  touch "$kroot/done"
fi
kernel=$kroot/boot/vmlinuz-$kver

# --- initramfs -------------------------------------------------------------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
# Merged /usr, as on Debian 12: /bin, /sbin, /lib and /lib64 point into /usr.
mkdir -p "$root"/{dev,proc,sys,tmp,etc,mnt/host,rg} "$root"/usr/{bin,lib/modules,lib64}
ln -s usr/bin "$root/bin"; ln -s usr/bin "$root/sbin"; ln -s bin "$root/usr/sbin"
ln -s usr/lib "$root/lib"; ln -s usr/lib64 "$root/lib64"
cp /bin/busybox "$root/bin/busybox"
for applet in $("$root/bin/busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
mkdir -p "$root/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
provider=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav*.so)
tools=(/usr/bin/rdma /usr/bin/ip /usr/bin/ibv_devinfo /usr/bin/ib_write_bw /usr/bin/ib_write_lat
       /usr/bin/ib_read_bw /usr/bin/ib_read_lat /usr/bin/ib_send_bw /usr/bin/ib_send_lat)
for t in "${tools[@]}"; do rm -f "$root/bin/$(basename "$t")"; cp "$t" "$root/bin/"; done
cp "$railgauge_bin" "$tests_bin" "$root/rg/"
# Debug info would make the initramfs ten times larger; the guest needs none.
strip --strip-debug "$root/rg/"*
# Every shared library ldd lists, at the same path (merged /usr: /lib -> usr/lib on Debian 12).
for f in "${tools[@]}" "$railgauge_bin" "$tests_bin" "$provider"; do
  { ldd "$f" || true; } | awk '/=> \//{print $3} /^\t\/lib/{print $1}'
done | sort -u | while read -r lib; do
  lib=${lib#/usr}
  mkdir -p "$root/usr$(dirname "$lib")" && cp -L "/usr$lib" "$root/usr$lib"
done
mkdir -p "$root$(dirname "$provider")" && cp "$provider" "$root$provider"
mkdir -p "$root/usr/lib/modules" && cp -a "$kroot/lib/modules/$kver" "$root/usr/lib/modules/"
cp -L /lib64/ld-linux-x86-64.so.2 "$root/usr/lib64/"
touch "$root/etc/passwd"
depmod -b "$root" "$kver"
cp scripts/softroce/guest_init.sh "$root/init"
cp "$job" "$root/job.sh"
chmod +x "$root/init" "$root/job.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1 > "$work/initrd.gz")
log "initramfs $(du -h "$work/initrd.gz" | cut -f1), kernel $kver, prepared in $(( $(date +%s) - start_s )) s"

# --- boot ------------------------------------------------------------------------------------
rm -rf "$out_dir" && mkdir -p "$out_dir"
out_abs=$(cd "$out_dir" && pwd)
boot_s=$(date +%s)
set +e
timeout 1500 qemu-system-x86_64 -accel tcg,thread=multi -cpu max -M pc -smp 4 -m 1024 \
  -nodefaults -no-reboot -display none -serial stdio -kernel "$kernel" -initrd "$work/initrd.gz" \
  -virtfs "local,path=$out_abs,mount_tag=host,security_model=none,id=host" \
  -append "console=ttyS0 quiet loglevel=4 panic=-1 mitigations=off softroce_reps=$reps" </dev/null \
  > "$out_dir/console.log" 2>&1
qemu_rc=$?
set -e
log "VM ran $(( $(date +%s) - boot_s )) s (qemu exit $qemu_rc)"
marker=$(grep -a -o 'RAILGAUGE_SOFTROCE_STATUS=[0-9]*' "$out_dir/console.log" | tail -n1 || true)
if [ -z "$marker" ]; then
  log "the guest never reported a status; console:"
  tail -n 40 "$out_dir/console.log" >&2
  exit 1
fi

# --- results ---------------------------------------------------------------------------------
for f in "$out_dir"/rep*/perftest_*.txt; do
  [ -s "$f" ] && "$import_bin" "$f" > "${f%.txt}.jsonl" || log "cannot import $f"
done
cat "$out_dir/steps.log" >&2 2>/dev/null || true
# The table: a figure missing on either side is shown as such (exit 1, already counted by the
# guest's steps); an error of ratios.py's own (exit 2) fails this script.
ratios_ok=1
python3 scripts/softroce/ratios.py "$out_dir" | tee "$out_dir/ratios.md" || {
  rc=${PIPESTATUS[0]}
  if [ "$rc" -ge 2 ]; then log "ratios.py failed (exit $rc)"; ratios_ok=0;
  else log "ratios.py: some figures are missing (see the table's notes)"; fi
}
# The pair whose rank 1 was SIGKILLed: what rank 0 said. Every run the guest wrote (that pair's
# both ranks included) must be valid against the schemas.
cat "$out_dir/pair_fault/summary.txt" "$out_dir/pair_fault/rank0.log" >&2 2>/dev/null || true
python3 scripts/softroce/matrix_summary.py "$out_dir"/runs_matrix/*/rank-00000/records.jsonl >&2 || true
records_ok=1
runs=("$out_dir"/budget/runs/* "$out_dir"/rep*/runs/* "$out_dir"/rep*/runs_ranks/*/rank-*
      "$out_dir"/pair_fault/runs/*/rank-* "$out_dir"/runs_matrix/*/rank-*
      "$out_dir"/runs_coverage/*/rank-* "$out_dir"/runs_fabric/*/rank-*)
python3 -W ignore::DeprecationWarning scripts/validate_run.py "${runs[@]}" >&2 || records_ok=0
# The coverage ledgers the verbs matrices wrote, parsed here (the guest has no JSON parser): the
# full matrix's and the first coverage matrix's (the second, with cover_since, has no rounds).
# A matrix that left none fails here: an unmatched glob names a file that is not there.
coverage_runs=("$out_dir"/runs_coverage/*/rank-00000)
python3 scripts/softroce/ledger_check.py "$out_dir"/runs_matrix/*/rank-00000/fabric_ledger.jsonl \
  "${coverage_runs[0]}/fabric_ledger.jsonl" >&2 || records_ok=0
# The fabric under load as a user reads it: the report's incast, entropy and latency tables.
if compgen -G "$out_dir/runs_fabric/*/rank-*" > /dev/null; then
  "$railgauge_bin" report "$out_dir"/runs_fabric/*/rank-* --title "Soft-RoCE fabric under load" \
    --html "$out_dir/fabric_report.html" --markdown "$out_dir/fabric_report.md" >&2 || records_ok=0
  sed -n '/^## Incast fairness/,$p' "$out_dir/fabric_report.md" >&2 || true
fi
guest_status=${marker#RAILGAUGE_SOFTROCE_STATUS=}
log "guest status $guest_status; records valid: $records_ok; ratio table made: $ratios_ok;" \
  "total $(( $(date +%s) - start_s )) s; results in $out_dir"
[ "$guest_status" = 0 ] && [ "$records_ok" = 1 ] && [ "$ratios_ok" = 1 ]
