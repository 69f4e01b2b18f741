"""A first run as a new user makes it, from a working directory of their own: the shipped
configuration given by its path serves with its model and policy; --list-routes and --help touch
no data directory; sim works for a small population over a few days; replay makes its work
directory; model info reads a model directory; keys list shows roles and revocations; audit show
prints named features, one per line, unless --json."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, SOURCE_DIR, VerdictProcess, transaction  # noqa: E402

VERDICT = os.path.abspath(BINARY)
CONFIG = os.path.abspath(os.path.join(SOURCE_DIR, "config", "verdict.toml"))
MODEL_DIR = os.path.abspath(os.path.join(SOURCE_DIR, "models", "demo"))


class FirstRun(unittest.TestCase):
    def setUp(self):
        # The user's own folder, far from the repository: every relative path is tried here.
        self.home = tempfile.mkdtemp(prefix="verdict-first-run-")
        self.previous_cwd = os.getcwd()
        os.chdir(self.home)

    def tearDown(self):
        os.chdir(self.previous_cwd)
        shutil.rmtree(self.home, ignore_errors=True)

    def verdict(self, *args, check=True):
        out = subprocess.run([VERDICT, *args], capture_output=True, text=True, timeout=300,
                             cwd=self.home)
        if check:
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out

    def test_serve_with_the_shipped_config_from_another_directory(self):
        data_dir = os.path.join(self.home, "var")
        with VerdictProcess(extra_args=["--config", CONFIG], data_dir=data_dir) as server:
            status, d = server.json("POST", "/v1/decisions", transaction(
                "first-1", amount="12500.00", receiver={"account": "ACC-2", "country": "IR"}))
        self.assertEqual(status, 200, d)
        self.assertEqual(d["model"]["name"], "demo")  # ../models/demo from config/
        self.assertIn("HIGH_RISK_CORRIDOR", {r["code"] for r in d["reasons"]})  # policy/
        self.assertTrue(os.path.isdir(os.path.join(data_dir, "journal")))

    def test_list_routes_and_help_touch_no_data_directory(self):
        missing = os.path.join(self.home, "not-yet")
        out = self.verdict("serve", "--list-routes", "--config", CONFIG, "--data-dir", missing)
        self.assertIn("POST /v1/decisions scorer", out.stdout.splitlines())
        self.verdict("serve", "--help", "--data-dir", missing)
        self.verdict("serve", "--list-routes", "--insecure-dev")  # default ./var
        self.assertFalse(os.path.exists(missing))
        self.assertFalse(os.path.exists(os.path.join(self.home, "var")))

    def test_sim_with_a_small_population_and_few_days(self):
        out = self.verdict("sim", "--accounts", "20", "--days", "2", "--out", "small.csv",
                           "--json")
        summary = json.loads(out.stdout)
        self.assertGreater(summary["transactions"], 0)
        self.assertIn("sim: warning: typology dormant_activation skipped", out.stderr)
        self.assertTrue(any(w.startswith("typology fan_in ") for w in summary["warnings"]),
                        summary["warnings"])
        with open("small.csv") as f:
            self.assertGreater(len(f.read().splitlines()), 1)

    def test_the_demo_population_is_fixed(self):
        out = self.verdict("sim", "--demo-population", "--out", "demo.csv", "--json")
        summary = json.loads(out.stdout)
        self.assertEqual((summary["accounts"] >= 10000, summary["days"], summary["seed"]),
                         (True, 30, 17))
        with open(os.path.join(self.home, "demo.csv")) as f:
            f.readline()
            self.assertTrue(f.readline().split(",")[1].startswith("2025-12-02T"))
        refused = self.verdict("sim", "--demo-population", "--seed", "3", "--out", "x.csv",
                               check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("--seed", refused.stderr + refused.stdout)

    def test_replay_makes_its_work_directory(self):
        self.verdict("sim", "--accounts", "50", "--days", "2", "--out", "h.csv")
        work = os.path.join(self.home, "scratch", "replay")
        out = self.verdict("replay", "--input", "h.csv", "--config", CONFIG, "--work-dir", work,
                           "--quiet", "--json")
        self.assertGreater(json.loads(out.stdout)["transactions"], 0, out.stdout)
        self.assertTrue(os.path.isdir(work))
        self.assertEqual(os.listdir(work), [])  # its scratch engine is gone

    def test_model_info_on_a_model_directory(self):
        out = self.verdict("model", "info", MODEL_DIR)
        self.assertIn("name: demo", out.stdout.splitlines())
        self.assertIn("trees: 200", out.stdout.splitlines())
        info = json.loads(self.verdict("model", "info", "--model", MODEL_DIR, "--json").stdout)
        self.assertEqual((info["name"], info["version"]), ("demo", "3"))
        bad = self.verdict("model", "info", os.path.join(self.home, "nothing"), check=False)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("no such model directory or file", bad.stderr)

    def test_keys_list_shows_roles_and_revocations(self):
        data_dir = os.path.join(self.home, "keys-var")
        created = [json.loads(self.verdict("keys", "create", "--data-dir", data_dir, "--tenant",
                                           "acme", *roles, "--json").stdout)["id"]
                   for roles in (["--role", "admin", "--role", "scorer"], ["--role", "auditor"])]
        self.verdict("keys", "revoke", "--data-dir", data_dir, "--id", created[1])
        lines = self.verdict("keys", "list", "--data-dir", data_dir).stdout.splitlines()
        self.assertEqual(lines[0].split(), ["ID", "TENANT", "PRINCIPAL", "ROLES", "STATUS"])
        rows = {line.split()[0]: line.split() for line in lines[1:]}
        self.assertEqual(rows[created[0]][3:], ["scorer,admin", "active"])
        self.assertEqual(rows[created[1]][3:5], ["auditor", "revoked"])

    def test_audit_show_prints_named_features_unless_json(self):
        data_dir = os.path.join(self.home, "audit-var")
        with VerdictProcess(extra_args=["--config", CONFIG], data_dir=data_dir) as server:
            status, d = server.json("POST", "/v1/decisions", transaction("shown-1"))
            self.assertEqual(status, 200, d)
        lines = self.verdict("audit", "show", "--data-dir", data_dir, "shown-1").stdout.splitlines()
        self.assertIn("amount_usd = 9950", [line.strip() for line in lines])
        features = lines[lines.index("features (features-3):") + 1:]
        self.assertEqual(len(features), 77)
        self.assertTrue(all(" = " in line for line in features), features)
        record = json.loads(self.verdict("audit", "show", "--json", "--data-dir", data_dir,
                                         "shown-1").stdout)
        self.assertEqual(record["decision"]["decision_id"], d["decision_id"])
        self.assertEqual(len(record["features"]), 77)


if __name__ == "__main__":
    unittest.main(verbosity=2)
