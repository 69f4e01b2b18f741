#!/usr/bin/env python3
"""An OTLP/HTTP JSON trace receiver for measurements (docs/tracing.md, docs/PERFORMANCE.md):
accepts POST /v1/traces, counts requests and spans, answers 200 {}. Prints its port on the first
line of stdout, and the counts when stopped (SIGTERM or Ctrl-C).

Usage: bench/load/otlp_sink.py [PORT]   (0 or none: an ephemeral port on 127.0.0.1)"""
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {"requests": 0, "spans": 0}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            request = json.loads(body)
            counts["spans"] += sum(len(scope["spans"]) for resource in request["resourceSpans"]
                                   for scope in resource["scopeSpans"])
            counts["requests"] += 1
            status = 200
        except (ValueError, KeyError, TypeError):
            status = 400
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0),
                                 Handler)
    print(server.server_address[1], flush=True)

    def stop(*_):
        print(json.dumps(counts), flush=True)
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.serve_forever()


if __name__ == "__main__":
    main()
