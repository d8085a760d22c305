#!/usr/bin/env bash
# Builds the OCI image localhost/PACKAGE:VERSION from DEB (deploy/Containerfile), PACKAGE being the
# .deb's (railgauge, the core, or railgauge-cuda, the GPU package), and checks it
# without running a container, which this machine cannot: the base is Debian 12 made by
# debootstrap from Debian's archive and imported into podman (localhost/railgauge-base:bookworm,
# kept for the next build); the image is built with `podman build --isolation chroot`; then a
# container is created (not started), its root mounted, and inside it, with chroot, railgauge
# must print its version, run the quick suite (records ok or waived), judge this machine's
# inventory, and `dpkg -r PACKAGE` must remove every file of the package. The GPU image must also
# resolve every library its binary links inside its own root and list the GPU benchmarks waived
# for want of a driver, not of CUDA (scripts/cuda_waivers.py): on a GPU node the NVIDIA container
# toolkit mounts the driver's libcuda and NVML in.
#
#   scripts/package_image.sh DEB VERSION      (scripts/package.sh --image calls it)
#
# As root. $DEBIAN_MIRROR overrides the archive (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "package_image.sh: $*" >&2; }
fail() { log "$*"; exit 1; }
[ $# -eq 2 ] && [ -f "$1" ] || { log "usage: $0 DEB VERSION (DEB: an existing .deb)"; exit 2; }
deb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
version=$2
out=$(dirname "$deb")
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=localhost/railgauge-base:bookworm
package=$(dpkg-deb -f "$deb" Package)
image=localhost/$package:$version

missing=()
for tool in debootstrap podman; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# --- the base: Debian 12 from Debian's archive, nothing else ------------------------------------
step_start=$SECONDS
if ! podman image exists "$base"; then
  rootfs=$out/rootfs
  # A debootstrap that was cut short leaves a root that looks whole; only a finished one has
  # the marker.
  if [ ! -f "$out/rootfs.done" ]; then
    rm -rf "$rootfs"
    timeout 1200 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$out/debootstrap.log" ||
      fail "debootstrap failed; see $out/debootstrap.log"
    touch "$out/rootfs.done"
  fi
  security=${mirror%/debian}/debian-security
  printf '%s\n' "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
    "deb $security bookworm-security main" >"$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | timeout 600 podman import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
  rm -rf "$rootfs" "$out/rootfs.done"
  log "made the base $base with debootstrap in $((SECONDS - step_start)) s"
fi

# --- the image ---------------------------------------------------------------------------------
step_start=$SECONDS
context=$out/image-context
rm -rf "$context" && mkdir -p "$context"
cp "$deb" "$context/"
# The previous build's image goes first, so that each build does not leave one behind, untagged.
if podman image exists "$image"; then podman rmi "$image" >/dev/null; fi
timeout 1200 podman build --isolation chroot -f deploy/Containerfile --build-arg BASE="$base" \
  --build-arg VERSION="$version" --build-arg PACKAGE="$package" -t "$image" "$context" >"$out/image.log" 2>&1 || { tail -30 "$out/image.log" >&2; fail "podman build failed; see $out/image.log"; }
size_bytes=$(podman image inspect --format '{{.Size}}' "$image")
log "built $image ($((size_bytes / 1000000)) MB) in $((SECONDS - step_start)) s"

# What a user of the image meets first: railgauge as its entrypoint, a working directory that
# exists, the OCI labels; and no copy of the package left in a layer.
config=$(podman image inspect --format \
  '{{json .Config.Entrypoint}} {{.Config.WorkingDir}} {{index .Config.Labels "org.opencontainers.image.version"}}' \
  "$image")
[ "$config" = "[\"railgauge\"] /var/lib/railgauge $version" ] ||
  fail "the image's entrypoint, working directory and version label read '$config'"
if podman history --no-trunc --format '{{.CreatedBy}}' "$image" | grep -q '#(nop) COPY '; then
  fail "a layer of the image copies a file in (the .deb?): the layer keeps it after rm"
fi

# --- inside its root -----------------------------------------------------------------------------
step_start=$SECONDS
container=$(podman create "$image")
root=$(podman mount "$container")
trap 'podman umount "$container" >/dev/null; podman rm "$container" >/dev/null' EXIT
# A private mount namespace: /proc (the binary finds its data through /proc/self/exe), /sys
# (hwloc's topology) and /dev go away with the namespace, whatever fails.
in_root() {
  timeout 600 unshare --mount --propagation private -- sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --rbind /dev "$root/dev"
    exec chroot "$root" "$@"' sh "$root" "$@"
}
printed=$(in_root railgauge --version)
[[ $printed == "railgauge $version "* ]] || fail "railgauge --version in the image printed '$printed'"
status=0
in_root sh -c 'cd /tmp && railgauge run quick --out /tmp/runs --quiet' || status=$?
[ "$status" -eq 0 ] || fail "railgauge run quick exited $status in the image"
/usr/bin/python3 - "$root/tmp/runs" <<'EOF' || fail "the quick run's records in the image"
import glob, json, sys
[records] = glob.glob(sys.argv[1] + "/*/records.jsonl")
statuses = [json.loads(line)["status"] for line in open(records)]
assert statuses and set(statuses) <= {"ok", "waived"}, statuses
assert "ok" in statuses, "no point measured"
print(f"package_image.sh: quick run in the image: {len(statuses)} records,"
      f" {statuses.count('ok')} ok, {statuses.count('waived')} waived", file=sys.stderr)
EOF
status=0
in_root railgauge check --rules host-only --inventory-only >/dev/null || status=$?
[ "$status" -le 1 ] || fail "railgauge check --inventory-only exited $status in the image"
# The Kubernetes Job's second step (deploy/k8s/burnin-job.yaml) with the image's python3.
[ -d "$root/var/lib/railgauge" ] || fail "the image's working directory /var/lib/railgauge is missing"
in_root python3 /usr/share/railgauge/k8s/verdict_to_node.py --help >/dev/null ||
  fail "deploy/k8s/verdict_to_node.py does not start in the image"
if [ "$package" = railgauge-cuda ]; then
  linked=$(in_root ldd /usr/bin/railgauge)
  [[ $linked != *"not found"* ]] || fail "in the GPU image, a library railgauge links is missing: $linked"
  in_root railgauge list | python3 scripts/cuda_waivers.py ||
    fail "the GPU image's railgauge does not wait for a driver alone to run its GPU benchmarks"
fi
in_root dpkg -r "$package" >/dev/null
# A removed package without conffiles may be forgotten by dpkg altogether (dpkg-query exits 1).
state=$(in_root dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null) || state=forgotten
[[ $state =~ ^(not-installed|config-files|forgotten)$ ]] || fail "after dpkg -r, dpkg says $state"
for path in usr/bin/railgauge usr/share/railgauge usr/share/man/man1/railgauge.1.gz usr/lib/"$package"; do
  [ ! -e "$root/$path" ] || fail "dpkg -r left /$path"
done
log "in $image's root: run quick, check --inventory-only and dpkg -r passed in" \
  "$((SECONDS - step_start)) s"
