"""Model lifecycle through the API (issue 8, points 1-4): upload to the registry, shadow with
divergence statistics, canary by a stable hash of the sender account, staged rollout with
promotion and automatic rollback, manual rollback to the previous primary, the active set
restored after a restart, every change journaled as an admin event, and a hot swap under load
with zero failed requests and one model version per decision, active at the time."""
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, SOURCE_DIR, VerdictProcess, transaction  # noqa: E402

try:
    import numpy as np
    import xgboost as xgb
except ImportError:  # pragma: no cover - scripts/setup installs both
    xgb = None

FEATURES = ["amount_usd", "cross_border"]
# Authentication is not what this test is about: every request gets every role (principal "dev").
DEV = ["--insecure-dev"]


def train(path, rule, seed=3, rounds=20):
    rng = random.Random(seed)
    rows, labels = [], []
    for _ in range(2000):
        amount = rng.uniform(1, 50000)
        cross = float(rng.random() < 0.5)
        rows.append([amount, cross])
        labels.append(1.0 if rule(amount, cross) else 0.0)
    dtrain = xgb.DMatrix(np.array(rows), label=np.array(labels), feature_names=FEATURES)
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.5,
                         "nthread": 1}, dtrain, num_boost_round=rounds)
    booster.save_model(path)
    with open(path) as f:
        return f.read()


def canary_bucket(account):
    """The engine's CanaryBucket: FNV-1a 64 with a murmur3 finalizer over a salted key."""
    h = 0xcbf29ce484222325
    for c in b"canary\x1f" + account.encode():
        h ^= c
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 33
    h = (h * 0xff51afd7ed558ccd) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 33
    h = (h * 0xc4ceb9fe1a85ec53) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 33
    return h % 10000


class Models:
    """Three tiny models on two real features: A flags large cross-border amounts, B flags
    every amount above 5,000 (so A and B disagree on a 7,000 USD payment), C is A's model
    re-serialized (another SHA-256, the same decisions)."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-lifecycle-")
        self.a = train(os.path.join(self.tmp, "a.json"), lambda x, c: x > 20000 and c)
        self.b = train(os.path.join(self.tmp, "b.json"), lambda x, c: x > 5000)
        self.c = json.dumps(json.loads(self.a), indent=1)
        self.sha = {v: hashlib.sha256(t.encode()).hexdigest()
                    for v, t in (("1", self.a), ("2", self.b), ("3", self.c))}
        self.text = {"1": self.a, "2": self.b, "3": self.c}


def upload(server, version, text, name="aml", **extra):
    body = {"name": name, "version": version, "model": text}
    body.update(extra)
    return server.json("POST", "/v1/models", body)


def activate(server, version, mode, weight=None, name="aml"):
    body = {"mode": mode}
    if weight is not None:
        body["traffic_weight"] = weight
    return server.json("POST", "/v1/models/%s/%s:activate" % (name, version), body)


def decide(server, tx_id, account, amount="7000.00", conn=None):
    return server.json("POST", "/v1/decisions", transaction(
        tx_id, amount=amount, sender={"account": account, "country": "US"}), conn=conn)


LIFECYCLE = """[lifecycle]
stages = [0.05, 0.5, 1.0]
stage_dwell_s = %s
max_outcome_divergence = %s
min_comparisons = 10
min_timings = 10
tick_ms = 50
"""


@unittest.skipIf(xgb is None, "needs python3-xgboost")
class LifecycleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.models = Models()

    def test_upload_is_validated_and_stored(self):
        m = self.models
        with VerdictProcess(DEV) as server:
            manifest = {"name": "aml", "feature_schema": "features-3", "features": FEATURES,
                        "model_sha256": m.sha["1"]}
            # A reference the drift watch could not use is refused at once, naming the field.
            status, body = upload(server, "1", m.a, manifest=manifest,
                                  reference={"features": {}})
            self.assertEqual((status, body["error"]["field"]), (400, "reference.features"), body)
            with open(os.path.join(SOURCE_DIR, "models", "demo", "reference.json")) as f:
                reference = json.load(f)
            status, body = upload(server, "1", m.a, manifest=manifest, reference=reference)
            self.assertEqual(status, 201, body)
            self.assertEqual(body["sha256"], m.sha["1"])
            self.assertTrue(body["created"])
            self.assertTrue(body["has_reference"])
            # The same model again is not a new one; another model under its version is refused.
            status, body = upload(server, "1", m.a)
            self.assertEqual(status, 200, body)
            self.assertFalse(body["created"])
            status, body = upload(server, "1", m.b)
            self.assertEqual(status, 409, body)
            self.assertEqual(body["error"]["field"], "version")
            # Untrusted model files are refused with the field named; nothing is stored.
            for bad, field in ((json.dumps({"learner": {}}), "model"),
                               ("{not json", "model"),
                               (m.a.replace("cross_border", "no_such_feature"), "model")):
                status, body = upload(server, "9", bad)
                self.assertEqual(status, 400, body)
                self.assertEqual(body["error"]["field"], field, body)
            status, body = upload(server, "9", m.b, manifest={"model_sha256": "00" * 32})
            self.assertEqual(status, 400, body)
            self.assertEqual(body["error"]["field"], "manifest.model_sha256")
            status, body = upload(server, "9", m.b, manifest={"feature_schema": "features-0"})
            self.assertEqual(body["error"]["field"], "manifest.feature_schema")
            status, body = upload(server, "../x", m.b)
            self.assertEqual((status, body["error"]["field"]), (400, "version"))
            status, body = upload(server, "1", m.b, name="a/b")
            self.assertEqual((status, body["error"]["field"]), (400, "name"))
            status, body = server.json("POST", "/v1/models", {"name": "aml", "version": "5",
                                                              "model": m.b, "extra": 1})
            self.assertEqual((status, body["error"]["field"]), (400, "extra"))
            status, body = server.json("GET", "/v1/models")
            self.assertEqual(status, 200)
            self.assertEqual([(e["name"], e["version"]) for e in body["models"]], [("aml", "1")])
            self.assertEqual(body["models"][0]["manifest"]["feature_schema"], "features-3")
            self.assertIsNone(body["active"]["primary"])
            # The caller's tenant ("dev" under --insecure-dev) registered it: its own registry.
            stored = os.path.join(server.tmp, "var", "tenant-models", "dev", "aml", "1")
            self.assertEqual(sorted(os.listdir(stored)),
                             ["manifest.json", "model.json", "reference.json"])
            # Activation errors name their field.
            status, body = activate(server, "1", "canary")
            self.assertEqual(status, 400)
            self.assertEqual(body["error"]["field"], "traffic_weight")
            status, body = activate(server, "1", "sideways")
            self.assertEqual(body["error"]["field"], "mode")
            status, body = activate(server, "7", "primary")
            self.assertEqual(status, 404, body)
            status, body = activate(server, "1", "shadow")  # no primary to compare with
            self.assertEqual(status, 400, body)
            status, body = server.json("POST", "/v1/models:rollback", {})
            self.assertEqual(status, 400, body)  # nothing to roll back

    def test_shadow_canary_rollback_restart_and_admin_events(self):
        m = self.models
        data_dir = tempfile.mkdtemp(prefix="verdict-lifecycle-data-")
        config = LIFECYCLE % (3600, 1.0)
        with VerdictProcess(DEV, config=config, data_dir=data_dir) as server:
            for version in ("1", "2"):
                self.assertEqual(upload(server, version, m.text[version])[0], 201)
            status, body = activate(server, "1", "primary")
            self.assertEqual(status, 200, body)
            self.assertEqual(body["active"]["primary"]["version"], "1")

            # Shadow: B scores every transaction, A decides all of them.
            status, body = activate(server, "2", "shadow")
            self.assertEqual(status, 200, body)
            conn = server.connection()
            for i in range(40):
                status, d = decide(server, "s-%d" % i, "SH-%d" % i, conn=conn)
                self.assertEqual(status, 200, d)
                self.assertEqual(d["path"], "model")
                self.assertEqual((d["model"]["version"], d["model"]["sha256"]), ("1", m.sha["1"]))
                self.assertNotEqual(d["outcome"], "block")  # B would block a 7,000 payment
            status, body = server.json("GET", "/v1/models")
            div = body["divergence"]
            self.assertEqual(body["active"]["mode"], "shadow")
            self.assertEqual(div["comparisons"], 40)
            self.assertEqual(div["outcome_changes"], 40)
            self.assertEqual(div["candidate_stricter"], 40)
            self.assertEqual(div["score_delta"]["count"], 40)
            self.assertGreater(div["score_delta"]["mean"], 0.5)
            self.assertGreaterEqual(div["score_delta"]["p99"], div["score_delta"]["mean"] * 0.9)
            self.assertGreater(div["candidate_model_us"]["count"], 0)
            status, _, metrics = server.request("GET", "/metrics")
            self.assertIn(b"verdict_lifecycle_candidate_outcome_changes", metrics)

            # Canary at 15%: decided by B exactly for the accounts whose bucket is below 1500,
            # and each account twice by the same model.
            status, body = activate(server, "2", "canary", 0.15)
            self.assertEqual(status, 200, body)
            self.assertEqual(body["active"]["traffic_weight"], 0.15)
            by_b = 0
            accounts = ["CA-%d" % i for i in range(300)]
            for round_ in range(2):
                for account in accounts:
                    status, d = decide(server, "c-%d-%s" % (round_, account), account, conn=conn)
                    self.assertEqual(status, 200, d)
                    expected = "2" if canary_bucket(account) < 1500 else "1"
                    self.assertEqual(d["model"]["version"], expected, account)
                    self.assertEqual(d["model"]["sha256"], m.sha[expected])
                    by_b += round_ == 0 and expected == "2"
            self.assertTrue(0.09 <= by_b / len(accounts) <= 0.21, by_b)

            # Rollback removes the candidate; a second one restores the previous primary.
            status, body = server.json("POST", "/v1/models:rollback", {"reason": "drill"})
            self.assertEqual(status, 200, body)
            self.assertIsNone(body["active"]["candidate"])
            self.assertEqual(body["last_rollback"]["reason"], "drill")
            self.assertEqual(body["last_rollback"]["model"]["version"], "2")
            self.assertEqual(decide(server, "r-1", accounts[0])[1]["model"]["version"], "1")
            status, body = activate(server, "2", "primary")
            self.assertEqual(body["active"]["primary"]["version"], "2")
            self.assertEqual(body["history"][0]["version"], "1")
            self.assertEqual(decide(server, "r-2", "CA-X")[1]["model"]["version"], "2")
            status, body = server.json("POST", "/v1/models:rollback")
            self.assertEqual(status, 200, body)
            self.assertEqual(body["active"]["primary"]["version"], "1")
            self.assertEqual(decide(server, "r-3", "CA-Y")[1]["model"]["version"], "1")
            # Left running into the restart: a canary of B.
            self.assertEqual(activate(server, "2", "canary", 0.5)[0], 200)
            conn.close()

        with VerdictProcess(DEV, config=config, data_dir=data_dir) as server:
            status, body = server.json("GET", "/v1/models")
            self.assertEqual(body["active"]["primary"]["version"], "1")
            self.assertEqual(body["active"]["candidate"]["version"], "2")
            self.assertEqual(body["active"]["mode"], "canary")
            self.assertEqual(body["active"]["traffic_weight"], 0.5)
            self.assertEqual(len(body["models"]), 2)

        out = subprocess.run([BINARY, "audit", "export", "--data-dir",
                              os.path.join(data_dir, "journal")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        events = [r for r in map(json.loads, out.stdout.splitlines())
                  if r["kind"] == "admin_event"]
        actions = [(e["action"], e["object"]) for e in events]
        self.assertEqual(actions, [
            ("models.register", "aml/1"), ("models.register", "aml/2"),
            ("models.activate", "aml/1"), ("models.activate", "aml/2"),
            ("models.activate", "aml/2"), ("models.rollback", "aml/2"),
            ("models.activate", "aml/2"), ("models.rollback", "aml/2"),
            ("models.activate", "aml/2")])
        self.assertEqual(json.loads(events[4]["details"])["traffic_weight"], 0.15)
        self.assertEqual(json.loads(events[5]["details"])["reason"], "drill")
        self.assertTrue(all(e["principal"] for e in events))

    def run_staged(self, max_divergence, version):
        """Starts a staged rollout of `version` over primary A under steady traffic; returns
        the GET /v1/models body once the rollout is over, and the decisions seen."""
        m = self.models
        with VerdictProcess(DEV, config=LIFECYCLE % (0.3, max_divergence)) as server:
            for v in ("1", version):
                self.assertEqual(upload(server, v, m.text[v])[0], 201)
            self.assertEqual(activate(server, "1", "primary")[0], 200)
            status, body = activate(server, version, "staged")
            self.assertEqual(status, 200, body)
            self.assertEqual(body["active"]["traffic_weight"], 0.05)
            self.assertEqual(body["rollout"]["state"], "staged")
            weights, seen = set(), []
            conn = server.connection()
            deadline = time.monotonic() + 60
            i = 0
            while time.monotonic() < deadline:
                status, d = decide(server, "st-%d" % i, "ST-%d" % (i % 97), conn=conn)
                self.assertEqual(status, 200, d)
                seen.append(d["model"]["version"])
                i += 1
                if i % 3 == 0:
                    body = server.json("GET", "/v1/models")[1]
                    weights.add(body["active"]["traffic_weight"])
                    if body["rollout"]["state"] == "idle":
                        break
            conn.close()
            self.assertEqual(body["rollout"]["state"], "idle", body)
            return body, weights, seen, server.read_log()

    def test_staged_rollout_promotes_a_candidate_that_agrees(self):
        body, weights, seen, _ = self.run_staged(0.001, "3")
        self.assertEqual(body["active"]["primary"]["version"], "3")
        self.assertEqual(body["active"]["primary"]["sha256"], self.models.sha["3"])
        self.assertEqual(body["history"][0]["version"], "1")
        self.assertIsNone(body["last_rollback"])
        self.assertTrue({0.05, 0.5, 1.0} <= weights | {0.05}, weights)
        self.assertIn(0.5, weights)
        self.assertIn("3", seen)

    def test_staged_rollout_rolls_back_a_diverging_candidate(self):
        body, _, seen, log = self.run_staged(0.001, "2")
        self.assertEqual(body["active"]["primary"]["version"], "1")
        self.assertIsNone(body["active"]["candidate"])
        rollback = body["last_rollback"]
        self.assertTrue(rollback["automatic"])
        self.assertEqual(rollback["model"]["version"], "2")
        self.assertIn("outcome divergence", rollback["reason"])
        self.assertEqual(rollback["by"], "verdict:rollout")
        self.assertIn("automatic rollback", log)

    def test_hot_swap_under_load(self):
        m = self.models
        with VerdictProcess(DEV, config=LIFECYCLE % (3600, 1.0)) as server:
            for v in ("1", "2", "3"):
                self.assertEqual(upload(server, v, m.text[v])[0], 201)
            self.assertEqual(activate(server, "1", "primary")[0], 200)
            # (sent, returned, versions that may decide afterwards) for every change.
            changes = [(float("-inf"), float("-inf"), {"1"})]
            results, failures = [], []
            stop = threading.Event()

            def sender(worker):
                conn = server.connection()
                i = 0
                while not stop.is_set():
                    sent = time.monotonic()
                    try:
                        status, d = decide(server, "hs-%d-%d" % (worker, i),
                                           "HS-%d-%d" % (worker, i % 50), conn=conn)
                    except Exception as e:  # noqa: BLE001 - a failed request is what we count
                        failures.append(repr(e))
                        conn.close()
                        conn = server.connection()
                        continue
                    if status != 200:
                        failures.append((status, d))
                    else:
                        results.append((sent, time.monotonic(), d["model"]))
                    i += 1
                conn.close()

            threads = [threading.Thread(target=sender, args=(w,)) for w in range(4)]
            for t in threads:
                t.start()
            steps = [("2", "shadow", None, {"1"}), ("2", "canary", 0.3, {"1", "2"}),
                     ("3", "canary", 0.6, {"1", "3"}), ("3", "primary", None, {"3"}),
                     ("2", "staged", None, {"3", "2"}), (None, "rollback", None, {"3"}),
                     (None, "rollback", None, {"1"}), ("2", "primary", None, {"2"})]
            for _ in range(2):
                for version, mode, weight, deciders in steps:
                    time.sleep(0.15)
                    sent = time.monotonic()
                    if mode == "rollback":
                        status, body = server.json("POST", "/v1/models:rollback")
                    else:
                        status, body = activate(server, version, mode, weight)
                    self.assertEqual(status, 200, body)
                    changes.append((sent, time.monotonic(), deciders))
                # Back to A alone for the second round.
                sent = time.monotonic()
                self.assertEqual(activate(server, "1", "primary")[0], 200)
                changes.append((sent, time.monotonic(), {"1"}))
            time.sleep(0.15)
            stop.set()
            for t in threads:
                t.join()
            self.assertEqual(failures, [])
            self.assertGreater(len(results), 100)
            for sent, returned, model in results:
                self.assertEqual(model["sha256"], m.sha[model["version"]], model)
                allowed = set()
                for i, (c_sent, _, deciders) in enumerate(changes):
                    ends = changes[i + 1][1] if i + 1 < len(changes) else float("inf")
                    if c_sent <= returned and ends >= sent:
                        allowed |= deciders
                self.assertIn(model["version"], allowed, (sent, returned, model))


if __name__ == "__main__":
    unittest.main(verbosity=2)
