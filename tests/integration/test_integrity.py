"""Verify before serving, through the real binary: a data directory whose commit log lost
acknowledged decisions (a damaged frame inside the log, the store's unsynced WAL gone as after
a power failure) is not served: /readyz says why, every route answers 503, `verdict audit
verify` names the damage, and --read-only-investigation still answers reads. An ordinary crash
(kill -9, files intact) recovers and serves."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, VerdictProcess, transaction  # noqa: E402

DECISIONS = 8


def decide_and_kill(data):
    """Makes DECISIONS decisions, one group each, then kills the engine (no clean close).
    Returns their decision ids."""
    ids = []
    with VerdictProcess(data_dir=data) as server:
        for i in range(DECISIONS):
            status, d = server.json("POST", "/v1/decisions", transaction(
                "int-%d" % i, timestamp="2026-12-02T09:%02d:00Z" % i, amount="10.00"))
            assert status == 200, d
            ids.append(d["decision_id"])
        server.proc.kill()
        server.proc.wait()
    return ids


def frame_offsets(log):
    """Where each frame of the commit log's first pass starts (docs/journal_format.md)."""
    offsets = []
    pos = 0
    generation = None
    while pos + 40 <= len(log) and log[pos:pos + 4] == b"VCL1":
        if generation is not None and log[pos + 4:pos + 12] != generation:
            break
        generation = log[pos + 4:pos + 12]
        length = int.from_bytes(log[pos + 28:pos + 32], "big")
        offsets.append((pos, length))
        pos += 40 + length
    return offsets


def lose_acknowledged_decisions(journal_dir):
    """A power failure's loss of the store's unsynced WAL, and a damaged frame in the middle of
    the commit log: the decisions from that frame on exist nowhere whole any more."""
    for name in os.listdir(journal_dir):
        if name.endswith(".log") and name != "commit.log":
            os.truncate(os.path.join(journal_dir, name), 0)
    path = os.path.join(journal_dir, "commit.log")
    with open(path, "rb") as f:
        log = f.read()
    frames = frame_offsets(log)
    assert len(frames) >= DECISIONS, frames
    start, length = frames[len(frames) // 2]
    at = start + 32 + length // 2
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(bytes([log[at] ^ 0x20]))


class IntegrityTest(unittest.TestCase):
    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="verdict-it-integrity-")

    def tearDown(self):
        shutil.rmtree(self.data, ignore_errors=True)

    def audit_verify(self):
        out = subprocess.run([BINARY, "audit", "verify", "--data-dir",
                              os.path.join(self.data, "journal"), "--json"],
                             capture_output=True, text=True, timeout=120)
        return out.returncode, out.stdout, out.stderr

    def test_an_ordinary_crash_recovers_and_serves(self):
        ids = decide_and_kill(self.data)
        with VerdictProcess(data_dir=self.data) as server:
            status, ready = server.json("GET", "/readyz")
            self.assertEqual(status, 200, ready)
            status, d = server.json("GET", "/v1/decisions/" + ids[-1])
            self.assertEqual(status, 200, d)
            status, d = server.json("POST", "/v1/decisions", transaction("int-after"))
            self.assertEqual(status, 200, d)
        code, out, err = self.audit_verify()
        self.assertEqual(code, 0, out + err)

    def test_lost_decisions_are_refused_not_recovered(self):
        ids = decide_and_kill(self.data)
        lose_acknowledged_decisions(os.path.join(self.data, "journal"))

        code, out, err = self.audit_verify()
        self.assertNotEqual(code, 0, out)
        report = json.loads(out)
        self.assertFalse(report["ok"])
        self.assertIn("the commit log is damaged", report["problem"])

        with VerdictProcess(data_dir=self.data) as server:
            status, ready = server.json("GET", "/readyz")
            self.assertEqual(status, 503, ready)
            self.assertFalse(ready["ready"])
            self.assertIn("the commit log is damaged", ready["reason"])
            status, _ = server.json("GET", "/healthz")
            self.assertEqual(status, 200)
            status, err = server.json("POST", "/v1/decisions", transaction("int-new"))
            self.assertEqual(status, 503, err)
            self.assertEqual(err["error"]["reason"], "journal_damaged")
            status, err = server.json("GET", "/v1/decisions/" + ids[0])
            self.assertEqual(status, 503, err)
            self.assertEqual(err["error"]["reason"], "journal_damaged")
            status, err = server.json("GET", "/v1/policy")
            self.assertEqual(status, 503, err)

        # Read-only investigation: reads answer, nothing is decided.
        with VerdictProcess(data_dir=self.data,
                            extra_args=["--read-only-investigation"]) as server:
            status, ready = server.json("GET", "/readyz")
            self.assertEqual(status, 503, ready)
            status, d = server.json("GET", "/v1/decisions/" + ids[0])
            self.assertEqual(status, 200, d)
            self.assertEqual(d["decision_id"], ids[0])
            status, err = server.json("POST", "/v1/decisions", transaction("int-new"))
            self.assertEqual(status, 503, err)
            self.assertEqual(err["error"]["reason"], "journal_damaged")

        # Still refused on the next start: the damage is not forgotten.
        code, out, _ = self.audit_verify()
        self.assertNotEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main()
