"""`verdict import` into a cluster (docs/import.md): with the cluster's configuration the history
goes into the cluster's journal in PostgreSQL, taken as owner of every partition at a new epoch
while no node serves; a node started afterwards takes the journal above that epoch and decides
warm: the first decision's features equal those of a single engine that imported the same
history. An import while a node is live is refused and changes nothing."""
import csv
import http.client
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


def run_verdict(*args):
    return subprocess.run([cluster.VERDICT_BIN, *args], capture_output=True, text=True,
                          timeout=300)


def request(url, method, path, body=None):
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request(method, path, None if body is None else json.dumps(body),
                     {} if body is None else {"Content-Type": "application/json"})
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def features_of(records, tx_id):
    found = [r for r in records if r["kind"] == "decision" and r["transaction_id"] == tx_id]
    assert len(found) == 1, (tx_id, len(found))
    return found[0]["features"]


class ClusterImportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdict-cluster-import-")
        os.chmod(self.dir, 0o755)
        self.harness = cluster.Harness(self.dir)
        self.harness.state = {"partitions": 4, "secure": False, "nodes": [], "lease_seconds": 2}
        try:
            self.harness.start_etcd()
            self.harness.start_postgres(2)
        except BaseException:
            self.tearDown()
            raise

    def tearDown(self):
        self.harness.stop_all()
        shutil.rmtree(self.dir, ignore_errors=True)

    def import_config(self):
        base = os.path.join(self.dir, "importer")
        os.makedirs(base, exist_ok=True)
        self.harness.shared_signing_key(base)
        path = os.path.join(base, "verdict.toml")
        with open(path, "w") as f:
            f.write(self.harness.node_config({"id": "unused"}))
        return path, os.path.join(base, "var")

    def test_history_imported_into_the_cluster_serves_warm(self):
        history = os.path.join(self.dir, "history.csv")
        out = run_verdict("sim", "--accounts", "300", "--days", "20", "--seed", "4",
                          "--out", history)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(history, newline="") as f:
            rows = list(csv.DictReader(f))
        config, import_dir = self.import_config()
        out = run_verdict("import", "--input", history, "--data-dir", import_dir,
                          "--tenant", "dev", "--config", config, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["imported"], len(rows))
        self.assertIn("the cluster's journal, as import-", out.stderr)

        # A node takes the journal above the import's epoch and decides on the warm state.
        node = {"id": "node0"}
        self.harness.state["nodes"].append(node)
        self.harness.start_node(node)
        cluster.wait_until("node0 owns the journal", lambda: request(
            node["url"], "GET", "/readyz")[0] == 200, 120)
        last = max(r["timestamp"] for r in rows)
        sender = rows[-1]["sender_account"]
        probe = {"transaction_id": "probe-1", "timestamp": last[:10] + "T23:59:59Z",
                 "amount": "9950.00", "currency": "USD",
                 "sender": {"account": sender, "country": "US"},
                 "receiver": {"account": rows[0]["receiver_account"], "country": "GB"},
                 "channel": "wire", "type": "transfer"}
        status, raw = request(node["url"], "POST", "/v1/decisions", probe)
        self.assertEqual(status, 200, raw)
        # An imported transaction is history in the cluster's journal: refused as a decision.
        first = rows[0]
        status, raw = request(node["url"], "POST", "/v1/decisions", {
            "transaction_id": first["transaction_id"], "timestamp": first["timestamp"],
            "amount": first["amount"], "currency": first["currency"],
            "sender": {"account": first["sender_account"]},
            "receiver": {"account": first["receiver_account"]}})
        self.assertEqual(status, 409, raw)

        exported = run_verdict("audit", "export", "--postgres", self.harness.postgres_url())
        self.assertEqual(exported.returncode, 0, exported.stderr)
        records = [json.loads(line) for line in exported.stdout.splitlines()]
        self.assertEqual(sum(1 for r in records if r["kind"] == "history"), len(rows))
        verified = run_verdict("audit", "verify", "--postgres", self.harness.postgres_url(),
                               "--json")
        self.assertEqual(verified.returncode, 0, verified.stdout + verified.stderr)

        # The same history imported into a single engine, then the same probe.
        single = os.path.join(self.dir, "single")
        out = run_verdict("import", "--input", history, "--data-dir", single, "--tenant", "dev")
        self.assertEqual(out.returncode, 0, out.stderr)
        port_file = os.path.join(self.dir, "single.port")
        proc = subprocess.Popen([cluster.VERDICT_BIN, "serve", "--listen", "127.0.0.1:0",
                                 "--data-dir", single, "--port-file", port_file,
                                 "--insecure-dev"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            def port_written():
                if not os.path.exists(port_file):
                    return None
                with open(port_file) as f:
                    return f.read().strip()
            port = cluster.wait_until("single engine", port_written, 60)
            status, raw = request(f"http://127.0.0.1:{port}", "POST", "/v1/decisions", probe)
            self.assertEqual(status, 200, raw)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        single_records = json.loads("[" + ",".join(run_verdict(
            "audit", "export", "--data-dir", single).stdout.splitlines()) + "]")
        self.assertEqual(features_of(records, "probe-1"), features_of(single_records, "probe-1"))

        # With a node live, an import is refused and writes nothing.
        out = run_verdict("import", "--input", history, "--data-dir", import_dir, "--tenant",
                          "other", "--config", config)
        self.assertEqual(out.returncode, 1, out.stdout)
        self.assertIn("node(s) of the cluster are live", out.stderr)
        after = run_verdict("audit", "export", "--postgres", self.harness.postgres_url())
        self.assertEqual(len(after.stdout.splitlines()), len(exported.stdout.splitlines()))


if __name__ == "__main__":
    unittest.main()
