#!/usr/bin/env bash
# The cluster journal's storage beside the embedded journal's, in one run: scripts/cluster brings
# up etcd and a Patroni-managed PostgreSQL primary with a synchronous standby on loopback (no
# verdict nodes), pg_append_bench appends fenced groups to the primary, then journal_bench's
# single-thread serial commit and its group commit run on the same machine, and the cluster is
# stopped. Usage: bench/cluster/pg_append.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
dir=$(mktemp -d /tmp/verdict-pgbench-XXXXXX)
trap 'scripts/cluster down "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
scripts/cluster up "$dir" --nodes 0 >/dev/null
url=$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1]));
print(next(m['url'] for m in d['postgres'] if m['role'] == 'primary'))" "$dir/cluster.json")
echo "== PostgreSQL primary with a synchronous standby: $url"
VERDICT_PG_URL="$url" "$build/bench/pg_append_bench"
echo "== embedded journal, same machine"
"$build/bench/journal_bench" \
  --benchmark_filter='BM_SerialCommit/commit_log:0|BM_GroupCommit/threads:4/sync:1/n:200000/window:0'
