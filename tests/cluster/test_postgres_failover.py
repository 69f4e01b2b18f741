"""The cluster's database layer on its own: scripts/cluster brings up etcd and a Patroni-managed
PostgreSQL primary with a synchronous standby; rows committed on the primary survive a kill -9
of the primary (Patroni promotes the synchronous standby, which has every commit), and the
killed member rejoins as the synchronous standby. The journal's guarantee in the cluster mode
(DESIGN §9: acknowledged once the commit returns) rests on exactly this."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import cluster_harness  # noqa: E402

cluster = cluster_harness.load()


def psql(port, sql):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
                           "-d", "verdict", "-tAc", sql],
                          capture_output=True, text=True, check=True, timeout=30).stdout.strip()


class PostgresFailoverTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdict-cluster-")
        self.harness = cluster.Harness(self.dir)
        self.harness.state = {"partitions": 4, "secure": False, "nodes": []}
        self.harness.start_etcd()
        self.harness.start_postgres(2)

    def tearDown(self):
        self.harness.stop_all()
        shutil.rmtree(self.dir, ignore_errors=True)

    def promoted(self, name):
        """Patroni names `name` the leader *and* its PostgreSQL has left recovery: Patroni takes
        the leader key before the promotion completes, and until then the member is a replica."""
        if not any(m["name"] == name and m["role"] == "leader" and m.get("state") == "running"
                   for m in self.harness.patroni_members()):
            return False
        try:
            return psql(self.member(name)["pg_port"], "SELECT pg_is_in_recovery()") == "f"
        except subprocess.CalledProcessError:
            return False

    def member(self, name):
        return next(m for m in self.harness.state["postgres"] if m["name"] == name)

    def test_committed_rows_survive_killing_the_primary(self):
        self.harness.write_cluster_json()
        with open(os.path.join(self.dir, "cluster.json")) as f:
            document = json.load(f)
        self.assertEqual(set(document), {"nodes", "postgres", "etcd", "partitions"})
        self.assertEqual(sorted(m["role"] for m in document["postgres"]),
                         ["primary", "sync_standby"])
        self.assertEqual(document["partitions"], 4)
        self.assertTrue(document["etcd"][0]["url"].startswith("http://127.0.0.1:"))

        members = {m["name"]: m["role"] for m in self.harness.patroni_members()}
        self.assertEqual(sorted(members.values()), ["leader", "sync_standby"])
        leader = next(n for n, r in members.items() if r == "leader")
        standby = next(n for n, r in members.items() if r != "leader")
        port = self.member(leader)["pg_port"]
        psql(port, "CREATE TABLE acked (id integer PRIMARY KEY)")
        # Each INSERT returns only once the synchronous standby has it (synchronous_mode_strict).
        for i in range(200):
            psql(port, f"INSERT INTO acked VALUES ({i})")

        # kill -9 the primary's Patroni and its postmaster: no clean hand-over.
        data_dir = os.path.join(self.dir, leader, "data")
        with open(os.path.join(data_dir, "postmaster.pid")) as f:
            postmaster = int(f.readline())
        os.kill(self.member(leader)["pid"], signal.SIGKILL)
        os.kill(postmaster, signal.SIGKILL)

        cluster.wait_until("the promotion of the standby", lambda: self.promoted(standby), 90)
        new_port = self.member(standby)["pg_port"]
        self.assertEqual(psql(new_port, "SELECT count(*) FROM acked"), "200")
        self.assertEqual(psql(new_port, "SELECT pg_is_in_recovery()"), "f")

        # The killed member comes back as a standby (pg_rewind if needed) and becomes the
        # synchronous one again, so commits resume on two disks.
        self.harness.start_postgres_member(self.member(leader))
        cluster.wait_until("the old primary rejoining", self.harness.postgres_ready, 120)
        psql(new_port, "INSERT INTO acked VALUES (200)")
        self.assertEqual(psql(self.member(leader)["pg_port"],
                              "SELECT count(*) FROM acked"), "201")


if __name__ == "__main__":
    unittest.main(warnings="ignore")  # the harness forgets its servers' Popen objects
