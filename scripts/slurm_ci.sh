#!/usr/bin/env bash
# The `slurm` tier: railgauge under a real one-machine Slurm cluster (Debian's slurm-wlm).
#   1. `srun --mpi=pmix -n 4 railgauge collectives`: every rank's records land, and agree on
#      one run id;
#   1b. a rank SIGKILLed under srun on the two nodes: the run ends within the store timeout
#      naming it, and check drains that rank's node alone (the other warns, not drained);
#   2. the burn-in batch script (scripts/slurm_burnin.sbatch) through sbatch on both nodes,
#      healthy: the job exits 0 with a PASS verdict, the nodes stay up, and every step ran at the
#      layout it states (scripts/run_layout.py: its world.size and ranks per node, from run.json);
#   2b. the same script past its time limit: the step running is stopped at Slurm's warning
#      signal, the rest not run, and check warns on every node (none drained), exit 3;
#   2c. the same with a step that ignores SIGTERM: it is killed, and check judges what ran, exit 3;
#   3. the same script with a synthetic failure (a rule no host can meet) and --drain: the job
#      exits 2 and every node is drained with a reason naming the profile; then resumed;
#   4. the Slurm prolog (deploy/slurm/railgauge-prolog.sh) on a profile no node meets: the node
#      is drained with railgauge's finding as the reason, not Slurm's "Prolog error".
# The cluster is two simulated nodes on this one host (one slurmd each, ../shared/reference:
# slurm.md), so that a step that runs one rank per node where it states two fails here.
# railgauge runs from a `cmake --install` prefix on PATH, outside the checkout, as on a cluster.
#
#   scripts/slurm_ci.sh [--build-dir DIR]      (as root, or with sudo; default build dir build/)
#
# Exit status: 0 every step as expected; 1 a step not as expected (what is printed); 2 setup
# failed (packages, daemons).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
build_dir=build
[[ "${1:-}" == --build-dir ]] && build_dir=$2
say() { echo "slurm_ci: $*" >&2; }
fail() {
  say "FAILED: $*"
  failures=$((failures + 1))
}
failures=0

as_root=()
[[ "$(id -u)" -eq 0 ]] || as_root=(sudo)
packages=(slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]}"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" >/dev/null || { say "apt-get failed"; exit 2; }
fi

# The cluster: two nodes on this host, n1 and n2 (each its own slurmd, port and spool), everything
# under a temporary directory (../shared reference: slurm.md). Daemons are stopped through their
# pid files on exit.
d=$(mktemp -d /tmp/railgauge-slurm.XXXXXX)
chmod 755 "$d"
h=$(hostname -s)
# Two nodes, two ranks each in the per-node and cross-node steps: as many nodes as ranks per node,
# the layout of a burn-in of 8 nodes of 8 GPUs, where the node step (one rank per node) and the
# per-node NCCL step (all ranks on one node) have the same world size and check --latest-per-host
# must keep both (it once let the second supersede the first).
nodes=(n1 n2)
cleanup() {
  for pid in "$d"/slurmd.*.pid "$d/slurmctld.pid"; do
    [[ -f "$pid" ]] && "${as_root[@]}" kill "$(cat "$pid")" 2>/dev/null
  done
  [[ -f "$d/munge/munged.pid" ]] && "${as_root[@]}" kill "$(cat "$d/munge/munged.pid")" 2>/dev/null
  sleep 1
  "${as_root[@]}" rm -rf "$d"
}
trap cleanup EXIT
mkdir -p "$d/state" "$d/log" "$d/prefix" "$d/work"
# Per node: slurmd's spool, and TmpFS, where each step's PMIx client directory goes (on one
# shared /tmp both nodes' steps would make /tmp/spmix_appdir_UID_JOB.STEP, and the second fails).
for n in "${nodes[@]}"; do mkdir -p "$d/spool/$n" "$d/tmp/$n"; done
cat >"$d/slurm.conf" <<CONF
ClusterName=railgauge-ci
SlurmctldHost=$h
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SlurmdSpoolDir=$d/spool/%n
TmpFS=$d/tmp/%n
StateSaveLocation=$d/state
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/log/ctld.log
SlurmdLogFile=$d/log/d.%n.log
SlurmUser=root
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
$(for i in "${!nodes[@]}"; do
  echo "NodeName=${nodes[$i]} NodeHostname=$h Port=$((17001 + i)) CPUs=$(nproc) RealMemory=4000 State=UNKNOWN"
done)
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
if [[ ! -f /etc/munge/munge.key ]]; then
  "${as_root[@]}" dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
  "${as_root[@]}" chown munge:munge /etc/munge/munge.key
  "${as_root[@]}" chmod 400 /etc/munge/munge.key
fi
"${as_root[@]}" mkdir -p /run/munge
"${as_root[@]}" chown munge:munge /run/munge
if ! pgrep -x munged >/dev/null; then
  # munged runs as munge: its pid file goes where munge may write, so that cleanup finds it.
  "${as_root[@]}" mkdir -p "$d/munge"
  "${as_root[@]}" chown munge:munge "$d/munge"
  "${as_root[@]}" su -s /bin/sh munge -c "/usr/sbin/munged --pid-file=$d/munge/munged.pid" ||
    { say "munged did not start"; exit 2; }
fi
export SLURM_CONF=$d/slurm.conf
"${as_root[@]}" env SLURM_CONF="$SLURM_CONF" slurmctld -f "$SLURM_CONF" ||
  { say "slurmctld did not start"; exit 2; }
for n in "${nodes[@]}"; do
  "${as_root[@]}" env SLURM_CONF="$SLURM_CONF" slurmd -f "$SLURM_CONF" -N "$n" ||
    { say "slurmd -N $n did not start"; exit 2; }
done
idle_nodes() { sinfo -h -N -o '%N %T' 2>/dev/null | grep -cE ' (idle|mixed)$'; }
for _ in $(seq 30); do
  (($(idle_nodes) == ${#nodes[@]})) && break
  sleep 1
done
(($(idle_nodes) == ${#nodes[@]})) || { say "nodes not idle: $(sinfo -N 2>&1)"; exit 2; }
say "cluster up: $(sinfo -h -N -o '%N %T %c CPUs' | tr '\n' ' ')"

# railgauge installed outside the checkout, found through PATH as a package would be.
cmake --install "$build_dir" --prefix "$d/prefix" >/dev/null || { say "cmake --install failed"; exit 2; }
export PATH=$d/prefix/bin:$PATH
# Open MPI's shared-memory transport (vader) crashes (SIGSEGV in MPI_Bcast) between ranks that
# PMIx places on two nodes which are one machine: ranks talk over TCP here, as across real nodes.
# The jobs inherit it (sbatch and srun export the environment).
export OMPI_MCA_btl=self,tcp
cd "$d/work"

# 1. srun -n 4: four ranks, one run directory, every rank's records.
srun --mpi=pmix -n 4 --overcommit railgauge collectives --filter collectives.mpi_all_reduce \
  -a size_bytes=1MiB --out "$d/work/srun" --quiet
rc=$?
[[ $rc -eq 0 ]] || fail "srun -n 4 railgauge collectives exited $rc"
runs=("$d"/work/srun/*)
if [[ ${#runs[@]} -ne 1 ]]; then
  fail "srun -n 4 wrote ${#runs[@]} run directories, not one"
else
  for r in 0 1 2 3; do
    f=${runs[0]}/rank-0000$r/records.jsonl
    [[ -s "$f" ]] && grep -q '"status":"ok"' "$f" || fail "rank $r wrote no ok record ($f)"
  done
  say "srun -n 4: $(cat "${runs[0]}"/rank-*/records.jsonl | wc -l) records from 4 ranks in ${runs[0]}"
fi

# 1b. A rank lost under srun on two nodes, as the burn-in runs its steps (no --kill-on-bad-exit):
#     rank 1, on n2, SIGKILLed once it has written a record. Rank 0 ends within the store timeout
#     naming it in run.json (lost_ranks, with its node), and check drains n2 alone: n1's run,
#     stopped by the loss, is a warning (not judged on the points it never ran), not a drain.
lost=$d/work/lost
start_s=$SECONDS
RAILGAUGE_RUN_TOKEN=lost-$$ timeout 120 srun -N 2 -n 2 --ntasks-per-node=1 bash -c '
  if [[ $SLURM_PROCID == 1 ]]; then
    (for _ in $(seq 600); do grep -qs status "$1"/*/rank-00001/records.jsonl && break; sleep 0.05
     done; kill -9 $$) &
  fi
  exec railgauge memory --filter memory.host_copy -a size_bytes=1MiB,4MiB,16MiB,64MiB \
    -a threads=1 --time-budget 0.5 --store "tcp://127.0.0.1:$2" --store-timeout 15 --out "$1" -q
' _ "$lost" $((20000 + RANDOM % 20000)) 2>"$d/work/lost.err"
lost_s=$((SECONDS - start_s))
((lost_s < 25)) || fail "lost rank: srun took ${lost_s} s, more than the 15 s store timeout after the kill"
python3 - "$lost" <<'PY' || fail "lost rank: rank 0's run.json does not name rank 1 on n2 ($(tail -3 "$d/work/lost.err"))"
import json, pathlib, sys
m = json.loads(next(pathlib.Path(sys.argv[1]).glob("*/rank-00000/run.json")).read_text())
assert m["status"] == "failed", m["status"]
assert [(l["rank"], l["host"]) for l in m["lost_ranks"]] == [(1, "n2")], m.get("lost_ranks")
PY
railgauge check --rules host-only "$lost" --drain "$lost/drain.txt" --json "$lost/verdict.json" \
  >"$d/work/lost-check.txt"
rc=$?
[[ $rc -eq 2 && "$(cat "$lost/drain.txt" 2>&1)" == n2 ]] ||
  fail "lost rank: check exited $rc, drain list '$(tr '\n' ' ' <"$lost/drain.txt")', not 2 and n2 alone"
python3 - "$lost/verdict.json" <<'PY' || fail "lost rank: n1 is not a warning naming rank 1 on n2"
import json, sys
v = json.load(open(sys.argv[1]))
nodes = {n["host"]: n["verdict"] for n in v["nodes"]}
assert nodes == {"n1": "warn", "n2": "fail"}, nodes
why = [f["detail"] for p in v["parts"] if p["host"] == "n1" for f in p["findings"]
       if f["rule"] == "run-complete"]
assert len(why) == 1 and why[0].startswith("not judged: stopped by lost rank 1 on n2"), why
PY
say "lost rank: srun ended ${lost_s} s after its start; check exit $rc, drain list $(cat "$lost/drain.txt"): $(tail -1 "$d/work/lost-check.txt")"

# 1c. Rank 0, on n1, SIGKILLed the same way: its store goes with it. Rank 1 names rank 0 on n1 as
#     lost, and check drains n1 alone, not every node whose points rank 0's loss stopped.
lost0=$d/work/lost0
# srun waits for a node that is down; the wait has a limit (a slurmd that could not start once
# held this tier until CI's own).
RAILGAUGE_RUN_TOKEN=lost0-$$ timeout 120 srun -N 2 -n 2 --ntasks-per-node=1 bash -c '
  if [[ $SLURM_PROCID == 0 ]]; then
    (for _ in $(seq 600); do grep -qs status "$1"/*/rank-00000/records.jsonl && break; sleep 0.05
     done; kill -9 $$) &
  fi
  exec railgauge memory --filter memory.host_copy -a size_bytes=1MiB,4MiB,16MiB,64MiB \
    -a threads=1 --time-budget 0.5 --store "tcp://127.0.0.1:$2" --store-timeout 15 --out "$1" -q
' _ "$lost0" $((20000 + RANDOM % 20000)) 2>"$d/work/lost0.err"
railgauge check --rules host-only "$lost0" --drain "$lost0/drain.txt" >"$d/work/lost0-check.txt"
rc=$?
[[ $rc -eq 2 && "$(cat "$lost0/drain.txt" 2>&1)" == n1 ]] ||
  fail "rank 0 lost: check exited $rc, drain list '$(tr '\n' ' ' <"$lost0/drain.txt")', not 2 and n1 alone ($(tail -3 "$d/work/lost0.err"))"
say "rank 0 lost: check exit $rc, drain list $(cat "$lost0/drain.txt"): $(tail -1 "$d/work/lost0-check.txt")"

# 2. and 3. The burn-in script through sbatch; its exit status is the job's.
job_exit() { # JOBID -> "rc:signal" while the job is remembered (MinJobAge)
  scontrol show job "$1" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9]*:[0-9]*\).*/\1/p'
}
node_states() { sinfo -h -N -o %T | sort -u | tr '\n' ' ' | sed 's/ $//'; }
# The quick suite with the NCCL collectives, so that the burn-in's per-node NCCL step runs (one
# srun per node; every NCCL point is waived on this machine without a GPU, never failed).
suite=$d/work/quick-nccl.yaml
sed 's/^suite: quick$/suite: quick-nccl/' "$repo/results/suites/quick.yaml" >"$suite"
printf '  - key: "collectives.nccl_*"\n    axes:\n      size_bytes: [1MiB]\n' >>"$suite"
# Across the nodes, the MPI all_reduce and the NCCL one (waived) at 4 KiB: the layout is what is
# checked there, and the whole collectives suite over TCP between 4 ranks on 2 cores took more
# than 10 minutes.
collectives=$d/work/collectives-short.yaml
printf '%s\n' 'suite: collectives-short' 'description: the layout check of slurm_ci.sh' \
  'measure:' '  time_budget_s: 0.05' 'benchmarks:' '  - key: "collectives.mpi_all_reduce"' \
  '    axes: {size_bytes: [4KiB]}' '  - key: "collectives.nccl_all_reduce"' \
  '    axes: {size_bytes: [4KiB]}' >"$collectives"
burnin() { # NAME ARGS... : submits and waits (sbatch --wait exits with the job's status)
  local name=$1
  shift
  sbatch --wait --nodes=${#nodes[@]} --output="$d/work/$name.log" --chdir="$d/work" \
    "$repo/scripts/slurm_burnin.sbatch" --profile host-only --suite "$suite" --ranks-per-node 2 \
    --collectives-suite "$collectives" --out "$d/work/$name" "$@"
}

burnin healthy
rc=$?
[[ $rc -eq 0 ]] || fail "healthy burn-in: job exited $rc, not 0 (log: $(tail -5 "$d/work/healthy.log"))"
grep -q "PASS" "$d/work/healthy/verdict.md" 2>/dev/null ||
  fail "healthy burn-in: no PASS verdict: $(grep -m8 -E 'fail|FAIL' "$d/work/healthy/verdict.md")"
[[ "$(node_states)" == idle ]] || fail "healthy burn-in: nodes are $(node_states), not idle"
grep "^slurm_burnin:" "$d/work/healthy.log" >&2 # what the job said, step by step
grep -q "step node_collectives: exit 0" "$d/work/healthy.log" ||
  fail "healthy burn-in: the per-node NCCL step did not run to exit 0"
# Each step at the layout it states (2 ranks per node: --ranks-per-node 2 below), read back from
# every rank's run.json: exit codes alone passed a step that ran one rank where it stated two.
layout() { # STEP RUNS WORLD_SIZE RANKS_PER_NODE
  python3 "$repo/scripts/run_layout.py" "$d/work/healthy/$1" --runs "$2" --world-size "$3" \
    --ranks-per-node "$4" --nodes ${#nodes[@]} >&2 || fail "healthy burn-in: step $1 ran at another layout"
}
count=${#nodes[@]}
layout node 1 "$count" 1
layout node_collectives "$count" 2 2
layout collectives 1 $((2 * count)) 2
layout fabric_collectives 1 $((2 * count)) 2
say "healthy burn-in: exit $rc, $(grep -m1 -E 'PASS|WARN|FAIL' "$d/work/healthy/verdict.md")"
# The same --out again: the earlier job's runs would stand in for a node that leaves none.
sbatch --wait --nodes=${#nodes[@]} --output="$d/work/again.log" --chdir="$d/work" \
  "$repo/scripts/slurm_burnin.sbatch" --profile host-only --suite "$suite" --out "$d/work/healthy"
rc=$?
[[ $rc -eq 4 ]] && grep -q "holds runs of an earlier job" "$d/work/again.log" ||
  fail "burn-in into an earlier job's --out: exit $rc, not 4 (log: $(tail -3 "$d/work/again.log"))"

# 2b. The time limit: a job of 2 minutes whose node step needs 4 (each point warms up for 30 s),
#     warned 100 s before its end (Slurm may send it up to a minute early): the running step is
#     stopped by SIGTERM, the steps left are not run, check warns (not measured: no node passed,
#     none drained) and the job exits 3, where the limit once killed it before check ran.
slow=$d/work/slow.yaml
printf '%s\n' 'suite: slow' 'description: a node step longer than its job (slurm_ci.sh)' \
  'measure:' '  warmup_s: 30' '  time_budget_s: 0.05' 'benchmarks:' '  - key: "memory.host_*"' \
  '    axes: {size_bytes: [16KiB, 4MiB], threads: [1]}' >"$slow"
started=$SECONDS
sbatch --wait --nodes=${#nodes[@]} --time=2 --signal=B:USR1@100 --output="$d/work/timelimit.log" \
  --chdir="$d/work" "$repo/scripts/slurm_burnin.sbatch" --profile host-only --suite "$slow" \
  --ranks-per-node 2 --collectives-suite "$collectives" --out "$d/work/timelimit"
rc=$?
took=$((SECONDS - started))
grep "^slurm_burnin:" "$d/work/timelimit.log" >&2
[[ $rc -eq 3 ]] || fail "time limit: job exited $rc, not 3 (log: $(tail -5 "$d/work/timelimit.log"))"
grep -q "the job's time limit is near (SIGUSR1" "$d/work/timelimit.log" &&
  grep -q "step collectives: not run (the job's time limit)" "$d/work/timelimit.log" ||
  fail "time limit: the job did not stop its steps at the warning (log: $(tail -5 "$d/work/timelimit.log"))"
# Each rank's run.json (node/RUN/rank-N/): interrupted by the SIGTERM.
statuses=$(find "$d/work/timelimit/node" -name run.json -exec python3 -c \
  'import json, sys; print(json.load(open(sys.argv[1]))["status"])' {} \; | sort | uniq -c | xargs)
interrupted=$(find "$d/work/timelimit/node" -name run.json -exec grep -l '"status": *"interrupted"' {} + | wc -l)
[[ $interrupted -eq ${#nodes[@]} ]] ||
  fail "time limit: $interrupted node runs say interrupted, not ${#nodes[@]} ($statuses)"
grep -q "^WARN: ${#nodes[@]} nodes (0 pass, ${#nodes[@]} warn, 0 fail)" "$d/work/timelimit.log" ||
  fail "time limit: check did not warn on every node: $(grep -m3 -E '^(PASS|WARN|FAIL)' "$d/work/timelimit.log")"
[[ ! -s "$d/work/timelimit/drain.txt" && "$(node_states)" == idle ]] ||
  fail "time limit: drain list '$(cat "$d/work/timelimit/drain.txt" 2>&1)', nodes $(node_states)"
say "time limit: exit $rc after $took s, node runs: $statuses; $(grep -m1 -E '^WARN' "$d/work/timelimit.log")"

# 2c. A step that ignores SIGTERM (a rank stuck in a driver call, here as it exits): railgauge
#     behind a wrapper whose `run` measures, then ignores SIGTERM and sleeps. At the warning (100
#     s before the limit) the step is sent SIGTERM, then killed by its step id 10-20 s later (the
#     time left less 90 s for check), and check judges what was measured before the limit: the
#     node step's runs (PASS), the steps not run named, exit 3, none drained. The job once
#     waited on the step until the limit killed it: check never ran. Slurm may send the warning
#     up to 60 s early (its event resolution): a 3-minute job leaves the run at least 20 s to
#     measure before it, where a 2-minute one once signalled a loaded machine's run at its start.
stuck=$d/work/stuck-railgauge
printf '%s\n' '#!/usr/bin/env bash' "real=$(command -v railgauge)" \
  'if [[ "${1:-}" == run ]]; then "$real" "$@"; trap "" TERM; exec sleep 600; fi' \
  'exec "$real" "$@"' >"$stuck"
chmod 755 "$stuck"
started=$SECONDS
RAILGAUGE=$stuck sbatch --wait --nodes=${#nodes[@]} --time=3 --signal=B:USR1@100 \
  --output="$d/work/stuck.log" --chdir="$d/work" "$repo/scripts/slurm_burnin.sbatch" \
  --profile host-only --suite "$suite" --ranks-per-node 2 --collectives-suite "$collectives" \
  --out "$d/work/stuck"
rc=$?
took=$((SECONDS - started))
grep "^slurm_burnin:" "$d/work/stuck.log" >&2
grep -q "step node: still running .* s after SIGTERM" "$d/work/stuck.log" ||
  fail "stuck step: the job did not kill the step that ignored SIGTERM (log: $(tail -5 "$d/work/stuck.log"))"
complete=$(find "$d/work/stuck/node" -name run.json -exec grep -l '"status": *"complete"' {} + | wc -l)
# (host-only judges the node step alone, which measured everything: PASS, and the job's exit 3
# says that the steps after it were not run.)
grep -q "^PASS: ${#nodes[@]} nodes (${#nodes[@]} pass, 0 warn, 0 fail)" "$d/work/stuck.log" &&
  grep -q "the job's time limit cut the burn-in (steps node (cut) node_collectives" "$d/work/stuck.log" &&
  [[ $rc -eq 3 && $took -lt 170 && $complete -eq ${#nodes[@]} && ! -s "$d/work/stuck/drain.txt" ]] ||
  fail "stuck step: job exited $rc after $took s, $complete complete node runs, drain list '$(xargs <"$d/work/stuck/drain.txt" 2>&1)' (log: $(grep -m3 -E '^(PASS|WARN|FAIL)' "$d/work/stuck.log"))"
say "stuck step: exit $rc after $took s; $(grep -m1 'still running' "$d/work/stuck.log"); $(grep -m1 -E '^PASS' "$d/work/stuck.log")"

# A synthetic failure: host-only with one more rule no host meets (host memory at 1 PB/s).
failing=$d/work/host-only-failing.yaml
sed 's/^name: host-only$/name: host-only-failing/' "$repo/results/rules/host-only.yaml" >"$failing"
cat >>"$failing" <<'YAML'
  - id: synthetic-impossible-floor
    description: A floor no host meets, so that the burn-in must fail and drain the node.
    category: memory
    severity: fail
    select: {key: "memory.host_*"}
    metric: metrics.bandwidth_gbytes_per_s
    compare: ">="
    value: 1000000 # GB/s: impossible on purpose (a test of the drain path, not a bound)
YAML
burnin failing --profile "$failing" --drain
rc=$?
[[ $rc -eq 2 ]] || fail "failing burn-in: job exited $rc, not 2 (log: $(tail -5 "$d/work/failing.log"))"
for n in "${nodes[@]}"; do
  state=$(sinfo -h -n "$n" -o %T)
  reason=$(sinfo -h -n "$n" -o %E)
  [[ "$state" == drained || "$state" == draining ]] ||
    fail "failing burn-in: node $n is $state, not drained"
  [[ "$reason" == *"railgauge burn-in FAIL (host-only-failing"* ]] ||
    fail "failing burn-in: node $n drain reason is '$reason'"
  say "failing burn-in: exit $rc, node $n $state, reason: $reason"
  "${as_root[@]}" env SLURM_CONF="$SLURM_CONF" scontrol update nodename="$n" state=resume
done

# 4. The prolog deploy/slurm ships (railgauge check --inventory-only), under the real slurmd, on
#    a profile no node meets: the job does not run there, and the node is drained with
#    railgauge's first finding as the reason, which Slurm keeps (it drains with "Prolog error"
#    only a node not drained yet).
impossible=$d/work/numa-impossible.yaml
printf '%s\n' 'schema: railgauge.rules/1' 'name: numa-impossible' 'rules:' \
  '  - id: numa-nodes-impossible' '    description: more NUMA nodes than any host has' \
  '    category: health' '    severity: fail' '    inventory: node.numa_node_count' \
  "    compare: '>='" '    value: 1000' >"$impossible"
prolog=$d/prolog.sh # slurmd passes a prolog no arguments: its settings come from the environment
printf '#!/bin/sh\nexport RAILGAUGE=%s RAILGAUGE_PROLOG_RULES=%s RAILGAUGE_PROLOG_LOG=%s SLURM_CONF=%s\nexec sh %s\n' \
  "$d/prefix/bin/railgauge" "$impossible" "$d/log/prolog.log" "$SLURM_CONF" \
  "$repo/deploy/slurm/railgauge-prolog.sh" >"$prolog"
chmod 755 "$prolog"
echo "Prolog=$prolog" | "${as_root[@]}" tee -a "$SLURM_CONF" >/dev/null
"${as_root[@]}" env SLURM_CONF="$SLURM_CONF" scontrol reconfigure
job=$(sbatch --parsable -w n1 --output=/dev/null --wrap true)
for _ in $(seq 60); do
  [[ "$(sinfo -h -n n1 -o %T)" == drain* ]] && break
  sleep 1
done
reason=$(sinfo -h -n n1 -o %E)
[[ "$reason" == "railgauge prolog (exit 2, $impossible): FAIL numa-nodes-impossible: n1 node:"* ]] ||
  fail "prolog: node n1 is $(sinfo -h -n n1 -o %T), reason '$reason' (log: $(tail -3 "$d/log/prolog.log" 2>&1))"
say "prolog: node n1 $(sinfo -h -n n1 -o %T), reason: $reason"
scancel "$job"
"${as_root[@]}" sed -i '/^Prolog=/d' "$SLURM_CONF"
"${as_root[@]}" env SLURM_CONF="$SLURM_CONF" scontrol reconfigure
"${as_root[@]}" env SLURM_CONF="$SLURM_CONF" scontrol update nodename=n1 state=resume

if ((failures)); then
  say "$failures step(s) not as expected; slurmctld log tail:"
  tail -20 "$d/log/ctld.log" >&2
  exit 1
fi
say "all steps as expected"
