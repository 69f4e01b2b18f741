"""`verdict import` (docs/import.md): history loaded into a data directory before serving.

- import then serve: the first decisions' features (after a restart too) equal those of an
  engine that decided the whole history through the decision API, and differ from a fresh one's;
  `audit verify` and `audit replay` hold on the journal with history records;
- import refuses a data dir that decided a later transaction, or one of the history's ids, and
  changes nothing;
- an import killed with SIGKILL and run again continues where it stopped and ends with the same
  journal and state as one never interrupted.
"""
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest
from datetime import datetime, timedelta, timezone

from verdict_process import BINARY, VerdictProcess


def run_verdict(*args, timeout=600):
    return subprocess.run([BINARY] + list(args), capture_output=True, text=True, timeout=timeout)


def simulate(path, accounts, days, seed):
    out = run_verdict("sim", "--accounts", str(accounts), "--days", str(days), "--seed", str(seed),
                      "--out", path)
    assert out.returncode == 0, out.stderr


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def export(data_dir):
    out = run_verdict("audit", "export", "--data-dir", data_dir)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def verify(data_dir):
    out = run_verdict("audit", "verify", "--data-dir", data_dir, "--json")
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["ok"], out.stdout + out.stderr
    return report


def replay(data_dir):
    out = run_verdict("audit", "replay", "--data-dir", os.path.join(data_dir, "journal"), "--json")
    report = json.loads(out.stdout)
    assert out.returncode == 0 and report["ok"], out.stdout + out.stderr
    return report


def parse_time(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def rfc3339(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def probe(tx_id, when, sender, receiver):
    return {"transaction_id": tx_id, "timestamp": rfc3339(when), "amount": "9950.00",
            "currency": "USD", "sender": {"account": sender, "country": "US"},
            "receiver": {"account": receiver, "country": "GB"}, "channel": "wire",
            "type": "transfer"}


def features_of(records, tx_id):
    found = [r for r in records if r["kind"] == "decision" and r["transaction_id"] == tx_id]
    assert len(found) == 1, tx_id
    return found[0]["features"]


class ImportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-it-import-")
        cls.history = os.path.join(cls.tmp, "history.csv")
        simulate(cls.history, 500, 30, 11)
        cls.rows = read_rows(cls.history)
        cls.last = max(parse_time(r["timestamp"]) for r in cls.rows)
        cls.first = min(parse_time(r["timestamp"]) for r in cls.rows)
        senders = {}
        for r in cls.rows:
            senders[r["sender_account"]] = senders.get(r["sender_account"], 0) + 1
        cls.sender = max(senders, key=senders.get)
        cls.receiver = cls.rows[0]["receiver_account"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def import_into(self, data_dir, history=None, *extra):
        return run_verdict("import", "--input", history or self.history, "--data-dir", data_dir,
                           "--tenant", "dev", *extra)

    def decide(self, server, txn):
        status, decision = server.json("POST", "/v1/decisions", txn)
        self.assertEqual(status, 200, decision)
        return decision

    def test_import_then_serve_starts_warm(self):
        imported = os.path.join(self.tmp, "imported")
        out = self.import_into(imported, None, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = json.loads(out.stdout)
        self.assertEqual(summary["imported"], len(self.rows))
        self.assertIn("import: ", out.stderr)  # progress, also when stderr is not a terminal
        probe1 = probe("probe-1", self.last + timedelta(hours=1), self.sender, self.receiver)
        probe2 = probe("probe-2", self.last + timedelta(hours=2), self.sender, self.receiver)
        # The import's process has exited: serve reads the state back, and again after a restart.
        with VerdictProcess(data_dir=imported) as server:
            self.decide(server, probe1)
        with VerdictProcess(data_dir=imported) as server:
            self.decide(server, probe2)
        records = export(imported)
        history = [r for r in records if r["kind"] == "history"]
        self.assertEqual(len(history), len(self.rows))
        self.assertEqual([r["transaction_id"] for r in history],
                         [r["transaction_id"] for r in self.rows])
        self.assertNotIn("decision", history[0])
        self.assertEqual(verify(imported)["records"], len(self.rows) + 2)
        report = replay(imported)
        self.assertEqual(report["history"], len(self.rows))
        self.assertEqual(report["decisions"], 2)

        # The same history decided through the API, in the same order, then the same probes.
        decided = os.path.join(self.tmp, "decided")
        with VerdictProcess(data_dir=decided) as server:
            inputs = [json.loads(r["canonical_input"]) for r in history]
            for start in range(0, len(inputs), 500):
                status, body = server.json("POST", "/v1/decisions:batch",
                                           {"transactions": inputs[start:start + 500]})
                self.assertEqual(status, 200, body)
                for item in body["decisions"]:
                    self.assertIn("decision_id", item, item)
            self.decide(server, probe1)
            self.decide(server, probe2)
        fresh = os.path.join(self.tmp, "fresh")
        with VerdictProcess(data_dir=fresh) as server:
            self.decide(server, probe1)
        decided_records = export(decided)
        for tx_id in ("probe-1", "probe-2"):
            self.assertEqual(features_of(records, tx_id), features_of(decided_records, tx_id),
                             tx_id)
        self.assertNotEqual(features_of(records, "probe-1"),
                            features_of(export(fresh), "probe-1"))

        # An imported transaction sent for a decision is refused: it has none, and deciding it
        # now would count it twice.
        with VerdictProcess(data_dir=imported) as server:
            status, body = server.json("POST", "/v1/decisions", inputs[0])
            self.assertEqual(status, 409, body)
            self.assertIn("imported as history", body["error"]["message"])
        # Importing the same input again finds nothing left to do.
        out = self.import_into(imported, None, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout)["imported"], 0)
        self.assertEqual(json.loads(out.stdout)["already_imported"], len(self.rows))

    def test_import_refuses_overlap_and_changes_nothing(self):
        data = os.path.join(self.tmp, "overlap")
        middle = self.first + (self.last - self.first) / 2
        with VerdictProcess(data_dir=data) as server:
            self.decide(server, probe("live-1", middle, self.sender, self.receiver))
        before = export(data)
        out = self.import_into(data)
        self.assertEqual(out.returncode, 1, out.stdout)
        self.assertIn("already holds a decision", out.stderr)
        self.assertIn("live-1", out.stderr)
        self.assertIn("nothing was imported", out.stderr)
        self.assertEqual(export(data), before)
        self.assertEqual(replay(data)["decisions"], 1)

        # Dated before the history (so the dates are no obstacle), under one of its ids.
        taken = os.path.join(self.tmp, "taken")
        reused = probe(self.rows[5]["transaction_id"], self.first - timedelta(days=1), "X1", "X2")
        with VerdictProcess(data_dir=taken) as server:
            self.decide(server, reused)
        before = export(taken)
        out = self.import_into(taken)
        self.assertEqual(out.returncode, 1, out.stdout)
        self.assertIn("already in the journal", out.stderr)
        self.assertIn(self.rows[5]["transaction_id"], out.stderr)
        self.assertEqual(export(taken), before)

    def test_bad_arguments_are_refused_clearly(self):
        data = os.path.join(self.tmp, "bad-args")
        out = run_verdict("import", "--input", self.history, "--data-dir", data,
                          "--tenant", "a/b")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--tenant", out.stderr)
        out = run_verdict("import", "--input", os.path.join(self.tmp, "missing.csv"),
                          "--data-dir", data)
        self.assertEqual(out.returncode, 1)
        self.assertIn("missing.csv", out.stderr)

    def test_killed_import_resumes_to_the_same_state(self):
        big = os.path.join(self.tmp, "big.csv")
        simulate(big, 20000, 40, 5)
        rows = len(read_rows(big))
        self.assertGreater(rows, 150000)
        killed = os.path.join(self.tmp, "killed")
        proc = subprocess.Popen([BINARY, "import", "--input", big, "--data-dir", killed,
                                 "--tenant", "dev", "--progress-interval-ms", "50"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        done = 0
        # Enqueued minus what may still wait for its commit (the journal queues at most 65,536).
        for line in proc.stderr:
            match = re.match(r"import: ([\d,]+) of", line)
            if match:
                done = int(match.group(1).replace(",", ""))
                if done >= 120000:
                    proc.send_signal(signal.SIGKILL)
                    break
        proc.wait()
        proc.stderr.close()
        self.assertEqual(proc.returncode, -signal.SIGKILL,
                         "the import ended before it could be interrupted (%d done)" % done)
        durable = verify(killed)["records"]
        self.assertGreater(durable, 0)
        self.assertLess(durable, rows)

        out = self.import_into(killed, big, "--json")
        self.assertEqual(out.returncode, 0, out.stderr)
        summary = json.loads(out.stdout)
        self.assertEqual(summary["already_imported"], durable)
        self.assertEqual(summary["imported"], rows - durable)

        whole = os.path.join(self.tmp, "whole")
        out = self.import_into(whole, big)
        self.assertEqual(out.returncode, 0, out.stderr)

        def history_of(data_dir):
            return [(r["transaction_id"], r["canonical_input"], r["input_position"])
                    for r in export(data_dir) if r["kind"] == "history"]

        self.assertEqual(history_of(killed), history_of(whole))
        self.assertEqual(replay(killed)["accounts"], replay(whole)["accounts"])
        first = read_rows(big)[0]
        end = max(parse_time(r["timestamp"]) for r in read_rows(big))
        txn = probe("after", end + timedelta(hours=1), first["sender_account"],
                    first["receiver_account"])
        features = []
        for data_dir in (killed, whole):
            with VerdictProcess(data_dir=data_dir) as server:
                self.decide(server, txn)
            features.append(features_of(export(data_dir), "after"))
        self.assertEqual(features[0], features[1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
