#!/usr/bin/python3
"""Drift watch end to end: the real engine serves a freshly trained model's own training history
(no drift), then the same behaviour shifted mid-stream (near-threshold wires to new accounts in
a high-risk country); GET /v1/drift rises L1 -> L2 (the retrain hook runs) -> L3 (the model is
frozen, decisions take the fallback path) until an admin clears it, which is journaled.
`verdict drift report` over the same rows gives the live monitor's statistics, and its exact
KS, Wasserstein-1 and Jensen-Shannon agree with SciPy (Debian's python3-scipy) on the feature
values `verdict features` exports.

Counts and states only: no timing is asserted; every wait is bounded.

Calibration (2026-12-03, sim --accounts 1500 --days 30 --seed 21, train --rounds 20): the
training rows give a combined drift score of 0 against the model's reference; 500, 1000, 2000
and 2800 shifted rows after them give 0.057 (L1), 0.12 (L1), 0.26 (L2), 0.36 (L3) with the
default thresholds, so steps of 250 shifted rows cross every level at least once.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict_process import BINARY, VerdictProcess  # noqa: E402

# The simulator row -> API transaction mapping the load benchmarks use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "bench", "load"))
from sim_to_requests import as_request  # noqa: E402

STEP = 250          # shifted rows per step
WAIT_S = 60         # bound on waiting for one evaluation


def run(*args):
    out = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise AssertionError(f"verdict {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return out.stdout


def shifted(row, n):
    """The same customer, new behaviour: a near-threshold wire to a fresh account in Myanmar."""
    row = dict(row)
    row["transaction_id"] = "SHIFT-%06d" % n
    row["amount"] = "%.2f" % (9500 + (n * 37) % 480)
    row["receiver_account"] = "NEW-%06d" % n
    row["receiver_bank"] = "BKAXMM22"
    row["receiver_country"] = "MM"
    row["channel"] = "wire"
    row["type"] = "transfer"
    return row


def read_text(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=header)
        w.writeheader()
        for r in rows:
            w.writerow(r)


class Data:
    """A simulated history, a model trained on it, the training rows and shifted rows."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="verdict-drift-")
        self.sim = os.path.join(self.tmp.name, "sim.csv")
        self.model = os.path.join(self.tmp.name, "model")
        run("sim", "--accounts", "1500", "--days", "30", "--seed", "21",
            "--patterns-per-typology", "4", "--out", self.sim)
        # The reference on every training row, as the live watch below counts every decision.
        run("train", "--input", self.sim, "--out", self.model, "--rounds", "20",
            "--threads", "1", "--reference-min-history-days", "0", "--json")
        with open(os.path.join(self.model, "manifest.json")) as f:
            split = json.load(f)["split"]["holdout_from"]
        with open(self.sim, newline="") as f:
            reader = csv.DictReader(f)
            self.header = reader.fieldnames
            rows = list(reader)
        # RFC 3339 UTC with the same number of digits: string order is time order.
        self.train = [r for r in rows if r["timestamp"] < split]
        self.shifted = [shifted(r, n) for n, r in enumerate(r for r in rows
                                                            if r["timestamp"] >= split)]

    def path(self, name):
        return os.path.join(self.tmp.name, name)


DATA = None


def setUpModule():
    global DATA
    DATA = Data()


def tearDownModule():
    DATA.tmp.cleanup()


def config(model_dir, hook_file):
    # One cumulative window (a day; the test is far shorter) judged only once nearly all the
    # training rows are in, so that it compares like with like; a slow machine must not push
    # decisions onto the fallback path, so deadlines and the model budget are generous.
    return f"""
[journal]
durability = "async"
[sched]
standard_deadline_ms = 60000
model_budget_us = 10000000
[model]
path = "{model_dir}/model.json"
name = "drifty"
version = "1"
[drift]
windows_s = [86400]
count_windows = []
min_count = 10000
# The reference is built on the same rows from their first day: every decision counts, the one
# window judges at once, and level 3 freezes the model.
min_account_history_days = 0
escalate_after_windows = 1
freeze_model = true
evaluate_interval_ms = 50
retrain_cooldown_s = 3600
retrain_command = ["/bin/sh", "-c", "echo $VERDICT_DRIFT_LEVEL $VERDICT_MODEL >> {hook_file}"]
"""


class LiveDriftTest(unittest.TestCase):
    def send(self, server, rows):
        """Decides rows in batches of at most 1,000; returns the paths' counts and reasons."""
        paths, reasons = {}, set()
        for start in range(0, len(rows), 1000):
            batch = [as_request(r) for r in rows[start:start + 1000]]
            status, body = server.json("POST", "/v1/decisions:batch", {"transactions": batch})
            self.assertEqual(status, 200, body)
            for d in body["decisions"]:
                self.assertNotIn("error", d)
                paths[d["path"]] = paths.get(d["path"], 0) + 1
                reasons.update(r["code"] for r in d["reasons"])
        return paths, reasons

    def evaluated(self, server, decisions):
        """The drift report once the monitor has merged at least `decisions` decisions."""
        deadline = time.monotonic() + WAIT_S
        while True:
            status, body = server.json("GET", "/v1/drift")
            self.assertEqual(status, 200, body)
            window = body["windows"][0]
            seen = window["decisions"]
            if seen >= decisions:
                self.assertEqual(seen, decisions)
                return body
            self.assertLess(time.monotonic(), deadline, f"monitor saw {seen} of {decisions}")
            time.sleep(0.05)

    def test_levels_rise_to_freeze_and_an_admin_clears_it(self):
        hook = DATA.path("hook.txt")
        data_dir = DATA.path("var")
        with VerdictProcess(config=config(DATA.model, hook), data_dir=data_dir) as server:
            # The training history itself: no drift.
            paths, _ = self.send(server, DATA.train)
            self.assertEqual(paths, {"model": len(DATA.train)})
            sent = len(DATA.train)
            body = self.evaluated(server, sent)
            self.assertEqual(body["model"], {"name": "drifty", "version": "1"})
            self.assertTrue(body["windows"][0]["judged"])
            self.assertEqual(body["level"], 0)
            self.assertLess(body["drift_score"], 0.01)
            self.assertFalse(body["frozen"])

            # The live statistics are the offline report's on the same rows.
            stats = json.loads(run("drift", "report", "--model", DATA.model, "--input",
                                   self.train_csv(), "--json", "--quiet"))
            self.assertEqual(stats["rows"], sent)
            self.assertEqual(stats["level"], 0)

            # Then the behaviour shifts, a step at a time, until the model is frozen.
            levels = [0]
            shifted_sent = 0
            frozen_paths = {}
            frozen_reasons = set()
            compared = False
            while levels[-1] != 3:
                self.assertLess(shifted_sent, len(DATA.shifted), f"levels so far: {levels}")
                step = DATA.shifted[shifted_sent:shifted_sent + STEP]
                paths, reasons = self.send(server, step)
                shifted_sent += len(step)
                sent += len(step)
                body = self.evaluated(server, sent)
                levels.append(body["level"])
                if body["frozen"]:
                    continue
                self.assertEqual(paths, {"model": len(step)})
                if body["level"] == 2 and not compared:
                    # Same binned statistics offline, over exactly the rows decided so far.
                    compared = True
                    path = DATA.path("mixed.csv")
                    write_csv(path, DATA.header, DATA.train + DATA.shifted[:shifted_sent])
                    offline = json.loads(run("drift", "report", "--model", DATA.model,
                                             "--input", path, "--json", "--quiet"))
                    live = body["windows"][0]
                    self.assertEqual(offline["rows"], live["decisions"])
                    self.assertEqual(offline["level"], 2)
                    self.assertAlmostEqual(offline["drift_score"], live["drift_score"], places=9)
                    for key in ("psi", "kl", "js"):
                        self.assertAlmostEqual(offline["score"][key], live["score"][key],
                                               places=9)
                        for feature in ("amount", "receiver_high_risk_country"):
                            self.assertAlmostEqual(offline["features"][feature][key],
                                                   live["features"][feature][key], places=9)

            # L1, then L2, then L3, in that order and never back down.
            print(f"levels after each step of {STEP} shifted rows: {levels}", file=sys.stderr)
            self.assertEqual(levels, sorted(levels), levels)
            self.assertIn(1, levels)
            self.assertIn(2, levels)
            self.assertTrue(compared)
            self.assertTrue(body["frozen"])
            self.assertEqual([a["kind"] for a in body["alerts"]][:1], ["drift_freeze"])
            events = [e["what"] for e in body["events"]]
            self.assertIn("level 0 -> 1", events)
            self.assertIn("level 1 -> 2", events)
            self.assertIn("retrain hook started", events)
            self.assertIn("frozen: every decision takes the fallback path", events)
            self.assertLess(events.index("level 1 -> 2"), events.index("retrain hook started"))
            self.assertEqual(body["retrain"]["runs"], 1)

            # The hook ran once, at level 2, for this model (bounded wait for the child).
            deadline = time.monotonic() + WAIT_S
            while not read_text(hook).endswith("\n"):
                self.assertLess(time.monotonic(), deadline, "retrain hook did not write")
                time.sleep(0.05)
            with open(hook) as f:
                self.assertEqual(f.read(), "2 drifty\n")

            # Frozen: every decision takes the fallback path, saying why.
            paths, reasons = self.send(server, DATA.shifted[shifted_sent:shifted_sent + 20])
            self.assertEqual(paths, {"fallback": 20})
            self.assertIn("DRIFT_FREEZE", reasons)

            # An operator clears it: admin role only.
            status, body = server.json("POST", "/v1/drift:clear")
            self.assertEqual(status, 200, body)
            self.assertEqual(body, {"cleared": True, "by": "dev", "level": 0, "frozen": False})
            status, body = server.json("GET", "/v1/drift")
            self.assertFalse(body["frozen"])
            self.assertEqual(body["level"], 0)
            self.assertEqual(body["alerts"], [])
            self.assertIn("cleared by dev", [e["what"] for e in body["events"]])
            paths, _ = self.send(server, [dict(r, transaction_id="AFTER-" + r["transaction_id"])
                                          for r in DATA.train[:20]])
            self.assertEqual(paths, {"model": 20})

        # The clear is on the journal's record, with who did it.
        out = run("audit", "export", "--data-dir", os.path.join(data_dir, "journal"))
        events = [r for r in map(json.loads, out.splitlines()) if r["kind"] == "admin_event"]
        clears = [e for e in events if e["action"] == "drift.clear"]
        self.assertEqual(len(clears), 1, events)
        self.assertEqual(clears[0]["object"], "drifty/1")
        self.assertEqual(clears[0]["principal"], "dev")
        details = json.loads(clears[0]["details"])
        self.assertEqual(details["level"], 3)
        self.assertTrue(details["frozen"])

    def train_csv(self):
        path = DATA.path("train.csv")
        if not os.path.exists(path):
            write_csv(path, DATA.header, DATA.train)
        return path


class ActivatedModelTest(unittest.TestCase):
    def test_the_model_activated_through_the_registry_is_watched(self):
        # Configured: no model at all; then one is uploaded with its reference and activated.
        conf = config(DATA.model, DATA.path("unused-hook.txt")).replace(
            f'path = "{DATA.model}/model.json"', 'path = ""')
        with VerdictProcess(config=conf) as server:
            status, body = server.json("GET", "/v1/drift")
            self.assertEqual(status, 404, body)
            upload = {"name": "fresh", "version": "7",
                      "model": read_text(os.path.join(DATA.model, "model.json")),
                      "reference": json.loads(read_text(os.path.join(DATA.model,
                                                                     "reference.json")))}
            status, body = server.json("POST", "/v1/models", upload)
            self.assertEqual(status, 201, body)
            status, body = server.json("POST", "/v1/models/fresh/7:activate",
                                       {"mode": "primary"})
            self.assertEqual(status, 200, body)
            rows = [dict(r, transaction_id="ACT-" + r["transaction_id"])
                    for r in DATA.train[:300]]
            paths, _ = LiveDriftTest.send(self, server, rows)
            self.assertEqual(paths, {"model": 300})
            body = LiveDriftTest.evaluated(self, server, 300)
            self.assertEqual(body["model"], {"name": "fresh", "version": "7"})
            self.assertEqual(body["windows"][0]["score"]["count"], 300)


    def test_the_configured_model_made_a_tenants_own_is_still_watched(self):
        # The configured model's reference is the file beside it, not a registry upload: a
        # tenant ("dev" here) that makes that model its own primary keeps a monitor.
        with VerdictProcess(config=config(DATA.model, DATA.path("unused-hook-2.txt"))) as server:
            status, body = server.json("POST", "/v1/models/drifty/1:activate",
                                       {"mode": "primary"})
            self.assertEqual(status, 200, body)
            self.assertEqual(body["scope"], "tenant")
            rows = [dict(r, transaction_id="OWN-" + r["transaction_id"])
                    for r in DATA.train[:300]]
            paths, _ = LiveDriftTest.send(self, server, rows)
            self.assertEqual(paths, {"model": 300})
            body = LiveDriftTest.evaluated(self, server, 300)
            self.assertEqual(body["model"], {"name": "drifty", "version": "1"})


class OfflineReportTest(unittest.TestCase):
    def test_html_report_is_self_contained(self):
        path = DATA.path("report-mix.csv")
        write_csv(path, DATA.header, DATA.train + DATA.shifted[:2000])
        html = DATA.path("report.html")
        stats = json.loads(run("drift", "report", "--model", DATA.model, "--input", path,
                               "--out", html, "--json", "--quiet"))
        self.assertEqual(stats["rows"], len(DATA.train) + 2000)
        manifest = json.loads(read_text(os.path.join(DATA.model, "manifest.json")))
        self.assertEqual(stats["model"], {"name": manifest["name"],
                                          "version": manifest["version"]})
        self.assertGreaterEqual(stats["level"], 2)
        self.assertIn("receiver_high_risk_country", stats["drifted_features"])
        with open(html) as f:
            page = f.read()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        for forbidden in ("<script", "src=", "href=", "url(", "@import"):
            self.assertNotIn(forbidden, page)
        # A table row per feature plus the score; a chart for the score and each drifted one.
        self.assertEqual(page.count('<tr class="feature'), len(stats["features"]))
        self.assertEqual(page.count("<svg "), 1 + len(stats["drifted_features"]))

    def test_bad_arguments_are_refused_clearly(self):
        out = subprocess.run([BINARY, "drift", "report", "--model", DATA.model, "--input",
                              DATA.path("missing.csv"), "--json"],
                             capture_output=True, text=True, timeout=60)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("missing.csv", out.stderr)
        out = subprocess.run([BINARY, "drift", "report", "--model", DATA.tmp.name, "--input",
                              DATA.sim, "--json"], capture_output=True, text=True, timeout=60)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("manifest.json", out.stderr)


class SciPyCrossCheckTest(unittest.TestCase):
    """Our exact KS, Wasserstein-1 and binned Jensen-Shannon against SciPy's, on the feature
    values `verdict features` computes and the reference sample of reference.json."""

    def test_statistics_match_scipy(self):
        try:
            import numpy as np
            from scipy import stats
            from scipy.spatial import distance
        except ImportError as e:  # scripts/setup installs python3-scipy
            self.fail(f"python3-scipy is required for this cross-check: {e}")
        path = DATA.path("scipy-mix.csv")
        write_csv(path, DATA.header, DATA.train[-3000:] + DATA.shifted[:1000])
        report = json.loads(run("drift", "report", "--model", DATA.model, "--input", path,
                                "--json", "--quiet"))
        matrix = DATA.path("features.csv")
        run("features", "--input", path, "--out", matrix)
        with open(matrix, newline="") as f:
            columns = list(csv.DictReader(f))
        with open(os.path.join(DATA.model, "reference.json")) as f:
            reference = {v["name"]: v for v in json.load(f)["features"]}
        checked = 0
        for name in ("amount", "sender_out_count_24h", "receiver_high_risk_country",
                     "sender_account_age_days", "receiver_in_sum_7d"):
            ref = reference[name]
            values = np.array([float(r[name]) for r in columns if r[name] not in ("", "nan")])
            # As the model sees them and as the reference was built: at float precision.
            values = values[~np.isnan(values)].astype(np.float32).astype(np.float64)
            ours = report["features"][name]
            self.assertEqual(ours["count"], len(values), name)
            sample = np.array(ref["sample"])
            ks = stats.ks_2samp(sample, values)
            self.assertAlmostEqual(ours["ks"], ks.statistic, places=12, msg=name)
            scale = np.percentile(sample, 75) - np.percentile(sample, 25)
            if scale <= 0:
                scale = sample.max() - sample.min()
            if scale <= 0:
                scale = 1.0
            w1 = stats.wasserstein_distance(sample, values) / scale
            self.assertAlmostEqual(ours["wasserstein"], w1, delta=1e-9 * max(1.0, w1), msg=name)
            edges = ref["edges"]
            k = len(edges) - 1
            bins = np.searchsorted(np.asarray(edges[1:k]), values, side="right").clip(0, k - 1)
            current = np.bincount(bins, minlength=k)
            js = distance.jensenshannon(np.asarray(ref["counts"], float), current, base=2)
            self.assertAlmostEqual(ours["js"], float(js), places=9, msg=name)
            checked += 1
        self.assertEqual(checked, 5)


if __name__ == "__main__":
    unittest.main()
