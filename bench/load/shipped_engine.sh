# Sourced by bench/load/knee.sh and one_run.sh: the shipped configuration (demo model and policy,
# durable journal) with one worker and one I/O thread, an API key, and simulated payments.
# Needs BIN (the build's bin folder), work (a scratch folder) and ENGINE_CPU; defines KEY and
# PORT, and ENGINE (the engine's pid).

# Simulated payments (the population the demo model was trained on), one JSON object a line, in
# $work/sim.jsonl.
# The requests files (sim.jsonl; realtime.jsonl, the same with transaction ids of their own,
# which the same id with another body would make a 409 conflict) are synced before any engine
# starts: left dirty, their 70 MB each would be written back by the kernel 30 s later
# (vm.dirty_expire_centisecs), in the middle of whatever run is then measured
# (docs/perf-log/2026-12-05-load-session-15.md).
make_sim_input() {
  "$BIN/verdict" sim --accounts 20000 --days 40 --out "$work/sim.csv" > /dev/null 2>&1
  /usr/bin/python3 bench/load/sim_to_requests.py "$work/sim.csv" "$work/sim.jsonl"
  rm -f "$work/sim.csv"
  sed 's/"transaction_id":"/"transaction_id":"rt-/' "$work/sim.jsonl" > "$work/realtime.jsonl"
  sync "$work/sim.jsonl" "$work/realtime.jsonl"
}

# Prints a fresh API key of tenant "bench" with role $1, made in $work/var.
bench_key() {
  "$BIN/verdict" keys create --data-dir "$work/var" --tenant bench --role "$1" --json |
    /usr/bin/python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])'
}

# Starts a fresh engine. Environment: FIFO=1 (the plain FIFO scheduler), DURABILITY (sync |
# async), JOURNAL_BACKLOG ([sched] journal_backlog), INLINE_WHEN_IDLE ([sched] inline_when_idle,
# true | false), COMMIT_LOG_MB ([journal] commit_log_mb), GROUP_DELAY_US ([journal]
# group_delay_us), GROUP_DELAY_ABOVE ([journal] group_delay_above_per_s), COMMIT_ON_IO_THREAD
# ([journal] commit_on_io_thread), HEAP_PREFAULT_MB ([engine] heap_prefault_mb), BUSY_POLL_US
# ([server] busy_poll_us), IO_THREAD_NICE ([server] io_thread_nice), PAUSE_AFTER_BULK_REFUSAL
# ([server] pause_after_bulk_refusal, true | false), BULK_DEADLINE_MS ([sched] bulk_deadline_ms),
# BACKGROUND_IDLE_MS ([journal] background_idle_ms), EXTRA_TOML (appended to the configuration),
# REALTIME_LISTENER=1 (a realtime listener too, its port in REALTIME_PORT),
# METRICS=1 (an admin key in ADMIN_KEY, to read /metrics). LOAD_BUSY_POLL=1: the generators
# (here, knee.sh, one_run.sh) run with --busy-poll; MAX_CONNECTIONS: realtime_load's
# --max-connections.
start_engine() {
  sed -e 's/^workers = 0/workers = 1/' -e 's/^io_threads = .*/io_threads = 1/' \
    -e "s/^durability = .*/durability = \"${DURABILITY:-sync}\"/" \
    -e "s/^fifo = false/fifo = $([ -n "${FIFO:-}" ] && echo true || echo false)/" \
    -e "s/^journal_backlog = .*/journal_backlog = ${JOURNAL_BACKLOG:-256}/" \
    -e "s/^inline_when_idle = .*/inline_when_idle = ${INLINE_WHEN_IDLE:-true}/" \
    -e "s/^group_delay_us = .*/group_delay_us = ${GROUP_DELAY_US:-1000}/" \
    -e "s/^group_delay_above_per_s = .*/group_delay_above_per_s = ${GROUP_DELAY_ABOVE:-5000}/" \
    -e "s/^commit_on_io_thread = .*/commit_on_io_thread = ${COMMIT_ON_IO_THREAD:-true}/" \
    -e "s/^commit_log_mb = .*/commit_log_mb = ${COMMIT_LOG_MB:-64}/" \
    -e "s/^heap_prefault_mb = .*/heap_prefault_mb = ${HEAP_PREFAULT_MB:-256}/" \
    -e "s/^busy_poll_us = .*/busy_poll_us = ${BUSY_POLL_US:-0}/" \
    -e "s/^io_thread_nice = .*/io_thread_nice = ${IO_THREAD_NICE:-0}/" \
    -e "s/^pause_after_bulk_refusal = .*/pause_after_bulk_refusal = ${PAUSE_AFTER_BULK_REFUSAL:-false}/" \
    -e "s/^bulk_deadline_ms = .*/bulk_deadline_ms = ${BULK_DEADLINE_MS:-2000}/" \
    -e "s/^background_idle_ms = .*/background_idle_ms = ${BACKGROUND_IDLE_MS:-500}/" \
    -e "s#^\(path\|data_dir\|kek_file\) = \"\([^/\"][^\"]*\)\"#\1 = \"$PWD/config/\2\"#" \
    -e "/^\[drift\]/,/^\[/ s/^enabled = .*/enabled = false/" \
    config/verdict.toml > "$work/verdict.toml"
  # Drift watch off (the [drift] table's `enabled` above): the figures measure the decision path
  # alone, as they always have, and a freeze would send decisions down the cheaper fallback path.
  printf '\n%b\n' "${EXTRA_TOML:-}" >> "$work/verdict.toml"
  rm -rf "$work/var" "$work/port"
  KEY=$(bench_key scorer)
  if [ -n "${METRICS:-}" ]; then ADMIN_KEY=$(bench_key admin); fi
  local realtime=()
  if [ -n "${REALTIME_LISTENER:-}" ]; then
    realtime=(--realtime-listen 127.0.0.1:0 --realtime-port-file "$work/realtime_port")
  fi
  taskset -c "$ENGINE_CPU" ${ENGINE_WRAP:-} "$BIN/verdict" serve --config "$work/verdict.toml" \
    --listen 127.0.0.1:0 --data-dir "$work/var" --port-file "$work/port" "${realtime[@]}" \
    > "$work/engine.log" 2>&1 &
  ENGINE=$!
  for _ in $(seq 100); do [ -f "$work/port" ] && break; sleep 0.1; done
  PORT=$(cat "$work/port")
  if [ -n "${REALTIME_LISTENER:-}" ]; then REALTIME_PORT=$(cat "$work/realtime_port"); fi
}

# Realtime requests to the realtime listener from a second verdict-load in the background (pid
# in REALTIME_LOAD), from realtime.jsonl (make_sim_input). Arguments: RATE SECONDS OUT_JSON.
realtime_load() {
  taskset -c "${LOAD_CPU:-0}" "$BIN/verdict-load" --target "http://127.0.0.1:$REALTIME_PORT" \
    --rate "$1" --duration "$2" --connections 8 --max-connections "${MAX_CONNECTIONS:-0}" \
    --mix realtime=1 ${LOAD_BUSY_POLL:+--busy-poll} \
    --input "$work/realtime.jsonl" --header "Authorization: Bearer $KEY" --json > "$3" &
  REALTIME_LOAD=$!
}

# ENGINE may be a wrapper (ENGINE_WRAP, e.g. strace), which leaves the engine running when killed.
stop_engine() {
  pkill -P "$ENGINE" 2>/dev/null || true
  kill "$ENGINE" 2>/dev/null || true
  wait "$ENGINE" 2>/dev/null || true
}
