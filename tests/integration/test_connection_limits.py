"""One client cannot lock everyone out (issue 39, item 5): connections are limited per client
address and per tenant below the server's cap, and a request is authenticated from its headers,
before its body is read and before its content type is judged, so that a caller without a good
key is answered at once and learns nothing. 127.0.0.1 and 127.0.0.2 are two client addresses
(all of 127/8 is loopback on Linux)."""
import json
import os
import shutil
import socket
import tempfile
import unittest

import verdict_process as vp

PER_ADDRESS = 6
PER_TENANT = 3
# read_timeout_ms is long: a server that waited for a body would not answer within the
# client's timeout, and the test would fail on that rather than on a clock.
CONFIG = ("[server]\nmax_connections = 64\nmax_connections_per_address = %d\n"
          "max_connections_per_tenant = %d\nread_timeout_ms = 120000\n" % (PER_ADDRESS, PER_TENANT))


def connect(port, source):
    return socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(source, 0))


def read_response(s):
    """One HTTP response off `s`: (status, headers dict lower-case, body bytes); status 0 when
    the server closed the connection without answering."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = s.recv(65536)
        except ConnectionError:
            chunk = b""
        if not chunk:
            return 0, {}, data
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, headers, body


def get(s, path, key=None):
    auth = "Authorization: Bearer %s\r\n" % key if key else ""
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (path, auth)).encode())
    return read_response(s)


def closed_by_server(s):
    """True once the server has closed `s` (EOF or reset) without answering anything."""
    try:
        return s.recv(1) == b""
    except ConnectionError:
        return True


class ConnectionLimitsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-limits-")
        cls.data_dir = os.path.join(cls.tmp, "var")
        cls.analyst = vp.create_key(cls.data_dir, "bank-a", "analyst")["key"]
        cls.scorer = vp.create_key(cls.data_dir, "bank-a", "scorer")["key"]
        # The tenant test's own tenant: no other test's connection counts against it.
        cls.limited = vp.create_key(cls.data_dir, "bank-t", "analyst")["key"]
        cls.other = vp.create_key(cls.data_dir, "bank-b", "analyst")["key"]
        cls.admin = vp.create_key(cls.data_dir, "bank-c", "admin")["key"]
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False, config=CONFIG)

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def metric(self, name):
        status, _, body = get(connect(self.engine.port, "127.0.0.9"), "/metrics", self.admin)
        self.assertEqual(status, 200, body)
        for line in body.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return 0.0

    def test_one_address_holding_its_share_leaves_room_for_another(self):
        held = []
        try:
            for _ in range(PER_ADDRESS):
                s = connect(self.engine.port, "127.0.0.1")
                self.assertEqual(get(s, "/healthz")[0], 200)  # accepted, then left idle
                held.append(s)
            # Every further connection from that address is closed unanswered...
            for _ in range(4):
                extra = connect(self.engine.port, "127.0.0.1")
                extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                self.assertTrue(closed_by_server(extra))
                extra.close()
            # ...while another address is served, and the idle ones still are.
            other = connect(self.engine.port, "127.0.0.2")
            self.assertEqual(get(other, "/healthz")[0], 200)
            other.close()
            self.assertEqual(get(held[0], "/healthz")[0], 200)
            self.assertGreaterEqual(
                self.metric("verdict_api_address_refused_connections_total"), 4)
        finally:
            for s in held:
                s.close()

    def test_one_tenant_holding_its_share_leaves_room_for_another(self):
        held = []
        try:
            for _ in range(PER_TENANT):
                s = connect(self.engine.port, "127.0.0.3")
                self.assertEqual(get(s, "/v1/policy", self.limited)[0], 200)
                held.append(s)
            extra = connect(self.engine.port, "127.0.0.4")
            status, headers, body = get(extra, "/v1/policy", self.limited)
            self.assertEqual(status, 429, body)
            self.assertEqual(json.loads(body)["error"]["code"], "resource_exhausted")
            self.assertTrue(closed_by_server(extra))
            extra.close()
            # Another tenant is served, and so is the first on the connections it holds.
            other = connect(self.engine.port, "127.0.0.4")
            self.assertEqual(get(other, "/v1/policy", self.other)[0], 200)
            other.close()
            self.assertEqual(get(held[0], "/v1/policy", self.limited)[0], 200)
        finally:
            for s in held:
                s.close()

    def post_head(self, s, key=None, length=1_000_000, content_type="application/json",
                  extra=""):
        """Sends a POST /v1/decisions header announcing `length` body bytes, and no body."""
        auth = "Authorization: Bearer %s\r\n" % key if key else ""
        s.sendall(("POST /v1/decisions HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\n"
                   "Content-Length: %d\r\n%s%s\r\n" % (content_type, length, auth, extra)).encode())

    def test_unauthenticated_post_is_refused_before_its_body_is_read(self):
        for key in (None, "vk_" + "0" * 16 + "_" + "0" * 64):
            with self.subTest(key=bool(key)):
                s = connect(self.engine.port, "127.0.0.5")
                self.post_head(s, key)  # the body never comes: the answer must not wait for it
                status, headers, body = read_response(s)
                self.assertEqual(status, 401, body)
                self.assertIn("bearer", headers.get("www-authenticate", "").lower())
                self.assertEqual(json.loads(body)["error"]["code"], "unauthenticated")
                self.assertEqual(headers.get("connection"), "close")
                s.close()

    def test_wrong_role_is_refused_before_its_body_is_read(self):
        s = connect(self.engine.port, "127.0.0.5")
        self.post_head(s, self.analyst)
        status, _, body = read_response(s)
        self.assertEqual(status, 403, body)
        s.close()

    def test_expect_continue_without_a_key_gets_401_and_no_continue(self):
        s = connect(self.engine.port, "127.0.0.5")
        self.post_head(s, extra="Expect: 100-continue\r\n")
        status, _, body = read_response(s)
        self.assertEqual(status, 401, body)
        s.close()

    def test_key_is_judged_before_content_type_and_body_size(self):
        # Without a key, neither the media type nor the body limit is disclosed.
        for content_type, length in (("text/csv", 10), ("application/json", 64 << 20)):
            with self.subTest(content_type=content_type, length=length):
                s = connect(self.engine.port, "127.0.0.6")
                self.post_head(s, length=length, content_type=content_type)
                self.assertEqual(read_response(s)[0], 401)
                s.close()
        # With one, each is judged as before.
        for content_type, length, expected in (("text/csv", 10, 415),
                                               ("application/json", 64 << 20, 413)):
            with self.subTest(content_type=content_type, length=length, key=True):
                s = connect(self.engine.port, "127.0.0.6")
                self.post_head(s, self.scorer, length=length, content_type=content_type)
                self.assertEqual(read_response(s)[0], expected)
                s.close()

    def test_authenticated_post_is_read_and_decided(self):
        status, body = self.engine.json(
            "POST", "/v1/decisions", body=vp.transaction("tx-limits-1"),
            headers={"Authorization": "Bearer " + self.scorer})
        self.assertEqual(status, 200, body)
        self.assertEqual(body["transaction_id"], "tx-limits-1")

    def test_unauthenticated_get_keeps_its_connection(self):
        s = connect(self.engine.port, "127.0.0.7")
        self.assertEqual(get(s, "/v1/policy")[0], 401)
        self.assertEqual(get(s, "/v1/policy", self.analyst)[0], 200)
        s.close()


if __name__ == "__main__":
    unittest.main()
