"""Traces through the real binary (docs/tracing.md): a caller's W3C traceparent is answered,
journaled and joined: the engine's spans go over OTLP/HTTP (JSON) to a collector, here a
receiver in this test on loopback, with the decision span's parent the caller's span."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import (BINARY, VerdictProcess, shipped_config_text,  # noqa: E402
                             transaction)

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


class OtlpReceiver:
    """Collects the spans of every OTLP/HTTP JSON export request sent to it."""

    def __init__(self):
        self.spans = []
        self.requests = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                ok = (self.path == "/v1/traces" and
                      self.headers["Content-Type"] == "application/json")
                if ok:
                    request = json.loads(body)
                    with receiver.lock:
                        receiver.requests += 1
                        for resource in request["resourceSpans"]:
                            for scope in resource["scopeSpans"]:
                                receiver.spans.extend(scope["spans"])
                self.send_response(200 if ok else 400)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def endpoint(self):
        return "http://127.0.0.1:%d/v1/traces" % self.port

    def trace(self, trace_id, count, timeout_s=20):
        """The spans of `trace_id` once there are `count` of them (or what there is at the
        timeout)."""
        deadline = time.monotonic() + timeout_s
        while True:
            with self.lock:
                spans = [s for s in self.spans if s["traceId"] == trace_id]
            if len(spans) >= count or time.monotonic() > deadline:
                return spans
            time.sleep(0.05)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def config(endpoint, sample_ratio):
    return shipped_config_text() + (
        '\n[tracing]\notlp_endpoint = "%s"\nsample_ratio = %s\n' % (endpoint, sample_ratio))


class TracingTest(unittest.TestCase):
    def setUp(self):
        self.receiver = OtlpReceiver()
        self.data = tempfile.mkdtemp(prefix="verdict-it-tracing-")

    def tearDown(self):
        self.receiver.close()
        shutil.rmtree(self.data, ignore_errors=True)

    def test_a_callers_trace_is_answered_journaled_and_joined_by_the_exported_spans(self):
        traceparent = "00-%s-%s-01" % (CALLER_TRACE, CALLER_SPAN)
        headers = {"traceparent": traceparent, "tracestate": "congo=t61rcWkgMzE"}
        with VerdictProcess(config=config(self.receiver.endpoint(), 0),
                            data_dir=self.data) as server:
            status, hdrs, body = server.request("POST", "/v1/decisions",
                                                transaction("traced-1"), headers)
            self.assertEqual(status, 200, body)
            answer = json.loads(body)
            self.assertEqual(answer["trace_id"], CALLER_TRACE)
            # The answer names the engine's decision span in the caller's trace.
            version, trace_id, span_id, flags = hdrs["traceparent"].split("-")
            self.assertEqual((version, trace_id, flags), ("00", CALLER_TRACE, "01"))
            self.assertNotEqual(span_id, CALLER_SPAN)

            status, stored = server.json("GET", "/v1/decisions/" + answer["decision_id"])
            self.assertEqual(status, 200, stored)
            self.assertEqual(stored["trace_id"], CALLER_TRACE)

            spans = self.receiver.trace(CALLER_TRACE, 6)
            self.assertEqual(len(spans), 6, spans)
            roots = [s for s in spans if s["name"] == "decision"]
            self.assertEqual(len(roots), 1, spans)
            root = roots[0]
            self.assertEqual(root["parentSpanId"], CALLER_SPAN)
            self.assertEqual(root["spanId"], span_id)
            self.assertEqual(root["kind"], 2)
            self.assertEqual(root["traceState"], "congo=t61rcWkgMzE")
            attributes = {a["key"]: a["value"]["stringValue"] for a in root["attributes"]}
            self.assertEqual(attributes["verdict.decision_id"], answer["decision_id"])
            self.assertEqual(attributes["verdict.transaction_id"], "traced-1")
            stages = sorted(s["name"] for s in spans if s is not root)
            self.assertEqual(stages, ["features", "journal", "model", "policy", "queue"])
            for span in spans:
                self.assertEqual(span["traceId"], CALLER_TRACE)
                start, end = int(span["startTimeUnixNano"]), int(span["endTimeUnixNano"])
                self.assertLessEqual(start, end, span)
                if span is not root:
                    self.assertEqual(span["parentSpanId"], root["spanId"], span)
                    self.assertGreaterEqual(start, int(root["startTimeUnixNano"]), span)
                    self.assertLessEqual(end, int(root["endTimeUnixNano"]), span)

            # Not sampled by the caller: answered with its trace id, no spans. A sampled
            # decision after it shows the exporter has sent what came before.
            unsampled = "1" * 32
            status, d = server.json("POST", "/v1/decisions", transaction("traced-2"),
                                    {"traceparent": "00-%s-%s-00" % (unsampled, CALLER_SPAN)})
            self.assertEqual(status, 200, d)
            self.assertEqual(d["trace_id"], unsampled)
            later = "2" * 32
            status, d = server.json("POST", "/v1/decisions", transaction("traced-3"),
                                    {"traceparent": "00-%s-%s-01" % (later, CALLER_SPAN)})
            self.assertEqual(status, 200, d)
            self.assertEqual(len(self.receiver.trace(later, 6)), 6)
            self.assertEqual(self.receiver.trace(unsampled, 1, timeout_s=0), [])

            # Invalid headers are ignored, never an error; without a sampled trace there is no
            # trace id (sample_ratio 0 here).
            for i, bad in enumerate(("00-%s-%s-01" % ("0" * 32, CALLER_SPAN),
                                     "00-%s-%s-01" % (CALLER_TRACE.upper(), CALLER_SPAN),
                                     "ff-%s-%s-01" % (CALLER_TRACE, CALLER_SPAN), "garbage", "",
                                     "00-%s-%s-01-extra" % (CALLER_TRACE, CALLER_SPAN))):
                status, hdrs, body = server.request("POST", "/v1/decisions",
                                                    transaction("bad-%d" % i),
                                                    {"traceparent": bad})
                self.assertEqual(status, 200, (bad, body))
                self.assertNotIn("trace_id", json.loads(body), bad)
                self.assertNotIn("traceparent", hdrs, bad)

            # A batch: every item's decision joins the caller's trace.
            status, batch = server.json(
                "POST", "/v1/decisions:batch",
                {"transactions": [transaction("batch-1"), transaction("batch-2")]},
                {"traceparent": "00-%s-%s-01" % ("3" * 32, CALLER_SPAN)})
            self.assertEqual(status, 200, batch)
            self.assertEqual([item["trace_id"] for item in batch["decisions"]], ["3" * 32] * 2)
            self.assertEqual(len(self.receiver.trace("3" * 32, 12)), 12)

            # The exporter counts a batch once the collector has answered: 24 spans so far.
            deadline = time.monotonic() + 20
            while True:
                status, _, metrics_text = server.request("GET", "/metrics")
                self.assertEqual(status, 200)
                exported = [line for line in metrics_text.decode().splitlines()
                            if line.startswith("verdict_tracing_spans_exported_total")]
                self.assertEqual(len(exported), 1, exported)
                if float(exported[0].split()[-1]) >= 24 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            self.assertEqual(float(exported[0].split()[-1]), 24)

        # The journal keeps the trace id: `verdict audit show` reads it from the record.
        out = subprocess.run([BINARY, "audit", "show", "--json", "--data-dir", self.data,
                              "traced-1"], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["decision"]["trace_id"], CALLER_TRACE)
        out = subprocess.run([BINARY, "audit", "show", "--data-dir", self.data, "traced-1"],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("trace         " + CALLER_TRACE, out.stdout.splitlines())

    def test_sample_ratio_one_traces_decisions_without_a_caller(self):
        with VerdictProcess(config=config(self.receiver.endpoint(), 1)) as server:
            status, hdrs, body = server.request("POST", "/v1/decisions", transaction("own-1"))
            self.assertEqual(status, 200, body)
            trace_id = json.loads(body)["trace_id"]
            self.assertRegex(trace_id, "^[0-9a-f]{32}$")
            self.assertTrue(hdrs["traceparent"].startswith("00-%s-" % trace_id))
            spans = self.receiver.trace(trace_id, 6)
            self.assertEqual(len(spans), 6, spans)
            root = [s for s in spans if s["name"] == "decision"][0]
            self.assertNotIn("parentSpanId", root)

    def test_a_malformed_endpoint_stops_the_start(self):
        with self.assertRaises(RuntimeError) as raised:
            VerdictProcess(config=config("https://127.0.0.1:4318/v1/traces", 0))
        self.assertIn("tracing.otlp_endpoint", str(raised.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
