"""verdict-load --ramp against one engine (issue 7): every step's transactions are new. Steps
used to restart the input's numbering, so a later step repeated the earlier steps' transaction
ids and was answered by idempotent replays, without decisions, which flattered the knee."""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess, transaction  # noqa: E402

LOAD = os.path.join(os.path.dirname(BINARY), "verdict-load")
CONFIG = """
[journal]
durability = "async"
"""


class LoadRampTest(unittest.TestCase):
    def test_ramp_steps_make_new_decisions(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            for i in range(3):
                f.write(json.dumps(transaction("ramp-%d" % i)) + "\n")
        self.addCleanup(os.unlink, f.name)
        with VerdictProcess(config=CONFIG) as server:
            out = subprocess.run(
                [LOAD, "--target", "http://127.0.0.1:%d" % server.port, "--ramp", "40,40",
                 "--duration", "0.5", "--connections", "4", "--input", f.name, "--json"],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            steps = json.loads(out.stdout)["steps"]
            status, _, body = server.request("GET", "/metrics")
            self.assertEqual(status, 200)
        sent = sum(step["overall"]["sent"] for step in steps)
        self.assertGreater(steps[1]["overall"]["sent"], 0)
        for step in steps:
            self.assertEqual(step["overall"]["status"], {"200": step["overall"]["sent"]}, step)
        # One journal record per request: none of the second step's was a replay.
        match = re.search(rb"^verdict_journal_records_total (\d+)", body, re.M)
        self.assertIsNotNone(match, body[:500])
        self.assertEqual(int(match.group(1)), sent)


if __name__ == "__main__":
    unittest.main(verbosity=2)
