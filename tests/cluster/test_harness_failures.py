"""scripts/cluster when a node cannot start: `up` stops at once naming the node and its log
(a node that exited was a zombie the harness took for running, and `up` waited out its whole
start time), stops everything it started, and leaves the folder usable again."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import cluster_harness  # noqa: E402

cluster = cluster_harness.load()


class HarnessFailureTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdict-cluster-")
        os.chmod(self.dir, 0o755)  # PostgreSQL's user walks through it to its members' folders

    def tearDown(self):
        subprocess.run([os.path.join(cluster_harness.SOURCE_DIR, "scripts", "cluster"), "down",
                        self.dir], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_node_that_exits_at_start_fails_up_and_stops_everything(self):
        # A "verdict" that exits at once with a message, as one refusing its configuration does.
        fake = os.path.join(self.dir, "fake-verdict")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'configuration: refused for the test'\nexit 2\n")
        os.chmod(fake, 0o755)
        target = os.path.join(self.dir, "cluster")
        up = subprocess.run([os.path.join(cluster_harness.SOURCE_DIR, "scripts", "cluster"), "up",
                             target, "--nodes", "1"],
                            env=dict(os.environ, VERDICT_BIN=fake), capture_output=True,
                            text=True, timeout=300)
        self.assertNotEqual(up.returncode, 0)
        self.assertIn("node node0 exited at start", up.stderr)
        self.assertIn("refused for the test", up.stderr)
        self.assertFalse(os.path.exists(os.path.join(target, "harness.json")))
        with open(os.path.join(target, "cluster.json")) as f:
            document = json.load(f)
        pids = [e["pid"] for e in document["etcd"]] + [m["pid"] for m in document["postgres"]]
        self.assertTrue(pids)
        for pid in pids:
            self.assertFalse(cluster.alive(pid), f"pid {pid} still runs after a failed up")


if __name__ == "__main__":
    unittest.main(warnings="ignore")  # the harness forgets its servers' Popen objects
