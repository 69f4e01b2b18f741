"""Busy polling end to end (issue 7): an engine whose I/O thread polls ([server] busy_poll_us)
answers every request of a `verdict-load --busy-poll` run, both processes stop by themselves,
and the engine's I/O thread did not sleep while requests kept coming (no voluntary context
switches beyond a few)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess, transaction  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")
CONFIG = """
[server]
busy_poll_us = 1000000

[journal]
durability = "async"
"""


def io_thread_sleeps(pid):
    """Voluntary context switches of the engine's verdict-io threads."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
            if f.read().strip() != "verdict-io":
                continue
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


class BusyPollTest(unittest.TestCase):
    def test_polling_engine_and_generator_answer_every_request(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for i in range(50):
                f.write(json.dumps(transaction("poll-%d" % i)) + "\n")
        self.addCleanup(os.unlink, f.name)
        with VerdictProcess(config=CONFIG) as server:
            before = io_thread_sleeps(server.proc.pid)
            out = subprocess.run(
                [LOAD, "--target", "http://127.0.0.1:%d" % server.port, "--rate", "100",
                 "--duration", "0.5", "--connections", "2", "--input", f.name, "--busy-poll",
                 "--json"],
                capture_output=True, text=True, timeout=120)
            after = io_thread_sleeps(server.proc.pid)
        self.assertEqual(out.returncode, 0, out.stderr)
        overall = json.loads(out.stdout)["overall"]
        self.assertEqual(overall["sent"], 50)
        self.assertEqual(overall["status"], {"200": 50}, overall)
        # 50 requests 10 ms apart: a sleeping I/O thread would have been woken for each.
        self.assertLess(after - before, 10, "the I/O thread slept %d times" % (after - before))


if __name__ == "__main__":
    unittest.main(verbosity=2)
