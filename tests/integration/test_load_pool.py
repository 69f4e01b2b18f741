"""verdict-load's connection pools (issue 7): with --max-connections, a class whose connections
are all busy opens more while requests wait, so that a server slower than the pool's capacity
still receives the offered load; without it the pool stays as opened and the backlog waits in
the generator. The server here is a stub that answers each request 50 ms late, so eight
connections carry at most 160 requests a second, well under the 400/s offered."""
import asyncio
import json
import os
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")
BODY = b'{"decision_id":"stub","outcome":"allow"}'


class SlowServer:
    """HTTP/1.1 keep-alive stub on an ephemeral loopback port; counts the connections it
    accepted."""

    def __init__(self, delay_s):
        self.delay_s = delay_s
        self.accepted = 0
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
        self.accepted += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":", 1)[1])
                await reader.readexactly(length)
                await asyncio.sleep(self.delay_s)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    def close(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class LoadPoolTest(unittest.TestCase):
    def run_load(self, port, *extra):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:%d" % port, "--rate", "400", "--duration", "1",
             "--connections", "8", "--drain", "10", "--json", *extra],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return json.loads(out.stdout)

    def test_a_fixed_pool_keeps_the_backlog_in_the_generator(self):
        server = SlowServer(0.05)
        self.addCleanup(server.close)
        result = self.run_load(server.port)
        self.assertEqual(result["connections"], 8)
        self.assertEqual(server.accepted, 8)
        self.assertEqual(result["overall"]["status"], {"200": result["overall"]["sent"]})

    def test_the_pool_grows_while_requests_wait(self):
        server = SlowServer(0.05)
        self.addCleanup(server.close)
        result = self.run_load(server.port, "--max-connections", "64")
        self.assertGreater(result["connections"], 8)
        self.assertLessEqual(result["connections"], 64)
        self.assertEqual(server.accepted, result["connections"])
        self.assertEqual(result["overall"]["status"], {"200": result["overall"]["sent"]})

    def test_a_cap_below_the_pool_is_an_error_naming_the_option(self):
        out = subprocess.run(
            [LOAD, "--target", "http://127.0.0.1:9", "--rate", "10", "--duration", "1",
             "--connections", "8", "--max-connections", "4"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 2)
        self.assertIn("max-connections", out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
