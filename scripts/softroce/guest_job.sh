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

# The same points of every verb with each end in its own process (ranks 0 and 1 through the TCP
# store), the way perftest runs its server and client.
ranks_pair() {
  for r in 0 1; do
    SLURM_NTASKS=2 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=softroce-ranks \
      /rg/railgauge rdma --filter 'rdma.[rsw]*' -a mode=ranks -a device=rxe0 -a size_bytes=8,65536 \
      --measure time_budget_s=2 --out runs_ranks -q --store tcp://127.0.0.1:18601 \
      --store-timeout 120 > "railgauge_ranks_$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  wait "$pid0"; rc0=$?
  wait "$pid1"; rc1=$?
  [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]
}
step railgauge_rdma_ranks ranks_pair

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
step perftest_read_bw perftest_pair read_bw 18517 ib_read_bw -d rxe0 -x 0 -F -s 65536 -n 2000 --report_gbits
step perftest_read_lat perftest_pair read_lat 18518 ib_read_lat -d rxe0 -x 0 -F -s 8 -n 2000
step perftest_send_bw perftest_pair send_bw 18519 ib_send_bw -d rxe0 -x 0 -F -s 65536 -n 2000 --report_gbits
step perftest_send_lat perftest_pair send_lat 18520 ib_send_lat -d rxe0 -x 0 -F -s 8 -n 2000

# rdma.pair_matrix over verbs: four railgauge processes standing for four nodes
# (node_identity=rank), every NIC of the guest (rxe0, rxe1) a rail: 2 x 6 pairs in 3 rounds,
# then the retests of whatever the emulation's noise made look bad.
pair_matrix() {
  rm -rf runs_matrix
  for r in 0 1 2 3; do
    SLURM_NTASKS=4 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=softroce-matrix \
      /rg/railgauge rdma --filter rdma.pair_matrix -a node_identity=rank \
      -a bandwidth_size_bytes=65536 --time-budget 0.3 --out runs_matrix -q \
      --store tcp://127.0.0.1:18602 --store-timeout 120 > "railgauge_matrix_$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  rc=0
  for r in 0 1 2 3; do eval "wait \$pid$r" || rc=1; done
  # Every pair must have run: under emulation a pair may be judged bad, never fail.
  [ $rc -eq 0 ] && grep -q '"status":"ok"' runs_matrix/*/rank-00000/records.jsonl &&
    ! grep -q '"error":' runs_matrix/*/rank-00000/records.jsonl
}
step pair_matrix pair_matrix
# A verbs pair (rdma.write_bw, two railgauge processes started as srun starts them) whose rank 1
# is SIGKILLed mid-point: rank 0 must name it and exit 3 within its timeout. The host validates
# both ranks' records afterwards (softroce_vm.sh).
pair_fault() {
  rm -rf pair_fault && mkdir -p pair_fault
  for r in 0 1; do
    SLURM_NTASKS=2 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=softroce-pair \
      /rg/railgauge rdma --filter rdma.write_bw -a mode=ranks -a device=rxe0 \
      -a size_bytes=65536,1048576,4194304 --time-budget 3 --out pair_fault/runs -q \
      --store tcp://127.0.0.1:18600 --store-timeout 10 > "pair_fault/rank$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  i=0
  until [ -s "$(ls pair_fault/runs/*/rank-00000/records.jsonl 2>/dev/null | head -n1)" ]; do
    i=$((i + 1))
    if [ $i -gt 1200 ]; then kill -9 "$pid0" "$pid1"; echo "no first record" >> pair_fault/summary.txt; return 1; fi
    sleep 0.1
  done
  # The next point's setup takes about a second under emulation: kill in its measurement.
  sleep 2
  kill -9 "$pid1"
  killed=$(cut -d' ' -f1 /proc/uptime)
  wait "$pid0"; rc=$?
  echo "rank 0 exit $rc, uptime $killed -> $(cut -d' ' -f1 /proc/uptime) s (rank 1 SIGKILLed at the first)" \
    >> pair_fault/summary.txt
  [ $rc -eq 3 ] && grep -q "pair with rank 1" pair_fault/rank0.log
}
step pair_fault pair_fault

echo "failures: $failures" | tee -a steps.log > /dev/console
[ $failures -eq 0 ]
