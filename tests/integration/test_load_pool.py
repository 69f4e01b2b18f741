"""verdict-load's connection pools (issue 7): with --max-connections, a class whose connections
are all busy opens more while requests wait, so that a server slower than the pool's capacity
still receives the offered load; without it the pool stays as opened and the backlog waits in
the generator. The server here is a stub that answers each request 50 ms late, so eight
connections carry at most 160 requests a second, well under the 400/s offered.

It also checks --honor-retry-after: the stub then refuses its first requests with 429 and
Retry-After: 1, and the generator must send each again on its connection, after the pause and
not before; and, when the server closes the connection with its refusal or during the pause,
on a new connection."""
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")
BODY = b'{"decision_id":"stub","outcome":"allow"}'


class SlowServer:
    """HTTP/1.1 keep-alive stub on an ephemeral loopback port; keeps the most requests it held
    at once (each is held delay_s before its answer)."""

    def __init__(self, delay_s, refuse_first=0, framing="length", retry_after_s=1,
                 close_after_refusal=None):
        self.delay_s = delay_s
        # None: a refused connection stays open; "with_answer": the 429 says Connection: close
        # and the connection closes; "later": it closes 0.2 s after a keep-alive 429, as an idle
        # limit would.
        self.close_after_refusal = close_after_refusal
        self.retry_after_s = retry_after_s
        # "length": Content-Length, in one write; "split": the same in two writes 20 ms apart;
        # "close": no Content-Length, the connection's end ends the body.
        self.framing = framing
        self.refuse_left = refuse_first  # answered 429 with Retry-After: retry_after_s
        self.refused = []  # (connection, body, monotonic time answered) of each refusal
        self.after_refusal = []  # (body, monotonic time read) of the next request on its connection
        self.requests = []  # (connection, body, monotonic time read) of every request
        self.in_flight = 0
        self.peak_in_flight = 0
        self.writers = set()
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait(10)

    def _run(self, started):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer):
        self.writers.add(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                body = await reader.readexactly(length)
                self.requests.append((writer, body, time.monotonic()))
                if self.refused and self.refused[-1][0] is writer:
                    self.after_refusal.append((body, time.monotonic()))
                if self.refuse_left > 0:
                    self.refuse_left -= 1
                    self.refused.append((writer, body, time.monotonic()))
                    closing = b"Connection: close\r\n" if self.close_after_refusal == "with_answer" \
                        else b""
                    writer.write(b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: %d\r\n%s"
                                 b"Content-Length: 0\r\n\r\n" % (self.retry_after_s, closing))
                    await writer.drain()
                    if self.close_after_refusal == "later":
                        await asyncio.sleep(0.2)
                    if self.close_after_refusal:
                        break
                    continue
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
                await asyncio.sleep(self.delay_s)
                self.in_flight -= 1
                if self.framing == "close":
                    writer.write(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + BODY)
                    await writer.drain()
                    break
                response = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                            b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY))
                if self.framing == "split":
                    writer.write(response[:-10])
                    await writer.drain()
                    await asyncio.sleep(0.02)
                    response = response[-10:]
                writer.write(response)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self.writers.discard(writer)
            writer.close()

    async def _shut(self):
        self.server.close()
        for writer in list(self.writers):
            writer.close()
        await asyncio.sleep(0.05)  # lets the closed connections' handlers finish

    def close(self):
        asyncio.run_coroutine_threadsafe(self._shut(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class LoadPoolTest(unittest.TestCase):
    def run_load(self, port, *extra, connections=8):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:%d" % port, "--rate", "400", "--duration", "1",
             "--connections", str(connections), "--drain", "10", "--json", *extra],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_a_fixed_pool_keeps_the_backlog_in_the_generator(self):
        server = SlowServer(0.05)
        self.addCleanup(server.close)
        result = self.run_load(server.port)
        self.assertEqual(result["connections"], {"standard": 8})
        self.assertEqual(server.peak_in_flight, 8)
        self.assertEqual(result["overall"]["status"], {"200": result["overall"]["sent"]})

    def test_the_pool_grows_while_requests_wait(self):
        server = SlowServer(0.05)
        self.addCleanup(server.close)
        result = self.run_load(server.port, "--max-connections", "64")
        opened = result["connections"]["standard"]
        self.assertGreater(opened, 8)
        self.assertLessEqual(opened, 64)
        # The new connections carried requests: more were held at once than 8 could hold.
        self.assertGreater(server.peak_in_flight, 8)
        self.assertLessEqual(server.peak_in_flight, opened)
        self.assertEqual(result["overall"]["status"], {"200": result["overall"]["sent"]})

    def test_a_flooded_class_grows_only_its_own_pool(self):
        # 200 ms per answer: the standard class (360/s) would need about 72 connections. It
        # starts with 14 (90 % of 16) and realtime with 8 (the floor), and each pool may grow to
        # 64 / 16 = 4 times its first size: standard stops at 56, short of the 64 that one cap
        # over all pools would have let it take.
        server = SlowServer(0.2)
        self.addCleanup(server.close)
        result = self.run_load(server.port, "--mix", "standard=0.9,realtime=0.1",
                               "--max-connections", "64", connections=16)
        self.assertEqual(result["connections"]["standard"], 56)
        self.assertLessEqual(result["connections"]["realtime"], 32)
        self.assertEqual(result["overall"]["status"], {"200": result["overall"]["sent"]})

    def test_a_cap_below_the_pool_is_an_error_naming_the_option(self):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:9", "--rate", "10", "--duration", "1",
             "--connections", "8", "--max-connections", "4"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("max-connections", out.stderr)


class ResponseFramingTest(unittest.TestCase):
    """A response read in pieces, or ended by the connection's close, is still one answer."""

    def run_load(self, framing):
        server = SlowServer(0, framing=framing)
        self.addCleanup(server.close)
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:%d" % server.port, "--rate", "50",
             "--duration", "1", "--connections", "4", "--drain", "10", "--json"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["overall"]

    def test_a_response_in_two_writes(self):
        overall = self.run_load("split")
        self.assertEqual(overall["status"], {"200": overall["sent"]})

    def test_a_response_ended_by_close(self):
        overall = self.run_load("close")
        self.assertEqual(overall["status"], {"200": overall["sent"]})


class RetryAfterTest(unittest.TestCase):
    def run_load(self, port, *extra):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:%d" % port, "--rate", "20", "--duration", "1",
             "--connections", "1", "--drain", "10", "--json", *extra],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)["overall"]

    def test_a_refused_request_is_sent_again_after_its_retry_after(self):
        server = SlowServer(0, refuse_first=1)
        self.addCleanup(server.close)
        overall = self.run_load(server.port, "--honor-retry-after")
        # One connection (the floor is 8; --connections 1 keeps it at one).
        self.assertEqual(overall["retried"], 1)
        self.assertEqual(overall["status"], {"200": overall["sent"]})
        self.assertEqual(overall["answered"], overall["sent"])
        _, refused_body, refused_at = server.refused[0]
        next_body, next_at = server.after_refusal[0]
        # The connection's next request is the refused one, and it came after the pause.
        self.assertEqual(next_body, refused_body)
        self.assertGreaterEqual(next_at - refused_at, 1.0)

    def expect_resent_on_a_new_connection(self, close_after_refusal):
        server = SlowServer(0, refuse_first=1, close_after_refusal=close_after_refusal)
        self.addCleanup(server.close)
        overall = self.run_load(server.port, "--honor-retry-after")
        self.assertEqual(overall["retried"], 1)
        # Not lost: the resend's answer is the request's.
        self.assertEqual(overall["status"], {"200": overall["sent"]})
        refused_writer, refused_body, refused_at = server.refused[0]
        again = [(w, t) for w, body, t in server.requests[1:] if body == refused_body]
        self.assertEqual(len(again), 1)
        writer, at = again[0]
        self.assertIsNot(writer, refused_writer)
        self.assertGreaterEqual(at - refused_at, 1.0)

    def test_a_refusal_that_closes_its_connection_is_sent_again_on_a_new_one(self):
        self.expect_resent_on_a_new_connection("with_answer")

    def test_a_connection_closed_during_the_pause_is_replaced_for_the_resend(self):
        self.expect_resent_on_a_new_connection("later")

    def test_a_request_refused_again_and_again_is_answered_429_after_ten_resends(self):
        server = SlowServer(0, refuse_first=10 ** 9, retry_after_s=0)
        self.addCleanup(server.close)
        overall = self.run_load(server.port, "--honor-retry-after")
        self.assertEqual(overall["status"], {"429": overall["sent"]})
        self.assertEqual(overall["retried"], 10 * overall["sent"])

    def test_without_the_option_the_429_is_the_answer(self):
        server = SlowServer(0, refuse_first=1)
        self.addCleanup(server.close)
        overall = self.run_load(server.port)
        self.assertEqual(overall["retried"], 0)
        self.assertEqual(overall["status"], {"200": overall["sent"] - 1, "429": 1})
        # The connection went on with the next request, not the refused one again.
        self.assertNotEqual(server.after_refusal[0][0], server.refused[0][1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
