"""TLS and mutual TLS on the real binary (issue 9): certificates are made at test time with the
`openssl` CLI; the engine verifies client certificates against a test CA. A good certificate and
key work and the certificate subject is the journaled principal (of an admin action; of a
decision once the engine journals the caller's principal); no certificate, a certificate
from another CA, TLS 1.1, a TLS 1.2 cipher without forward secrecy or AEAD, plain HTTP and a
silent client are all cut off without an HTTP answer."""
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import unittest
import warnings

import verdict_process as vp

CLIENT_SUBJECT = "/C=GB/O=Acme Bank/OU=Payments/CN=switch-1"
# The same name as RFC 4514 writes it: most specific first, comma-separated.
CLIENT_PRINCIPAL = "CN=switch-1,OU=Payments,O=Acme Bank,C=GB"
REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=cwd)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", name + ".key", "-out", name + ".pem", "-days", "2",
            "-subj", "/O=verdict tests/CN=" + name,
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def make_leaf(d, name, ca, subject, extensions):
    with open(os.path.join(d, name + ".ext"), "w") as f:
        f.write(extensions)
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject, cwd=d)
    openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
            "-CAcreateserial", "-out", name + ".pem", "-days", "2", "-extfile", name + ".ext",
            cwd=d)


def make_certificates(d):
    make_ca(d, "ca")
    make_ca(d, "other-ca")
    make_leaf(d, "server", "ca", "/CN=localhost",
              "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    client_ext = "extendedKeyUsage=clientAuth\n"
    make_leaf(d, "client", "ca", CLIENT_SUBJECT, client_ext)
    # Same subject, wrong issuer: the subject alone must not be trusted.
    make_leaf(d, "rogue", "other-ca", CLIENT_SUBJECT, client_ext)


def tls_config(d, client_cert="require", extra=""):
    return ("[server]\nread_timeout_ms = 2000\n"
            "[server.tls]\ncert_file = \"{d}/server.pem\"\nkey_file = \"{d}/server.key\"\n"
            "client_ca_file = \"{d}/ca.pem\"\nclient_cert = \"{mode}\"\n"
            "handshake_timeout_ms = 1000\n{extra}").format(d=d, mode=client_cert, extra=extra)




class TlsTestBase(unittest.TestCase):
    MODE = "require"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-tls-")
        make_certificates(cls.tmp)
        cls.data_dir = os.path.join(cls.tmp, "var")
        cls.scorer = vp.create_key(cls.data_dir, "bank-a", "scorer")
        cls.admin = vp.create_key(cls.data_dir, "bank-a", "admin")
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False,
                                       config=tls_config(cls.tmp, cls.MODE))

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def context(self, cert="client", **versions):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(os.path.join(self.tmp, "ca.pem"))
        if cert:
            ctx.load_cert_chain(os.path.join(self.tmp, cert + ".pem"),
                                os.path.join(self.tmp, cert + ".key"))
        with warnings.catch_warnings():  # TLSVersion.TLSv1_1 is deprecated: that is the point
            warnings.simplefilter("ignore", DeprecationWarning)
            for attribute, value in versions.items():
                setattr(ctx, attribute, value)
        return ctx

    def https(self, ctx):
        return http.client.HTTPSConnection("127.0.0.1", self.engine.port, context=ctx, timeout=30)

    def decide(self, ctx, tx_id):
        conn = self.https(ctx)
        try:
            return self.engine.json("POST", "/v1/decisions", vp.transaction(tx_id),
                                    {"Authorization": "Bearer " + self.scorer["key"]}, conn)
        finally:
            conn.close()

    def refusal(self, ctx):
        """Connects with `ctx` and asks for /healthz. The handshake must fail (at once, or with
        TLS 1.3 on the first read, since the client finishes before the server has judged its
        certificate) so that no HTTP answer comes back. Returns the client's SSLError, or None
        when the connection was just closed."""
        data = b""
        try:
            with socket.create_connection(("127.0.0.1", self.engine.port), timeout=30) as raw:
                with ctx.wrap_socket(raw, server_hostname="127.0.0.1") as s:
                    s.sendall(REQUEST)
                    data = s.recv(4096)
        except ssl.SSLError as e:
            return e
        except ConnectionError:
            return None
        self.assertEqual(data, b"", "the server answered a refused client")
        return None

    def assert_refused(self, ctx):
        self.refusal(ctx)


class MutualTlsRequiredTest(TlsTestBase):
    def test_good_client_certificate_decides_and_is_the_journaled_principal(self):
        status, body = self.decide(self.context(), "tx-tls-1")
        self.assertEqual(status, 200, body)
        self.assertIn(body["outcome"], ("allow", "review", "block"))
        decision_id = body["decision_id"]
        # TLS 1.2 (ECDHE + AEAD) is accepted as well as 1.3.
        status, body = self.decide(self.context(maximum_version=ssl.TLSVersion.TLSv1_2),
                                   "tx-tls-2")
        self.assertEqual(status, 200, body)
        # An admin action over mTLS: journaled with the certificate subject as principal.
        conn = self.https(self.context())
        try:
            status, _, data = self.engine.request(
                "POST", "/v1/keys", {"roles": ["analyst"]},
                {"Authorization": "Bearer " + self.admin["key"]}, conn)
        finally:
            conn.close()
        self.assertEqual(status, 201, data)
        new_key_id = json.loads(data)["id"]
        # Read the journal on the stopped engine, then restart it for the other tests.
        self.engine.__exit__(None, None, None)
        journal = os.path.join(self.data_dir, "journal")
        try:
            out = subprocess.run([vp.BINARY, "audit", "show", "--json", "--data-dir", journal,
                                  decision_id],
                                 capture_output=True, text=True, timeout=60)
            export = subprocess.run([vp.BINARY, "audit", "export", "--data-dir", journal],
                                    capture_output=True, text=True, timeout=60)
        finally:
            type(self).engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False,
                                                  config=tls_config(self.tmp, self.MODE))
        self.assertEqual(export.returncode, 0, export.stderr)
        events = [json.loads(line) for line in export.stdout.splitlines()]
        created = [e for e in events if e["kind"] == "admin_event"
                   and e["action"] == "keys.create" and e["object"] == new_key_id]
        self.assertEqual(len(created), 1, events)
        self.assertEqual(created[0]["tenant"], "bank-a")
        self.assertEqual(created[0]["principal"], CLIENT_PRINCIPAL)
        self.assertEqual(out.returncode, 0, out.stderr)
        record = json.loads(out.stdout.splitlines()[0])
        self.assertEqual(record["kind"], "decision")
        self.assertEqual((record["tenant"], record["principal"]), ("bank-a", CLIENT_PRINCIPAL))

    def test_no_client_certificate_is_refused(self):
        self.assert_refused(self.context(cert=None))

    def test_certificate_from_another_ca_is_refused(self):
        self.assert_refused(self.context(cert="rogue"))

    def test_tls_1_1_is_refused(self):
        ctx = self.context(minimum_version=ssl.TLSVersion.TLSv1_1,
                           maximum_version=ssl.TLSVersion.TLSv1_1)
        # Let the client offer TLS 1.1 at all (OpenSSL 3 clients refuse it at security level 1+),
        # so that the refusal tested is the server's.
        ctx.set_ciphers("DEFAULT:@SECLEVEL=0")
        error = self.refusal(ctx)
        self.assertIsNotNone(error)
        self.assertIn("ALERT_PROTOCOL_VERSION", str(error).upper())

    def test_tls_1_2_without_forward_secrecy_or_aead_is_refused(self):
        ctx = self.context(maximum_version=ssl.TLSVersion.TLSv1_2)
        ctx.set_ciphers("ECDHE-ECDSA-AES128-SHA:AES128-GCM-SHA256:AES128-SHA:@SECLEVEL=0")
        error = self.refusal(ctx)
        self.assertIsNotNone(error)
        self.assertIn("HANDSHAKE_FAILURE", str(error).upper())

    def test_plain_http_to_the_tls_port_gets_no_answer(self):
        data = b""
        with socket.create_connection(("127.0.0.1", self.engine.port), timeout=30) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except ConnectionError:
                pass
        self.assertNotIn(b"HTTP/", data)
        self.assertLess(len(data), 16, data)  # at most a TLS alert record

    def test_silent_client_is_cut_off_after_the_handshake_timeout(self):
        with socket.create_connection(("127.0.0.1", self.engine.port), timeout=30) as s:
            try:
                self.assertEqual(s.recv(1), b"")
            except ConnectionError:
                pass

    def test_trickling_header_is_cut_off(self):
        """Slowloris over TLS: after the first byte, the header has read_timeout_ms (2 s here);
        1 byte per 0.5 s for a 200-byte header would need 100 s."""
        cut_off = False
        with socket.create_connection(("127.0.0.1", self.engine.port), timeout=30) as raw:
            with self.context().wrap_socket(raw, server_hostname="127.0.0.1") as s:
                header = b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"a" * 200
                s.settimeout(0.5)
                for i in range(len(header)):
                    try:
                        s.sendall(header[i:i + 1])
                        if s.recv(1) == b"":
                            cut_off = True
                            break
                    except (socket.timeout, ssl.SSLWantReadError):
                        continue
                    except (ssl.SSLError, ConnectionError):
                        cut_off = True
                        break
        self.assertTrue(cut_off, "a client trickling its header was never cut off")


class MutualTlsOptionalTest(TlsTestBase):
    MODE = "optional"

    def test_without_a_certificate_the_key_alone_authenticates(self):
        status, body = self.decide(self.context(cert=None), "tx-opt-1")
        self.assertEqual(status, 200, body)
        status, body = self.decide(self.context(), "tx-opt-2")
        self.assertEqual(status, 200, body)

    def test_certificate_from_another_ca_is_still_refused(self):
        self.assert_refused(self.context(cert="rogue"))

    def test_oversized_body_over_tls_gets_413(self):
        # The refused body is read through TLS and dropped, so the client sees the answer.
        conn = self.https(self.context())
        try:
            status, _, data = self.engine.request(
                "POST", "/v1/decisions", b"x" * (4 * 1024 * 1024 + 1),
                {"Authorization": "Bearer " + self.scorer["key"],
                 "Content-Type": "application/json"}, conn)
        finally:
            conn.close()
        self.assertEqual(status, 413, data)
        self.assertEqual(json.loads(data)["error"]["code"], "payload_too_large")

    def test_kept_alive_tls_connection_serves_several_requests(self):
        conn = self.https(self.context())
        try:
            for _ in range(3):
                self.assertEqual(self.engine.request("GET", "/healthz", conn=conn)[0], 200)
        finally:
            conn.close()

    def test_unauthenticated_over_tls_is_401(self):
        conn = self.https(self.context())
        try:
            status, _, data = self.engine.request("POST", "/v1/decisions", vp.transaction(),
                                                  conn=conn)
        finally:
            conn.close()
        self.assertEqual(status, 401, data)


if __name__ == "__main__":
    unittest.main()
