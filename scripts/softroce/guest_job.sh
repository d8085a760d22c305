#!/bin/sh
# What the Soft-RoCE guest runs (cwd: the host's 9p share). Every step is under `timeout`; the
# exit status is the number of steps that failed.
failures=0
step() { # name, command...: runs the command, logs its status
  name=$1; shift
  start=$(cut -d' ' -f1 /proc/uptime)
  "$@"; rc=$?
  # Also on the console, so a run that never finishes still shows how far it got.
  echo "step $name: exit $rc (uptime $start -> $(cut -d' ' -f1 /proc/uptime) s)" | tee -a steps.log > /dev/console
  [ $rc -eq 0 ] || failures=$((failures + 1))
}
step devinfo timeout 30 ibv_devinfo -v -d rxe0 > ibv_devinfo.txt 2>&1

# railgauge's softroce-labelled tests: verbs end to end with data checks, two ranks as threads.
step softroce_tests env RAILGAUGE_REQUIRE_RDMA=1 timeout 900 /rg/rdma_softroce_tests --gtest_output=xml:softroce_tests.xml \
  > softroce_tests.log 2>&1

# railgauge's rdma benchmarks on rxe0, both ends in this process (mode=loopback), sizes and
# iterations chosen like the perftest runs below so that the ratios compare like with like.
step railgauge_rdma timeout 900 /rg/railgauge rdma --out runs --format jsonl -q \
  --measure time_budget_s=2 -a device=rxe0 -a size_bytes=8,65536 > railgauge_rdma.jsonl 2> railgauge_rdma.log

# perftest on the same device: server, 1.5 s head start, client; distinct ports.
perftest_pair() { # name, port, tool args...
  pname=$1; port=$2; shift 2
  timeout 300 "$@" -p "$port" > "perftest_${pname}_server.txt" 2>&1 &
  server=$!
  sleep 1.5
  timeout 300 "$@" -p "$port" 127.0.0.1 > "perftest_${pname}.txt" 2>&1
  rc=$?
  wait $server; src=$?
  [ $rc -eq 0 ] && [ $src -eq 0 ]
}
step perftest_write_bw perftest_pair write_bw 18515 ib_write_bw -d rxe0 -x 0 -F -s 65536 -n 2000 --report_gbits
step perftest_write_lat perftest_pair write_lat 18516 ib_write_lat -d rxe0 -x 0 -F -s 8 -n 2000
echo "failures: $failures" | tee -a steps.log > /dev/console
[ $failures -eq 0 ]
