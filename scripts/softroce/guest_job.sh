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

# railgauge's whole rdma family on rxe0, both ends in this process (mode=loopback), under the
# default stopping rule (the measurement core's time budget).
step railgauge_rdma timeout 900 /rg/railgauge rdma --out budget/runs --format jsonl -q \
  --measure time_budget_s=2 -a device=rxe0 -a size_bytes=8,65536 > railgauge_rdma.jsonl 2> railgauge_rdma.log

# The ratio table's runs: railgauge and perftest alternately, $reps times, each doing the same
# work (2000 iterations: perftest's -n, railgauge's iterations axis) at the sizes the table
# compares (64 KiB bandwidth, 8 B latency). One run each would be too noisy under emulation:
# ratios.py takes the median of the runs and shows their spread. softroce_vm.sh --reps N sets
# their number (the kernel hands softroce_reps=N on its command line to init's environment).
reps=${softroce_reps:-3}
iterations=2000
railgauge_points() { # filter, size, out dir, extra args...
  filter=$1; size=$2; out=$3; shift 3
  timeout 600 /rg/railgauge rdma --filter "$filter" -a device=rxe0 -a size_bytes=$size \
    -a iterations=$iterations --out "$out" -q "$@"
}
railgauge_loopback() { # rep dir
  { railgauge_points 'rdma.[rsw]*_bw' 65536 "$1/runs" &&
    railgauge_points 'rdma.[rsw]*_lat' 8 "$1/runs"; } > "$1/railgauge_loopback.log" 2>&1
}
# Each end in its own process (ranks 0 and 1 through the TCP store), as perftest runs its
# server and client.
railgauge_pair() { # rep dir, store port, filter, size
  for r in 0 1; do
    SLURM_NTASKS=2 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=softroce-ranks-$2 \
      railgauge_points "$3" "$4" "$1/runs_ranks" -a mode=ranks --store "tcp://127.0.0.1:$2" \
      --store-timeout 120 >> "$1/railgauge_ranks_$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  wait "$pid0"; rc0=$?
  wait "$pid1"; rc1=$?
  [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]
}
railgauge_ranks() { # rep dir, first store port (each pair its own: no stale store to meet)
  railgauge_pair "$1" "$2" 'rdma.[rsw]*_bw' 65536 && railgauge_pair "$1" $(($2 + 1)) 'rdma.[rsw]*_lat' 8
}

# perftest on the same device: server, 1.5 s head start, client; distinct ports.
perftest_pair() { # output prefix, port, tool args...
  prefix=$1; port=$2; shift 2
  timeout 300 "$@" -p "$port" > "${prefix}_server.txt" 2>&1 &
  server=$!
  sleep 1.5
  timeout 300 "$@" -p "$port" 127.0.0.1 > "${prefix}.txt" 2>&1
  rc=$?
  wait $server; src=$?
  [ $rc -eq 0 ] && [ $src -eq 0 ]
}
perftest_all() { # rep dir, first port
  dir=$1; port=$2; rc=0
  for verb in write read send; do
    perftest_pair "$dir/perftest_${verb}_bw" "$port" ib_${verb}_bw -d rxe0 -x 0 -F -s 65536 \
      -n $iterations --report_gbits || rc=1
    perftest_pair "$dir/perftest_${verb}_lat" $((port + 1)) ib_${verb}_lat -d rxe0 -x 0 -F -s 8 \
      -n $iterations || rc=1
    port=$((port + 2))
  done
  return $rc
}
rep=1
while [ $rep -le $reps ]; do
  mkdir -p rep$rep
  step rep${rep}_railgauge_loopback railgauge_loopback rep$rep
  step rep${rep}_railgauge_ranks railgauge_ranks rep$rep $((18600 + 10 * rep + 1))
  step rep${rep}_perftest perftest_all rep$rep $((18520 + 10 * rep))
  rep=$((rep + 1))
done

# rdma.pair_matrix over verbs: four railgauge processes standing for four nodes
# (node_identity=rank), every NIC of the guest (rxe0, rxe1) a rail. matrix_ranks OUT PORT TOKEN
# [AXES...] runs them (into OUT as it is: the callers empty it); every pair must have run: under
# emulation a pair may be judged bad, never fail.
matrix_ranks() {
  out=$1 port=$2 token=$3
  shift 3
  for r in 0 1 2 3; do
    SLURM_NTASKS=4 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=$token \
      /rg/railgauge rdma --filter rdma.pair_matrix -a node_identity=rank "$@" \
      -a bandwidth_size_bytes=65536 --time-budget 0.3 --out "$out" -q \
      --store "tcp://127.0.0.1:$port" --store-timeout 120 > "railgauge_${token#softroce-}_$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  rc=0
  for r in 0 1 2 3; do eval "wait \$pid$r" || rc=1; done
  [ $rc -eq 0 ] && grep -q '"status":"ok"' "$out"/*/rank-00000/records.jsonl &&
    ! grep -q '"error":' "$out"/*/rank-00000/records.jsonl
}
# All pairs: 2 x 6 pairs in 3 rounds, then the retests of whatever the emulation's noise made
# look bad.
pair_matrix() { rm -rf runs_matrix && matrix_ranks runs_matrix 18602 softroce-matrix; }
step pair_matrix pair_matrix
# The coverage planner's rounds instead (coverage_k=2, no topology file: each rail one leaf):
# every NIC crossed twice in 2 rounds. Then the coverage ledger (docs/rdma.md, rdma/matrix_ledger.h):
# rank 0 wrote one line per NIC cable it crossed (4 nodes x 2 rails: 8) to fabric_ledger.jsonl
# in its run directory, and a second matrix in the same --out with cover_since=1h finds every
# cable fresh, so it plans none and has no rounds (and no ledger lines of its own).
matrix_cables=8
pair_matrix_coverage() {
  rm -rf runs_coverage
  matrix_ranks runs_coverage 18603 softroce-coverage -a coverage_k=2 &&
    grep -q '"pairing":"coverage"' runs_coverage/*/rank-00000/records.jsonl || return 1
  first=$(ls -d runs_coverage/*/rank-00000)
  ledger_cables "$first/fabric_ledger.jsonl" $matrix_cables || return 1
  matrix_ranks runs_coverage 18605 softroce-cover-since -a coverage_k=2 -a cover_since=1h ||
    return 1
  second=""
  for d in runs_coverage/*/rank-00000; do [ "$d" = "$first" ] || second=$d; done
  plan="cover_since 1h: $matrix_cables of $matrix_cables NIC cables exercised since then, 0 planned; no rounds"
  record="$second/records.jsonl"
  if [ -z "$second" ] || ! grep -qF "\"coverage_plan\":\"$plan\"" "$record" ||
    ! grep -qF '"rounds":0' "$record" || ! grep -qF '"pairs":[]' "$record"; then
    echo "cover_since: the second matrix ($second) is not '$plan' with no pairs:"
    cat "$record"
    return 1
  fi
  [ ! -s "$second/fabric_ledger.jsonl" ] ||
    { echo "cover_since: a matrix without rounds wrote ledger lines"; return 1; }
}
# ledger_cables FILE CABLES: FILE is not empty, each line is one JSON object naming its link, and
# its "matrix" lines name CABLES distinct links. (No JSON parser in the guest: the host parses
# every line again, softroce_vm.sh.)
ledger_cables() {
  [ -s "$1" ] || { echo "no coverage ledger at $1"; return 1; }
  awk -v want="$2" '
    !/^\{.*"link":"[^"]+".*\}$/ { print FILENAME ":" NR ": not a ledger line: " $0; bad = 1 }
    /"phase":"matrix"/ { match($0, /"link":"[^"]+"/); links[substr($0, RSTART, RLENGTH)] = 1 }
    END {
      n = 0
      for (l in links) n++
      if (n != want) { print FILENAME ": its matrix lines name " n " NIC cables, not " want; bad = 1 }
      exit bad
    }' "$1"
}
step pair_matrix_coverage pair_matrix_coverage
# The fabric under load as four processes standing for four nodes, all on rxe0 (rxe delivers
# between two of one kernel's devices through lo, where none listens), started as srun starts
# them, through the TCP store: qp_scaling over 1 and 4 QPs, an incast into
# receivers 0 and 3, the probe behind bulk and incast load. Every end's records are validated
# by the host (softroce_vm.sh) and drawn by `railgauge report` there.
fabric_load() {
  rm -rf runs_fabric
  for r in 0 1 2 3; do
    SLURM_NTASKS=4 SLURM_PROCID=$r SLURM_LOCALID=$r RAILGAUGE_RUN_TOKEN=softroce-fabric \
      timeout 900 /rg/railgauge rdma --filter 'rdma.[ilq]*' \
      -a device=rxe0 -a size_bytes=65536 -a qps=1,4 -a receiver=0,3 \
      --time-budget 1 --out runs_fabric -q \
      --store tcp://127.0.0.1:18604 --store-timeout 120 > "railgauge_fabric_$r.log" 2>&1 &
    eval "pid$r=\$!"
  done
  rc=0
  for r in 0 1 2 3; do eval "wait \$pid$r" || rc=1; done
  [ $rc -eq 0 ] && ! grep -q '"status":"error"' runs_fabric/*/rank-*/records.jsonl &&
    ! grep -q '"status":"failed"' runs_fabric/*/rank-*/records.jsonl
}
step fabric_load fabric_load
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
