"""Busy polling end to end (issue 7): an engine whose I/O thread polls ([server] busy_poll_us)
answers every request of a `verdict-load --busy-poll` run, both processes stop by themselves,
and neither slept between requests (voluntary context switches: the engine's I/O thread from
/proc, the generator's from its rusage)."""
import json
import os
import resource
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess, transaction  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")
# 5 ms, the most allowed: it spans the 3.3 ms between requests at 300/s.
CONFIG = """
[server]
busy_poll_us = 5000

[journal]
durability = "async"
"""
REQUESTS = 150


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
            for i in range(2 * REQUESTS):
                f.write(json.dumps(transaction("poll-%d" % i)) + "\n")
        self.addCleanup(os.unlink, f.name)
        with VerdictProcess(config=CONFIG) as server:
            before = io_thread_sleeps(server.proc.pid)
            # The engine is still running: the children's rusage is the generator's alone.
            generator_before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw
            out = subprocess.run(
                [LOAD, "--target", "http://127.0.0.1:%d" % server.port, "--rate", "300",
                 "--duration", "0.5", "--connections", "2", "--input", f.name, "--busy-poll",
                 "--json"],
                capture_output=True, text=True, timeout=120)
            generator_sleeps = (resource.getrusage(resource.RUSAGE_CHILDREN).ru_nvcsw -
                                generator_before)
            after = io_thread_sleeps(server.proc.pid)
        self.assertEqual(out.returncode, 0, out.stderr)
        overall = json.loads(out.stdout)["overall"]
        sent = overall["sent"]
        self.assertGreaterEqual(sent, REQUESTS)
        self.assertEqual(overall["status"], {"200": sent}, overall)
        # Sleeping instead, each would have been woken for (nearly) every request.
        self.assertLess(after - before, REQUESTS // 10, "the I/O thread slept %d times" %
                        (after - before))
        self.assertLess(generator_sleeps, REQUESTS // 10,
                        "the generator slept %d times" % generator_sleeps)


if __name__ == "__main__":
    unittest.main(verbosity=2)
