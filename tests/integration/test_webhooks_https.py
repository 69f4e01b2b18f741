"""Webhooks over https (docs/webhooks.md): a local HTTPS receiver whose certificate a CA made in
this test signed (openssl, for 127.0.0.1). The endpoint naming that CA as its `ca_file` gets
every flagged decision, signed; an endpoint on the same receiver that trusts only the system's
store refuses the certificate and delivers nothing, its failures visible in its delivery
state. Only 127.0.0.1; every wait has a deadline."""
import hashlib
import hmac
import http.server
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
import time
import unittest

import verdict_process as vp

SECRET = "whsec-https-test"


def make_ca_and_server_cert(tmp):
    """A CA, and a certificate for 127.0.0.1 it signs; returns (ca.pem, server.pem, server.key)."""
    ca_key, ca_pem = os.path.join(tmp, "ca.key"), os.path.join(tmp, "ca.pem")
    key, csr, pem = (os.path.join(tmp, n) for n in ("server.key", "server.csr", "server.pem"))
    ext = os.path.join(tmp, "server.ext")
    with open(ext, "w") as f:
        f.write("subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\n"
                "keyUsage = digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n")

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca_pem,
            "-days", "2", "-subj", "/CN=verdict test CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
            "-subj", "/CN=127.0.0.1")
    openssl("x509", "-req", "-in", csr, "-CA", ca_pem, "-CAkey", ca_key, "-CAcreateserial",
            "-out", pem, "-days", "2", "-extfile", ext)
    return ca_pem, pem, key


class HttpsReceiver:
    def __init__(self, cert, key):
        self.lock = threading.Lock()
        self.delivered = {}  # (path, delivery id) -> (event, body, signature ok)
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                fields = dict(p.split("=", 1)
                              for p in self.headers.get("Verdict-Signature", "").split(","))
                expected = hmac.new(SECRET.encode(), fields.get("t", "").encode() + b"." + body,
                                    hashlib.sha256).hexdigest()
                with receiver.lock:
                    receiver.delivered[(self.path, self.headers["Verdict-Delivery"])] = (
                        self.headers["Verdict-Event"], json.loads(body),
                        hmac.compare_digest(expected, fields.get("v1", "")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def paths(self):
        with self.lock:
            return dict(self.delivered)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class WebhooksHttpsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-webhooks-https-")
        self.ca, cert, key = make_ca_and_server_cert(self.tmp)
        self.receiver = HttpsReceiver(cert, key)

    def tearDown(self):
        self.receiver.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_delivered_over_https_to_a_certificate_its_ca_file_trusts_only(self):
        port = self.receiver.port
        config = f"""
[[webhooks]]
url = "https://127.0.0.1:{port}/trusted"
ca_file = "{self.ca}"
events = ["decision.flagged"]
secret = "{SECRET}"
retry_initial_ms = 50
retry_max_ms = 200

[[webhooks]]
url = "https://127.0.0.1:{port}/system-store"
events = ["decision.flagged"]
secret = "{SECRET}"
retry_initial_ms = 50
retry_max_ms = 200
"""
        with vp.VerdictProcess(config=config, data_dir=os.path.join(self.tmp, "var")) as engine:
            flagged = []
            for i in range(3):
                status, d = engine.json("POST", "/v1/decisions", vp.transaction(
                    "https-%d" % i, amount="%d.00" % (20000 + 1000 * i),
                    sender={"account": "ACC-https-%d" % i, "country": "US"}))
                self.assertEqual(status, 200, d)
                self.assertIn(d["outcome"], ("review", "block"), d)
                flagged.append(d["decision_id"])

            def state():
                status, s = engine.json("GET", "/v1/webhooks")
                self.assertEqual(status, 200, s)
                return {e["url"].rsplit("/", 1)[1]: e for e in s["endpoints"]}

            deadline = time.monotonic() + 30
            while True:
                hooks = state()
                done = (hooks["trusted"]["delivered_total"] == 3 and
                        hooks["system-store"]["failed_attempts_total"] >= 3)
                if done or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            self.assertEqual(hooks["trusted"]["delivered_total"], 3, hooks)
            delivered = self.receiver.paths()
            trusted = [v for (path, _), v in delivered.items() if path == "/trusted"]
            self.assertEqual(sorted(body["data"]["decision_id"] for _, body, _ in trusted),
                             sorted(flagged))
            for event, _, signature_ok in trusted:
                self.assertEqual(event, "decision.flagged")
                self.assertTrue(signature_ok)
            # The system's store does not know the test's CA: refused, nothing delivered there.
            self.assertGreaterEqual(hooks["system-store"]["failed_attempts_total"], 3, hooks)
            self.assertEqual(hooks["system-store"]["delivered_total"], 0, hooks)
            self.assertIn("certificate", hooks["system-store"]["last_error"], hooks)
            self.assertFalse(any(path == "/system-store" for path, _ in delivered))

    def test_a_ca_file_that_cannot_be_read_stops_the_start(self):
        config = f"""
[[webhooks]]
url = "https://127.0.0.1:9/hooks"
ca_file = "{self.tmp}/missing.pem"
events = ["decision.flagged"]
secret = "{SECRET}"
"""
        with self.assertRaises(RuntimeError) as refused:
            vp.VerdictProcess(config=config, data_dir=os.path.join(self.tmp, "var"))
        self.assertIn("webhooks[0].ca_file", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
