"""The skeleton over real connections: decisions, every bad input of issue 2, HTTP
behaviour (keep-alive, pipelining, limits) and /metrics, against the built binary."""
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import (BINARY, VerdictProcess, shipped_config_text,  # noqa: E402
                             transaction)


def demo_config():
    return shipped_config_text()


def fixed_rules_config():
    """The shipped configuration with its model and policy taken out: the fixed [rules] decide,
    which is what ServerTest asserts."""
    text = demo_config()
    text = re.sub(r'(?m)^path = ".*/config/policy/demo.policy"$', 'path = ""', text)
    text = re.sub(r'(?m)^path = ".*/models/demo/model.json"$', 'path = ""', text)
    assert 'demo.policy"' not in text and 'model.json"' not in text, "config layout changed"
    return text


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = VerdictProcess(config=fixed_rules_config())

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def assertServing(self):
        self.assertTrue(self.server.alive(), self.server.read_log())
        status, body = self.server.json("GET", "/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(body, {"status": "ok"})

    def test_health_and_readiness(self):
        self.assertServing()
        status, body = self.server.json("GET", "/readyz")
        self.assertEqual(status, 200)
        self.assertTrue(body["ready"])

    def test_decision_shape(self):
        status, d = self.server.json("POST", "/v1/decisions", transaction("shape-1"))
        self.assertEqual(status, 200, d)
        self.assertRegex(d["decision_id"],
                         r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertEqual(d["transaction_id"], "shape-1")
        self.assertIn(d["outcome"], ("allow", "review", "block"))
        self.assertIn(d["path"], ("model", "fallback"))
        for key in ("score", "reasons", "contributions", "model", "policy", "timings_us"):
            self.assertIn(key, d)
        for stage in ("queue", "features", "model", "policy", "journal", "total"):
            self.assertGreaterEqual(d["timings_us"][stage], 0)
        self.assertEqual(len(d["policy"]["sha256"]), 64)

    def test_rules_review_large_amounts_and_block_listed_accounts(self):
        status, d = self.server.json("POST", "/v1/decisions",
                                     transaction("big-1", amount="25000.00"))
        self.assertEqual(status, 200)
        self.assertEqual(d["outcome"], "review")
        self.assertIn("AMOUNT_THRESHOLD", [r["code"] for r in d["reasons"]])
        status, d = self.server.json(
            "POST", "/v1/decisions",
            transaction("blocked-1", receiver={"account": "ACC-BLOCKED-1"}))
        self.assertEqual(status, 200)
        self.assertEqual(d["outcome"], "block")
        self.assertIn("BLOCKED_ACCOUNT", [r["code"] for r in d["reasons"]])
        status, d = self.server.json("POST", "/v1/decisions",
                                     transaction("small-1", amount="12.00",
                                                 sender={"account": "ACC-QUIET"}))
        self.assertEqual(d["outcome"], "allow")
        # No model is configured here: rules alone decided, and the decision says so.
        self.assertEqual(d["path"], "fallback")
        self.assertEqual([r["code"] for r in d["reasons"]], ["FALLBACK"])

    def test_velocity_uses_the_sliding_window(self):
        # The demo configuration reviews a sender's 21st transfer within one hour.
        outcomes = []
        for i in range(22):
            ts = "2026-12-02T09:%02d:00Z" % (i * 2)
            status, d = self.server.json(
                "POST", "/v1/decisions",
                transaction("vel-%d" % i, timestamp=ts, amount="10.00",
                            sender={"account": "ACC-VELOCITY"}))
            self.assertEqual(status, 200)
            outcomes.append(d["outcome"])
        self.assertEqual(outcomes[:20], ["allow"] * 20)
        self.assertEqual(outcomes[20], "review")
        # Two hours later the window has emptied again.
        status, d = self.server.json(
            "POST", "/v1/decisions",
            transaction("vel-late", timestamp="2026-12-02T12:00:00Z", amount="10.00",
                        sender={"account": "ACC-VELOCITY"}))
        self.assertEqual(d["outcome"], "allow")

    def test_every_bad_input_gets_a_4xx_naming_the_field(self):
        cases = [
            ("empty body", b"", 400, None),
            ("invalid json", b"{\"transaction_id\":", 400, None),
            ("array", b"[1,2,3]", 400, None),
            ("missing transaction_id", transaction(transaction_id=None), 400, "transaction_id"),
            ("amount -5", transaction(amount=-5), 400, "amount"),
            ("amount 0", transaction(amount=0), 400, "amount"),
            ("amount abc", transaction(amount="abc"), 400, "amount"),
            ("amount 1e400", transaction(amount="1e400"), 400, "amount"),
            ("amount 10.001", transaction(amount="10.001"), 400, "amount"),
            ("currency XXXX", transaction(currency="XXXX"), 400, "currency"),
            ("bad timestamp", transaction(timestamp="02/12/2026 10:15"), 400, "timestamp"),
            ("sender missing", transaction(sender=None), 400, "sender"),
            ("unknown field", dict(transaction(), colour="red"), 400, "colour"),
        ]
        for name, body, status, field in cases:
            with self.subTest(name):
                got, hdrs, data = self.server.request("POST", "/v1/decisions", body)
                self.assertEqual(got, status, data)
                err = json.loads(data)["error"]
                self.assertEqual(err["code"], "invalid_argument")
                self.assertTrue(err["message"])
                if field:
                    self.assertEqual(err.get("field"), field, err)
        self.assertServing()

    def test_ten_megabyte_body_is_413(self):
        body = b"{\"transaction_id\": \"" + b"x" * (10 << 20) + b"\"}"
        status, _, data = self.server.request("POST", "/v1/decisions", body)
        self.assertEqual(status, 413)
        self.assertEqual(json.loads(data)["error"]["code"], "payload_too_large")
        self.assertServing()

    def test_unknown_route_wrong_method_and_media_type(self):
        status, body = self.server.json("GET", "/v1/nothing-here")
        self.assertEqual(status, 404)
        self.assertEqual(body["error"]["code"], "not_found")
        status, hdrs, _ = self.server.request("GET", "/v1/decisions")
        self.assertEqual(status, 405)
        self.assertEqual(hdrs["allow"], "POST")
        status, hdrs, data = self.server.request(
            "POST", "/v1/decisions", json.dumps(transaction("ct-1")),
            headers={"Content-Type": "text/csv"})
        self.assertEqual(status, 415, data)
        self.assertServing()

    def test_batch_has_per_item_results_and_a_size_limit(self):
        items = [transaction("b-0"), transaction("b-1", amount="abc"),
                 transaction("b-2", amount="20000.00")]
        status, body = self.server.json("POST", "/v1/decisions:batch", {"transactions": items})
        self.assertEqual(status, 200, body)
        results = body["decisions"]
        self.assertEqual(len(results), 3)
        self.assertEqual(results[0]["transaction_id"], "b-0")
        self.assertEqual(results[1]["error"]["field"], "transactions[1].amount")
        self.assertEqual(results[2]["outcome"], "review")

        too_many = {"transactions": [transaction("m-%d" % i) for i in range(1001)]}
        status, body = self.server.json("POST", "/v1/decisions:batch", too_many)
        self.assertEqual(status, 400)
        self.assertEqual(body["error"]["field"], "transactions")
        self.assertIn("1000", body["error"]["message"])
        self.assertServing()

    def test_keep_alive_and_pipelining(self):
        conn = self.server.connection()
        for i in range(5):
            status, d = self.server.json("POST", "/v1/decisions", transaction("ka-%d" % i),
                                         conn=conn)
            self.assertEqual(status, 200)
            self.assertEqual(d["transaction_id"], "ka-%d" % i)
        conn.close()

        # Three requests written at once; answers come back in order on the same connection.
        raw = b""
        for i in range(3):
            body = json.dumps(transaction("pipe-%d" % i)).encode()
            raw += (b"POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=30) as s:
            s.sendall(raw)
            data = b""
            while data.count(b"HTTP/1.1 200") < 3 or not data.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        ids = re.findall(rb'"transaction_id":"(pipe-\d)"', data)
        self.assertEqual(ids, [b"pipe-0", b"pipe-1", b"pipe-2"])

    def test_requests_arriving_in_pieces(self):
        # Split in the header, in the body, and before a chunked body's last CRLF: the server
        # parses what came and reads on. (Beast's parser must then see more bytes, never the
        # refused ones alone; the empty chunked bodies tripped its assertions in the sanitizer
        # build.)
        head = b"POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"

        def plain(i):
            body = json.dumps(transaction("pieces-%d" % i)).encode()
            return head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body

        def chunked(i):
            body = json.dumps(transaction("pieces-%d" % i)).encode()
            return (head + b"Transfer-Encoding: chunked\r\n\r\n", b"%x\r\n" % len(body) + body +
                    b"\r\n")

        ok = b"HTTP/1.1 200 OK\r\n"
        cases = [
            (ok, [plain(0)[:20], plain(0)[20:]]),
            (ok, [plain(1)[:-10], plain(1)[-10:]]),
            (ok, [b"".join(chunked(2)) + b"0\r\n", b"\r\n"]),
            (ok, [chunked(3)[0], chunked(3)[1], b"0\r\n", b"\r\n"]),
            # An empty chunked body: a 400 for the missing transaction, after the whole request.
            (b"HTTP/1.1 400 ", [chunked(4)[0] + b"0\r\n", b"\r\n"]),
            # ... and its last CRLF a byte at a time (Beast before 1.86 asserted on this).
            (b"HTTP/1.1 400 ", [chunked(5)[0], b"0\r\n", b"\r", b"\n"]),
        ]
        for expected, pieces in cases:
            with socket.create_connection(("127.0.0.1", self.server.port), timeout=30) as s:
                for piece in pieces:
                    s.sendall(piece)
                    time.sleep(0.05)
                data = b""
                while not data.rstrip().endswith(b"}"):
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            self.assertTrue(data.startswith(expected), (pieces, data[:200]))
        self.assertServing()

    def test_oversized_headers_are_refused(self):
        status, _, _ = self.server.request("GET", "/healthz", headers={"X-Big": "y" * 40000})
        self.assertEqual(status, 431)
        self.assertServing()

    def test_metrics(self):
        self.server.json("POST", "/v1/decisions", transaction("m-1"))
        self.server.request("POST", "/v1/decisions", b"not json")
        status, hdrs, data = self.server.request("GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertTrue(hdrs["content-type"].startswith("text/plain"))
        text = data.decode()
        self.assertRegex(text, r'verdict_api_requests_total\{route="/v1/decisions",status="200"\} \d+')
        self.assertRegex(text, r'verdict_api_requests_total\{route="/v1/decisions",status="400"\} \d+')
        self.assertRegex(text, r'verdict_engine_decisions_total\{outcome="allow",path="fallback",tenant="dev"\} [1-9]')
        self.assertRegex(text, r'verdict_engine_stage_seconds_bucket\{stage="features",le="\+Inf"\} [1-9]')
        self.assertRegex(text, r"verdict_api_open_connections \d+")


class LargeAnswerTest(unittest.TestCase):
    """An answer larger than the socket can take at once (a 6 MB console file; loopback's send
    buffer stops at 4 MB) to a client that reads nothing at first: the server's send takes
    part of it and the rest goes out as the client reads. It must arrive whole."""

    def test_large_answer_to_a_reader_that_waits_arrives_whole(self):
        with tempfile.TemporaryDirectory(prefix="verdict-large-") as tmp:
            console = os.path.join(tmp, "console")
            os.makedirs(os.path.join(console, "assets"))
            with open(os.path.join(console, "index.html"), "w") as f:
                f.write("<!doctype html><title>console</title>")
            content = random.Random(7).randbytes(6 << 20)
            with open(os.path.join(console, "assets", "big-1.js"), "wb") as f:
                f.write(content)
            with VerdictProcess(extra_args=["--console-dir", console]) as server:
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    # A small window (set before connecting, which fixes its scale).
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
                    s.settimeout(30)
                    s.connect(("127.0.0.1", server.port))
                    s.sendall(b"GET /console/assets/big-1.js HTTP/1.1\r\nHost: x\r\n\r\n")
                    time.sleep(0.5)  # the server has sent what the socket takes, and waits
                    data = b""
                    while b"\r\n\r\n" not in data:
                        data += s.recv(65536)
                    head, _, body = data.partition(b"\r\n\r\n")
                    self.assertTrue(head.startswith(b"HTTP/1.1 200"), head[:100])
                    while len(body) < len(content):
                        chunk = s.recv(1 << 20)
                        self.assertTrue(chunk, "cut after %d bytes" % len(body))
                        body += chunk
                self.assertEqual(body, content)
                self.assertEqual(server.request("GET", "/healthz")[0], 200)


class StartupTest(unittest.TestCase):
    def test_bad_config_names_the_key(self):
        with self.assertRaises(RuntimeError) as ctx:
            VerdictProcess(config="[server]\nio_thread = 2\n")
        self.assertIn("server.io_thread", str(ctx.exception))
        with self.assertRaises(RuntimeError) as ctx:
            VerdictProcess(config="[rules]\nreview_amounts = [\"100 XYZ\"]\n")
        self.assertIn("rules.review_amounts", str(ctx.exception))

    def test_version_and_help(self):
        out = subprocess.run([BINARY, "version", "--json"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertIn("version", json.loads(out.stdout))
        out = subprocess.run([BINARY, "--help"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0)
        self.assertIn("serve", out.stdout)


class DemoConfigTest(unittest.TestCase):
    """config/verdict.toml as `make run` uses it: the demo model and the demo policy."""

    @classmethod
    def setUpClass(cls):
        cls.server = VerdictProcess(config=demo_config())

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def test_model_path_decisions_with_policy_reasons(self):
        status, d = self.server.json("POST", "/v1/decisions", transaction(
            "demo-1", amount="12500.00", receiver={"account": "ACC-DEMO-2", "country": "IR"}))
        self.assertEqual(status, 200, d)
        self.assertEqual(d["path"], "model")
        self.assertEqual(d["model"]["name"], "demo")
        self.assertEqual(d["policy"]["version"], "1")
        codes = {r["code"] for r in d["reasons"]}
        self.assertIn("HIGH_RISK_CORRIDOR", codes)
        self.assertIn("LARGE_AMOUNT", codes)
        self.assertNotEqual(d["outcome"], "allow")
        self.assertTrue(0.0 <= d["score"] <= 1.0)
        self.assertTrue(d["contributions"], d)


if __name__ == "__main__":
    unittest.main(verbosity=2)
