#!/bin/sh
# /init of the Soft-RoCE guest (see scripts/softroce_vm.sh): mounts, loads rdma_rxe, creates
# rxe0 over dummy0 and rxe1 over dummy1, mounts the host's 9p share, runs /job.sh, prints the
# status marker the host looks for, and powers off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /tmp
status=1
fail() { echo "guest: $*"; echo "RAILGAUGE_SOFTROCE_STATUS=1"; poweroff -f; }
for m in crc32_generic udp_tunnel ip6_udp_tunnel ib_core ib_uverbs rdma_rxe dummy \
         virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
         netfs fscache 9pnet 9pnet_virtio 9p; do
  modprobe "$m" 2>/dev/null || [ -d "/sys/module/$m" ] || echo "guest: modprobe $m failed"
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 host /mnt/host || fail "no 9p share"
ip link set lo up
hostname softroce-guest # the pair matrix labels NICs by host
ip link set dummy0 up || fail "no dummy0"
rdma link add rxe0 type rxe netdev dummy0 || fail "rdma link add rxe0 failed"
# A second NIC, so that the pair matrix has two rails.
ip link add dummy1 type dummy && ip link set dummy1 up || fail "no dummy1"
rdma link add rxe1 type rxe netdev dummy1 || fail "rdma link add rxe1 failed"
for dev in rxe0 rxe1; do
  i=0
  until grep -q ACTIVE /sys/class/infiniband/$dev/ports/1/state 2>/dev/null; do
    i=$((i + 1)); [ $i -gt 300 ] && fail "$dev port never became ACTIVE"; sleep 0.1
  done
done
echo "guest: rxe0 and rxe1 ACTIVE after $(cut -d' ' -f1 /proc/uptime) s of uptime"
cd /mnt/host && sh /job.sh > /mnt/host/job.log 2>&1
status=$?
sync
echo "RAILGAUGE_SOFTROCE_STATUS=$status"
poweroff -f
