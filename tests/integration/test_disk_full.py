"""Fail-closed on a full disk (issue 5): the engine runs on a small tmpfs until the journal's
free-space reserve is reached (it stops before RocksDB can hit ENOSPC). From then on no decision is acknowledged (503), /readyz is 503 with the reason and the
process stays up; after the operator makes room, a restart recovers every acknowledged
decision. Needs root (to mount the tmpfs); skipped otherwise."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import VerdictProcess, transaction  # noqa: E402


def try_mount(path, size):
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", path],
                          capture_output=True).returncode == 0


class DiskFullTest(unittest.TestCase):
    def setUp(self):
        self.mount = tempfile.mkdtemp(prefix="verdict-smallfs-")
        if not try_mount(self.mount, "24m"):
            shutil.rmtree(self.mount, ignore_errors=True)
            self.skipTest("needs root and tmpfs to fill a disk")

    def tearDown(self):
        subprocess.run(["umount", self.mount], capture_output=True)
        shutil.rmtree(self.mount, ignore_errors=True)

    def test_fails_closed_then_recovers_after_restart(self):
        data = os.path.join(self.mount, "var")
        acknowledged = {}
        first_refusal = None
        # A 1 MiB commit log: the shipped 64 MiB would not fit this 24 MiB disk at all.
        config = "[journal]\nmin_free_mb = 14\ncommit_log_mb = 1\n"
        with VerdictProcess(data_dir=data, config=config) as server:
            conn = server.connection()
            for i in range(20000):
                status, d = server.json("POST", "/v1/decisions", transaction(
                    "full-%d" % i, remittance="r" * 900), conn=conn)
                if status == 200:
                    acknowledged["full-%d" % i] = d["decision_id"]
                    continue
                first_refusal = (status, d)
                break
            self.assertIsNotNone(first_refusal, "the disk never filled")
            self.assertEqual(first_refusal[0], 503, first_refusal)
            self.assertEqual(first_refusal[1]["error"]["code"], "unavailable")
            # Stays closed: later requests are refused too, and readiness says why.
            status, d = server.json("POST", "/v1/decisions", transaction("after-full"))
            self.assertEqual(status, 503, d)
            status, ready = server.json("GET", "/readyz")
            self.assertEqual(status, 503)
            self.assertFalse(ready["ready"])
            self.assertIn("disk nearly full", ready["reason"])
            self.assertTrue(server.alive())
            status, _ = server.json("GET", "/healthz")
            self.assertEqual(status, 200)
        self.assertGreater(len(acknowledged), 0)

        # The operator makes room; a restart recovers cleanly with everything acknowledged.
        subprocess.run(["mount", "-o", "remount,size=256m", self.mount], check=True)
        with VerdictProcess(data_dir=data, config=config) as server:
            status, ready = server.json("GET", "/readyz")
            self.assertEqual(status, 200, ready)
            for tx_id, decision_id in acknowledged.items():
                status, d = server.json("GET", "/v1/transactions/%s/decision" % tx_id)
                self.assertEqual(status, 200, tx_id)
                self.assertEqual(d["decision_id"], decision_id)
            status, d = server.json("POST", "/v1/decisions", transaction("after-room"))
            self.assertEqual(status, 200, d)


if __name__ == "__main__":
    unittest.main(verbosity=2)
