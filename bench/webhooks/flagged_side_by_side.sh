#!/usr/bin/env bash
# Decisions/s on flagged-heavy traffic (every transaction goes to review: two webhook events
# each), without and with a webhook endpoint receiving decision.flagged and case.opened from a
# local receiver that answers 200 at once; the pairs alternate so that a busy machine's drift
# falls on both. The default configuration (no --config), --insecure-dev, a fresh data directory
# per run. Prints one line per run and, for the webhook runs, how far the deliveries got.
# Usage (from the repository root): bench/webhooks/flagged_side_by_side.sh [RATE] [SECONDS] [PAIRS]
# Environment: BIN (build/release/bin), CONNECTIONS (16).
set -euo pipefail
RATE=${1:-3000}
SECS=${2:-15}
PAIRS=${3:-2}
BIN=${BIN:-build/release/bin}
CONNECTIONS=${CONNECTIONS:-16}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# One transaction a line, each with its own id, amounts the default rules send to review.
/usr/bin/python3 - "$work/flagged.jsonl" "$((RATE * SECS * 6 / 5))" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        f.write(json.dumps({
            "transaction_id": "flag-%d" % i, "timestamp": "2026-12-02T10:15:30.123Z",
            "amount": "%d.00" % (20000 + (i % 50) * 100), "currency": "USD",
            "sender": {"account": "ACC-S%d" % (i % 5000), "bank": "BANKUS33", "country": "US",
                       "name": "John Smith"},
            "receiver": {"account": "ACC-R%d" % (i % 3000), "bank": "BANKGB22", "country": "GB",
                         "name": "Acme Ltd"},
            "channel": "wire", "type": "transfer", "remittance": "invoice",
            "priority": "standard", "deadline_ms": 200}) + "\n")
PY

# The receiver: 200 to every POST, kept alive.
/usr/bin/python3 - "$work/receiver_port" <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
while [ ! -s "$work/receiver_port" ]; do sleep 0.1; done
printf '[[webhooks]]\nurl = "http://127.0.0.1:%s/hooks"\nevents = ["decision.flagged", "case.opened"]\nsecret = "bench"\n' \
  "$(cat "$work/receiver_port")" > "$work/webhooks.toml"

run() {  # $1: none | webhook
  rm -rf "$work/var" "$work/port"
  local config=()
  [ "$1" = webhook ] && config=(--config "$work/webhooks.toml")
  "$BIN/verdict" serve --insecure-dev --no-console --listen 127.0.0.1:0 --port-file "$work/port" \
    --data-dir "$work/var" "${config[@]}" > "$work/engine.log" 2>&1 &
  local engine=$!
  while [ ! -s "$work/port" ]; do sleep 0.1; done
  local port
  port=$(cat "$work/port")
  "$BIN/verdict-load" --target "http://127.0.0.1:$port" --input "$work/flagged.jsonl" \
    --rate "$RATE" --duration "$SECS" --connections "$CONNECTIONS" --json > "$work/load.json"
  local hooks=""
  if [ "$1" = webhook ]; then
    hooks=$(curl -s "http://127.0.0.1:$port/v1/webhooks" | /usr/bin/python3 -c \
      'import json,sys;e=json.load(sys.stdin)["endpoints"][0];print("delivered %d, cursor %d of %d" % (e["delivered_total"], e["delivered_through_seq"], e["journal_seq"]))')
  fi
  kill -TERM "$engine"
  wait "$engine" || true
  /usr/bin/python3 -c 'import json,sys
o=json.load(open(sys.argv[1]))["overall"]
print("%-8s answered/s %8.0f  p50 %6d us  p99 %7d us  %s" % (sys.argv[2], o["throughput_per_s"], o["p50_us"], o["p99_us"], sys.argv[3]))' \
    "$work/load.json" "$1" "$hooks"
}

for _ in $(seq "$PAIRS"); do
  run none
  run webhook
done
