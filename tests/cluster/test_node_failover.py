"""The fail-over test of the HA issue (DESIGN §9, docs/cluster.md): two verdict nodes on a
Patroni-managed PostgreSQL (primary + synchronous standby) and etcd, under steady load sent to
both nodes by clients that record every acknowledged decision. Round after round the harness
kill -9s the owner, stalls it (SIGSTOP) past its lease and resumes it (SIGCONT), and kills the
PostgreSQL primary. After each round: every acknowledged decision is readable from either node
with the content it was acknowledged with, each transaction id names exactly the decision that
was acknowledged for it, the journal's chain and checkpoints verify, and the account state in
PostgreSQL (what a new owner rebuilds from) equals the state recomputed from the journal.

VERDICT_FAILOVER_ROUNDS (default 3: one of each kind) sets the number of rounds; the figures
(acknowledged, lost, time without service per fail-over) are printed and, with
VERDICT_FAILOVER_REPORT=PATH, written there as JSON."""
import http.client
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
import cluster_harness  # noqa: E402

cluster = cluster_harness.load()

ROUNDS = int(os.environ.get("VERDICT_FAILOVER_ROUNDS", "3"))
CLIENTS = 4
ACCOUNTS = 40
LEASE_SECONDS = 2
KINDS = ["kill_owner", "stall_owner", "kill_postgres_primary"]


def transaction(tx_id, sender, receiver, amount):
    return {
        "transaction_id": tx_id,
        "timestamp": "2026-12-07T10:15:30.123Z",
        "amount": f"{amount}.00",
        "currency": "USD",
        "sender": {"account": sender, "bank": "BANKUS33", "country": "US"},
        "receiver": {"account": receiver, "bank": "BANKGB22", "country": "GB"},
        "channel": "wire",
        "type": "transfer",
        "priority": "standard",
        "deadline_ms": 200,
    }


def request(url, method, path, body=None, timeout=10):
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        payload = None if body is None else json.dumps(body)
        headers = {} if body is None else {"Content-Type": "application/json"}
        conn.request(method, path, payload, headers)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


class LoadClients:
    """CLIENTS threads, each sending one transaction at a time to the nodes in turn. A refused
    or unanswered transaction is sent again with the same id (to the other node) until it is
    acknowledged: a transaction id is safe to retry. Every 200 is recorded."""

    def __init__(self, urls):
        self.urls = urls
        self.lock = threading.Lock()
        self.acked = {}         # transaction id -> (decision id, outcome, score)
        self.ack_times = []     # monotonic time of every acknowledgement
        self.unacked = set()    # sent and never acknowledged (refused or unanswered)
        self.stop = threading.Event()
        self.pause = threading.Event()
        self.idle = [threading.Event() for _ in range(CLIENTS)]
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(CLIENTS)]

    def start(self):
        for t in self.threads:
            t.start()

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)

    def hold(self):
        """Pauses the clients once each has finished its transaction in flight."""
        for e in self.idle:
            e.clear()
        self.pause.set()
        for e in self.idle:
            e.wait(timeout=120)

    def resume(self):
        self.pause.clear()

    def run(self, index):
        rng = random.Random(index)
        n = 0
        while not self.stop.is_set():
            if self.pause.is_set():
                self.idle[index].set()
                time.sleep(0.05)
                continue
            n += 1
            tx_id = f"c{index}-{n}"
            sender, receiver = rng.sample(range(ACCOUNTS), 2)
            body = transaction(tx_id, f"ACC-{sender}", f"ACC-{receiver}", rng.randint(10, 20000))
            attempt = 0
            while not self.stop.is_set():
                url = self.urls[(index + n + attempt) % len(self.urls)]
                attempt += 1
                try:
                    status, raw = request(url, "POST", "/v1/decisions", body)
                except OSError:
                    status, raw = None, b""
                if status == 200:
                    decision = json.loads(raw)
                    with self.lock:
                        self.acked[tx_id] = (decision["decision_id"], decision["outcome"],
                                             decision["score"])
                        self.ack_times.append(time.monotonic())
                        self.unacked.discard(tx_id)
                    break
                if status not in (None, 503):
                    raise AssertionError(f"{tx_id}: unexpected {status}: {raw[:300]!r}")
                with self.lock:
                    self.unacked.add(tx_id)
                time.sleep(0.1)

    def longest_gap(self, since, until):
        """The longest time without any acknowledgement between `since` and `until`."""
        with self.lock:
            times = sorted(t for t in self.ack_times if since <= t <= until)
        points = [since] + times + [until]
        return max(b - a for a, b in zip(points, points[1:]))


class NodeFailoverTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="verdict-failover-")
        os.chmod(self.dir, 0o755)
        self.harness = cluster.Harness(self.dir)
        self.harness.state = {"partitions": 4, "secure": False, "nodes": [],
                              "lease_seconds": LEASE_SECONDS}
        try:
            self.harness.start_etcd()
            self.harness.start_postgres(2)
            for i in range(2):
                node = {"id": f"node{i}"}
                self.harness.state["nodes"].append(node)
                self.harness.start_node(node)
        except BaseException:
            self.tearDown()
            raise

    def tearDown(self):
        self.harness.stop_all()
        shutil.rmtree(self.dir, ignore_errors=True)

    # --- the cluster's state ---------------------------------------------------------------
    def ready(self, node):
        try:
            status, raw = request(node["url"], "GET", "/readyz", timeout=3)
        except OSError:
            return None
        answer = json.loads(raw)
        return answer if status == 200 else None

    def roles(self):
        """{node id: "owner" | "follower"} of the nodes that say they are ready."""
        roles = {}
        for node in self.harness.state["nodes"]:
            answer = self.ready(node)
            if answer:
                roles[node["id"]] = answer["role"]
        return roles

    def wait_for_owner_and_follower(self, what):
        def settled():
            roles = self.roles()
            owners = [n for n, r in roles.items() if r == "owner"]
            return owners[0] if len(owners) == 1 and len(roles) == 2 else None
        return cluster.wait_until(what, settled, 120)

    def node(self, node_id):
        return next(n for n in self.harness.state["nodes"] if n["id"] == node_id)

    def postgres_leader(self):
        members = self.harness.patroni_members()
        name = next((m["name"] for m in members if m["role"] == "leader"), None)
        # None while no member leads (between the old leader's death and the promotion).
        return next((m for m in self.harness.state["postgres"] if m["name"] == name), None)

    # --- the rounds ------------------------------------------------------------------------
    def kill_owner(self, owner_id):
        owner = self.node(owner_id)
        os.kill(owner["pid"], signal.SIGKILL)
        cluster.wait_until("the standby taking over",
                           lambda: self.roles().get(self.other(owner_id)) == "owner", 120)
        self.harness.start_node(owner)

    def stall_owner(self, owner_id):
        owner = self.node(owner_id)
        os.kill(owner["pid"], signal.SIGSTOP)
        try:
            cluster.wait_until("the standby taking over from the stalled owner",
                               lambda: self.roles().get(self.other(owner_id)) == "owner", 120)
        finally:
            os.kill(owner["pid"], signal.SIGCONT)

    def kill_postgres_primary(self, _owner_id):
        leader = self.postgres_leader()
        with open(os.path.join(self.dir, leader["name"], "data", "postmaster.pid")) as f:
            postmaster = int(f.readline())
        os.kill(leader["pid"], signal.SIGKILL)
        os.kill(postmaster, signal.SIGKILL)
        cluster.wait_until("a new PostgreSQL primary",
                           lambda: (self.postgres_leader() or leader)["name"] != leader["name"],
                           120)
        self.harness.start_postgres_member(leader)
        cluster.wait_until("the old primary rejoining", self.harness.postgres_ready, 180)

    def other(self, node_id):
        return next(n["id"] for n in self.harness.state["nodes"] if n["id"] != node_id)

    # --- the checks ------------------------------------------------------------------------
    def check_acknowledged(self, clients):
        """Every acknowledged decision reads back from each node with the outcome and score it
        was acknowledged with, and its transaction id names exactly that decision."""
        with clients.lock:
            acked = dict(clients.acked)
        lost = []
        for node in self.harness.state["nodes"]:
            for tx_id, (decision_id, outcome, score) in sorted(acked.items()):
                status, raw = request(node["url"], "GET", f"/v1/decisions/{decision_id}")
                if status != 200:
                    lost.append((node["id"], tx_id, decision_id, status))
                    continue
                stored = json.loads(raw)
                self.assertEqual((stored["outcome"], stored["score"]), (outcome, score), tx_id)
                status, raw = request(node["url"], "GET", f"/v1/transactions/{tx_id}/decision")
                self.assertEqual(status, 200, raw)
                self.assertEqual(json.loads(raw)["decision_id"], decision_id,
                                 f"{tx_id} names another decision than the acknowledged one")
        self.assertEqual(lost, [], "acknowledged decisions not found")
        return len(acked)

    def check_one_decision_per_transaction(self):
        """The whole journal, exported from PostgreSQL, holds no transaction id twice."""
        export = self.audit("export")
        self.assertEqual(export.returncode, 0, export.stderr)
        seen = {}
        for line in export.stdout.splitlines():
            record = json.loads(line)
            if record["kind"] == "decision":
                key = (record["tenant"], record["transaction_id"])
                seen[key] = seen.get(key, 0) + 1
        self.assertGreater(len(seen), 0)
        twice = {tx: n for tx, n in seen.items() if n > 1}
        self.assertEqual(twice, {}, "transaction ids with more than one decision")
        return len(seen)

    def audit(self, command):
        return subprocess.run([cluster.VERDICT_BIN, "audit", command, "--postgres",
                               self.harness.postgres_url()],
                              capture_output=True, text=True, timeout=300)

    def check_chain_and_state(self):
        """The chain and checkpoints verify, and the account state the owners left in
        PostgreSQL (what the next owner rebuilds from) equals the state recomputed by replaying
        every journaled decision."""
        verify = self.audit("verify")
        self.assertEqual(verify.returncode, 0, verify.stdout + verify.stderr)
        replay = self.audit("replay")
        self.assertEqual(replay.returncode, 0, replay.stdout + replay.stderr)
        self.assertIn("account states match", replay.stdout)
        self.check_one_decision_per_transaction()

    def check_replay_sees_edited_state(self):
        """The state check can fail: one account's stored state edited is reported."""
        leader = self.postgres_leader()
        psql = ["psql", "-h", "127.0.0.1", "-p", str(leader["pg_port"]), "-U", "postgres",
                "-d", "verdict", "-tAc"]
        edit = subprocess.run(
            psql + ["UPDATE verdict_journal_state SET value = value || '\\x00'::bytea "
                    "WHERE key = (SELECT key FROM verdict_journal_state ORDER BY key LIMIT 1)"],
            capture_output=True, text=True, timeout=30,
            env=dict(os.environ, PGPASSWORD=cluster.SUPERUSER_PASSWORD))
        self.assertEqual(edit.returncode, 0, edit.stderr)
        replay = self.audit("replay")
        self.assertEqual(replay.returncode, 1, replay.stdout + replay.stderr)
        self.assertIn("account states differ", replay.stdout)

    def check_idempotency_across_nodes(self):
        """A transaction sent again through the other node gets the stored decision; the same
        id with another input is a 409 conflict, as on a single node."""
        first, second = (n["url"] for n in self.harness.state["nodes"])
        body = transaction("idem-1", "ACC-1", "ACC-2", 500)
        status, raw = request(first, "POST", "/v1/decisions", body)
        self.assertEqual(status, 200, raw)
        decision_id = json.loads(raw)["decision_id"]
        status, raw = request(second, "POST", "/v1/decisions", body)
        self.assertEqual(status, 200, raw)
        self.assertEqual(json.loads(raw)["decision_id"], decision_id)
        status, raw = request(second, "POST", "/v1/decisions", dict(body, amount="501.00"))
        self.assertEqual(status, 409, raw)

    def test_failover_rounds_lose_nothing_acknowledged(self):
        owner = self.wait_for_owner_and_follower("an owner and a follower")
        self.check_idempotency_across_nodes()
        clients = LoadClients([n["url"] for n in self.harness.state["nodes"]])
        clients.start()
        gaps = []
        try:
            cluster.wait_until("first acknowledgements", lambda: len(clients.acked) >= 20, 60)
            for round_number in range(ROUNDS):
                kind = KINDS[round_number % len(KINDS)]
                started = time.monotonic()
                getattr(self, kind)(owner)
                owner = self.wait_for_owner_and_follower(f"round {round_number} ({kind}) settled")
                before = len(clients.acked)
                cluster.wait_until("acknowledgements after the round",
                                   lambda: len(clients.acked) >= before + 20, 120)
                gaps.append((kind, clients.longest_gap(started, time.monotonic())))
                clients.hold()
                acknowledged = self.check_acknowledged(clients)
                self.check_chain_and_state()
                print(f"round {round_number} ({kind}): {acknowledged} acknowledged, 0 lost, "
                      f"longest time without an acknowledgement {gaps[-1][1]:.2f} s", flush=True)
                clients.resume()
        finally:
            clients.finish()
        acknowledged = self.check_acknowledged(clients)
        self.check_chain_and_state()
        tx_id, (decision_id, _, _) = next(iter(sorted(clients.acked.items())))
        for key in (tx_id, decision_id):
            show = subprocess.run([cluster.VERDICT_BIN, "audit", "show", key, "--postgres",
                                   self.harness.postgres_url()],
                                  capture_output=True, text=True, timeout=120)
            self.assertEqual(show.returncode, 0, show.stderr)
            self.assertIn(decision_id, show.stdout)
        self.check_replay_sees_edited_state()
        worst = max(g for _, g in gaps)
        median = statistics.median(g for _, g in gaps)
        report = {"rounds": ROUNDS, "acknowledged": acknowledged, "lost": 0,
                  "never_acknowledged": len(clients.unacked),
                  "gap_seconds_median": round(median, 3), "gap_seconds_worst": round(worst, 3),
                  "gaps": [{"kind": k, "seconds": round(g, 3)} for k, g in gaps]}
        print(json.dumps(report), flush=True)
        if os.environ.get("VERDICT_FAILOVER_REPORT"):
            with open(os.environ["VERDICT_FAILOVER_REPORT"], "w") as f:
                json.dump(report, f, indent=1)


if __name__ == "__main__":
    unittest.main(warnings="ignore")  # the harness forgets its servers' Popen objects
