"""Slow clients (issue 9, hardening): a client trickling its request header one byte at a time
is cut off once the header has taken read_timeout_ms since its first byte, while a kept-alive
connection may still sit quietly up to idle_timeout_ms before its next request. The engine keeps
serving others meanwhile."""
import select
import socket
import time
import unittest

import verdict_process as vp

CONFIG = "[server]\nread_timeout_ms = 1000\nidle_timeout_ms = 60000\n"


class SlowClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.engine = vp.VerdictProcess(config=CONFIG)

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)

    def test_header_trickled_byte_by_byte_is_cut_off_unanswered(self):
        header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 300 + b"\r\n\r\n"
        sent = 0
        closed = False
        answer = b""
        with socket.create_connection(("127.0.0.1", self.engine.port), timeout=30) as s:
            for i in range(len(header)):
                try:
                    s.sendall(header[i:i + 1])
                except ConnectionError:
                    closed = True
                    break
                sent += 1
                # One byte every 0.2 s: the whole header would take a minute.
                readable, _, _ = select.select([s], [], [], 0.2)
                if readable:
                    try:
                        answer = s.recv(4096)
                    except ConnectionError:
                        answer = b""
                    closed = True
                    break
        self.assertTrue(closed, "a header trickled over %d bytes was never cut off" % sent)
        self.assertLess(sent, len(header))
        self.assertEqual(answer, b"")
        # Others are still served.
        self.assertEqual(self.engine.request("GET", "/healthz")[0], 200)

    def test_quiet_kept_alive_connection_is_served_after_the_read_timeout(self):
        # Waiting for the first byte of a request is governed by idle_timeout_ms, not by the
        # shorter read_timeout_ms.
        conn = self.engine.connection()
        try:
            self.assertEqual(self.engine.request("GET", "/healthz", conn=conn)[0], 200)
            time.sleep(2.0)
            self.assertEqual(self.engine.request("GET", "/healthz", conn=conn)[0], 200)
        finally:
            conn.close()


if __name__ == "__main__":
    unittest.main()
