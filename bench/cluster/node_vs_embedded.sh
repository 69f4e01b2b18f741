#!/usr/bin/env bash
# Durable decisions/s of one cluster node on the PostgreSQL journal against the same node on its
# embedded (RocksDB) journal, side by side in one run; figures in docs/PERFORMANCE.md ("Cluster
# node on PostgreSQL"). Both run the shipped configuration as bench/load/shipped_engine.sh sets
# it (demo model and policy, durable journal, workers = 1, io_threads = 1, drift watch off) and
# without API keys (--insecure-dev: the cluster harness's nodes have no keys), pinned to
# ENGINE_CPU; verdict-load on LOAD_CPU offers more than either can do on CONNECTIONS keep-alive
# connections (the rest waits in the generator, so the server never holds more than CONNECTIONS
# requests), and only 200 answers count: an answer comes after its group's commit, so every one
# is a durable decision. The cluster: `scripts/cluster up --nodes 1` (etcd, Patroni PostgreSQL
# primary + synchronous standby, synchronous_mode_strict), unpinned: PostgreSQL and etcd share
# both cores with the node and the generator. Each repetition runs both (embedded first in odd
# repetitions, the cluster first in even ones), each on a fresh engine or cluster, a warm-up
# first (its own transaction ids), then the measured window.
# CPU: utime+stime from /proc/PID/stat before and after the measured window, of the engine or
# node process; of each PostgreSQL member's postmaster and every process under it (plus what it
# reaped: cutime+cstime); of Patroni (its own Python processes, not PostgreSQL's) and of etcd.
# Usage (from anywhere): bench/cluster/node_vs_embedded.sh [BIN_DIR]   (default build/release/bin)
# Environment: REPEATS (3), DURATION_S (measured seconds, 10), WARMUP_S (2), RATE (offered/s,
# 15000), CLUSTER_RATE (offered/s to the cluster, default RATE: the generator shares CPU 0 with
# PostgreSQL, and every request it paces costs it CPU, answered or not), CONNECTIONS (64),
# ENGINE_CPU (1), LOAD_CPU (0), OUT (results, default
# /tmp/verdict-node-vs-embedded: run_N_{embedded,cluster}.json, the load reports, the
# verdict_journal_* metrics before and after each window, summary.json). Needs etcd, patroni,
# PostgreSQL 15 (scripts/setup), taskset; run as root or as a user that may run them. Bounded:
# each step has a timeout; everything listens on 127.0.0.1 and is stopped on exit, failure too.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=$(cd "${1:-build/release/bin}" && pwd)
REPEATS=${REPEATS:-3}
DURATION_S=${DURATION_S:-10}
WARMUP_S=${WARMUP_S:-2}
RATE=${RATE:-15000}
CLUSTER_RATE=${CLUSTER_RATE:-$RATE}
CONNECTIONS=${CONNECTIONS:-64}
ENGINE_CPU=${ENGINE_CPU:-1}
LOAD_CPU=${LOAD_CPU:-0}
OUT=${OUT:-/tmp/verdict-node-vs-embedded}
DRAIN_S=1
mkdir -p "$OUT"
work=$(mktemp -d /tmp/verdict-nve-XXXXXX)
chmod 755 "$work"  # PostgreSQL runs as the postgres user and walks into the cluster's folder
ENGINE=
cleanup() {
  local rc=$?
  set +e
  if [ "$rc" -ne 0 ] && [ -d "$work/cluster" ]; then  # what the failed cluster logged
    mkdir -p "$OUT/failed"
    (cd "$work/cluster" && find . -name '*.log' -exec cp --parents {} "$OUT/failed" \;)
  fi
  if [ -n "$ENGINE" ]; then stop_engine; fi
  if [ -f "$work/cluster/harness.json" ]; then
    timeout 120 scripts/cluster down "$work/cluster" > /dev/null 2>&1
  fi
  jobs -p | xargs -r kill 2> /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# shellcheck source=bench/load/shipped_engine.sh
source bench/load/shipped_engine.sh
# start_engine's command, with --insecure-dev appended (the same authentication as the nodes).
printf '#!/bin/sh\nexec "$@" --insecure-dev\n' > "$work/insecure"
chmod +x "$work/insecure"
export VERDICT_BIN="$BIN/verdict"

# CPU seconds (utime+stime) of: `self PID...` those processes; `tree PID...` those, what they
# reaped (cutime+cstime) and every process under them, the same way.
cpu() {
  /usr/bin/python3 - "$@" << 'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
def stat(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    f = s[s.rindex(")") + 2:].split()
    return int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])
mode, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
total = 0
if mode == "self":
    total = sum((stat(p) or (0, 0, 0))[1] for p in pids)
else:
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s:
                table[int(name)] = s
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    todo = [p for p in pids if p in table]
    while todo:
        pid = todo.pop()
        total += table[pid][1] + table[pid][2]
        todo += children.get(pid, [])
print(f"{total / tick:.2f}")
PY
}

# verdict-load against PORT: ARGS... (the input file and window given by the caller).
load() {
  local port=$1
  shift
  timeout $((DURATION_S + WARMUP_S + DRAIN_S + 60)) taskset -c "$LOAD_CPU" "$BIN/verdict-load" \
    --target "http://127.0.0.1:$port" --connections "$CONNECTIONS" --rate "$OFFERED" \
    --drain "$DRAIN_S" --json "$@"
}

metrics() {  # PORT FILE: the journal's series
  curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | grep -E '^verdict_(journal|cluster)_' > "$2" || true
}

# One measured run on PORT with CPU read from the given process sets; writes $OUT/run_$1_$2.json.
# Arguments: REP MODE PORT SELF_PIDS TREE_PIDS PATRONI_PIDS ETCD_PIDS (space-separated lists,
# possibly empty).
measure() {
  local rep=$1 mode=$2 port=$3 self=$4 tree=$5 patroni=$6 etcd=$7
  OFFERED=$RATE
  if [ "$mode" = cluster ]; then OFFERED=$CLUSTER_RATE; fi
  local base="$OUT/run_${rep}_$mode"
  load "$port" --duration "$WARMUP_S" --input "$work/warm.jsonl" > "$base.warmup.json"
  metrics "$port" "$base.metrics_before.txt"
  local n0 p0 a0 e0 n1 p1 a1 e1
  # shellcheck disable=SC2086 # lists of pids
  {
    n0=$(cpu self $self); p0=$(cpu tree $tree); a0=$(cpu tree $patroni); e0=$(cpu self $etcd)
    load "$port" --duration "$DURATION_S" --input "$work/sim.jsonl" \
      --timeline "$work/timeline.csv" > "$base.load.json"
    n1=$(cpu self $self); p1=$(cpu tree $tree); a1=$(cpu tree $patroni); e1=$(cpu self $etcd)
  }
  metrics "$port" "$base.metrics_after.txt"
  /usr/bin/python3 - "$base" "$rep" "$mode" "$n0" "$n1" "$p0" "$p1" "$a0" "$a1" "$e0" "$e1" \
    "$work/timeline.csv" << 'PY'
import csv, json, sys
base, rep, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
n0, n1, p0, p1, a0, a1, e0, e1 = map(float, sys.argv[4:12])
report = json.load(open(base + ".load.json"))
overall = report["overall"]
ok = overall["status"].get("200", 0)  # every 200, the drain's included: CPU is per these
window = report["seconds"]
# The rate: 200 answers that came within the sending window (intended + latency), per second of
# it. The generator keeps sending what waits in it during the drain, so the drain's answers
# count for CPU, not for the rate.
in_window = 0
with open(sys.argv[12]) as f:
    for row in csv.DictReader(f):
        if row["status"] == "200" and int(row["intended_us"]) + int(row["latency_us"]) <= window * 1e6:
            in_window += 1
def series(path):
    out = {}
    for line in open(path):
        name, _, value = line.rpartition(" ")
        out[name] = float(value)
    return out
before, after = series(base + ".metrics_before.txt"), series(base + ".metrics_after.txt")
d = lambda k: after.get(k, 0) - before.get(k, 0)
commits, records = d("verdict_journal_commits_total"), d("verdict_journal_records_total")
run = {
    "rep": rep, "mode": mode, "window_s": window, "ok_in_window": in_window, "sent": overall["sent"],
    "answered": overall["answered"], "status": overall["status"], "fallback": overall["fallback"],
    # Saturated: requests still waited in the generator when it stopped, so the server was never
    # idle for want of work during the window.
    "saturated": overall["sent"] > overall["answered"],
    "decisions_per_s": in_window / window,
    "cpu_s": {"node": n1 - n0, "postgres": p1 - p0, "patroni": a1 - a0, "etcd": e1 - e0},
    "journal": {"commits": commits, "records": records,
                "mean_group": records / commits if commits else None,
                "mean_commit_ms": 1e3 * d("verdict_journal_commit_seconds_sum") / commits
                if commits else None},
}
run["cpu_us_per_decision"] = {k: 1e6 * v / ok if ok else None for k, v in run["cpu_s"].items()}
json.dump(run, open(base + ".json", "w"), indent=1)
c = run["cpu_us_per_decision"]
print(f"rep {rep} {mode:8s}: {run['decisions_per_s']:7.0f} decisions/s (200: {ok}, status "
      f"{overall['status']}, fallback {overall['fallback']}, saturated {run['saturated']}); "
      f"CPU µs/decision node {c['node']:.0f}, postgres {c['postgres']:.0f}, patroni "
      f"{c['patroni']:.0f}, etcd {c['etcd']:.0f}; group {run['journal']['mean_group'] or 0:.1f}, "
      f"commit {run['journal']['mean_commit_ms'] or 0:.2f} ms", file=sys.stderr)
PY
}

run_embedded() {
  ENGINE_WRAP="$work/insecure" start_engine
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PORT/readyz" > /dev/null && break; sleep 0.1; done
  # The nodes' configuration: the same file with the model's and policy's paths made absolute
  # (a node runs in its own folder under the cluster's).
  sed -E "s#^(path|kek_file|cert_file|key_file|client_ca_file) = \"([^/\"][^\"]*)\"#\1 = \"$ROOT/\2\"#" \
    "$work/verdict.toml" > "$work/node.toml"
  measure "$1" embedded "$PORT" "$ENGINE" "" "" ""
  stop_engine
  ENGINE=
}

run_cluster() {
  timeout 300 scripts/cluster up "$work/cluster" --nodes 1 --config "$work/node.toml" \
    --node-cpus "$ENGINE_CPU" > /dev/null
  local fields
  fields=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1] + "/cluster.json"))
pms = []
for m in d["postgres"]:
    with open(sys.argv[1] + "/" + m["name"] + "/data/postmaster.pid") as f:
        pms.append(f.readline().strip())
print(d["nodes"][0]["url"].rsplit(":", 1)[1], d["nodes"][0]["pid"], ",".join(pms),
      ",".join(str(m["pid"]) for m in d["postgres"]), d["etcd"][0]["pid"])' "$work/cluster")
  local port node postmasters patroni etcd
  read -r port node postmasters patroni etcd <<< "$fields"
  local ready=
  for _ in $(seq 300); do
    if curl -s --max-time 2 "http://127.0.0.1:$port/readyz" | grep -q '"ready":true,"role":"owner"'; then
      ready=1
      break
    fi
    sleep 0.1
  done
  if [ -z "$ready" ]; then
    echo "the node did not become the journal's owner:" >&2
    tail -5 "$work/cluster/nodes/node0/verdict.log" >&2
    exit 1
  fi
  # The members' pids in cluster.json are Patroni's; PostgreSQL is counted from its postmasters
  # (Patroni starts them detached: their parent is init, not Patroni).
  measure "$1" cluster "$port" "$node" "${postmasters//,/ }" "${patroni//,/ }" "$etcd"
  cp "$work/cluster/nodes/node0/verdict.log" "$OUT/run_$1_cluster.node.log"
  timeout 120 scripts/cluster down "$work/cluster" > /dev/null
  # `up` in a used folder would start PostgreSQL on the old data directories.
  rm -rf "$work/cluster"
}

echo "simulated payments ..." >&2
make_sim_input
sed 's/"transaction_id":"/"transaction_id":"warm-/' "$work/sim.jsonl" > "$work/warm.jsonl"
sync "$work/warm.jsonl"
rm -f "$OUT"/run_*.json
for rep in $(seq "$REPEATS"); do
  if [ $((rep % 2)) -eq 1 ] || [ ! -f "$work/node.toml" ]; then
    run_embedded "$rep"
    run_cluster "$rep"
  else
    run_cluster "$rep"
    run_embedded "$rep"
  fi
done
/usr/bin/python3 bench/cluster/node_vs_embedded_summary.py "$OUT"
