"""The monitoring files under deploy/ against the real tools (docs/operations.md): the alerting
rules pass `promtool check rules` and their unit tests (`promtool test rules`), and a real
Prometheus scraping a running engine loads every rule and evaluates it without error over the
engine's series; every series the Grafana dashboard queries is one the engine exports, and
/metrics carries the process_* series and verdict_build_info."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict_process import (SOURCE_DIR, VerdictProcess, free_port,  # noqa: E402
                             shipped_config_text, transaction)

DEPLOY = os.path.join(SOURCE_DIR, "deploy")
RULES = os.path.join(DEPLOY, "prometheus", "alerts.yml")
DASHBOARD = os.path.join(DEPLOY, "grafana", "verdict-dashboard.json")


def dashboard_metric_names():
    with open(DASHBOARD) as f:
        dashboard = json.load(f)
    names = set()
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            names.update(re.findall(r"\b((?:verdict|process)_[a-z0-9_]+)", target["expr"]))
    return names


# Series the engine creates at their first event (a tenant's first rate-limit refusal).
CREATED_ON_FIRST_EVENT = {"verdict_sched_rate_limited_total"}


class PrometheusFilesTest(unittest.TestCase):
    def test_rules_check_and_their_unit_tests_pass(self):
        out = subprocess.run(["promtool", "check", "rules", RULES], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        out = subprocess.run(["promtool", "test", "rules", "alerts_test.yml"],
                             cwd=os.path.dirname(RULES), capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


class PrometheusScrapeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-prometheus-")
        self.prometheus = None

    def tearDown(self):
        if self.prometheus is not None:
            self.prometheus.terminate()
            try:
                self.prometheus.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.prometheus.kill()
                self.prometheus.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def api(self, port, path, **params):
        url = f"http://127.0.0.1:{port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=10) as answer:
            body = json.load(answer)
        self.assertEqual(body["status"], "success", body)
        return body["data"]

    def wait_for(self, what, check, timeout_s=90):
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                found = check()
            except OSError:
                found = None
            if found:
                return found
            if time.monotonic() > deadline:
                self.fail(f"timed out waiting for {what}")
            time.sleep(0.5)

    def test_a_real_prometheus_scrapes_the_engine_and_evaluates_every_rule(self):
        with VerdictProcess(config=shipped_config_text()) as engine:
            for i in range(20):
                status, body = engine.json("POST", "/v1/decisions", transaction(f"prom-{i}"))
                self.assertEqual(status, 200, body)
            status, _, raw = engine.request("GET", "/metrics")
            exported = raw.decode()
            for series in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                           "process_open_fds", "process_max_fds", "process_start_time_seconds",
                           "verdict_build_info{version="):
                self.assertIn(series, exported)

            port = free_port()
            config = os.path.join(self.tmp, "prometheus.yml")
            with open(config, "w") as f:
                f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {RULES}
scrape_configs:
  - job_name: verdict
    static_configs:
      - targets: ["127.0.0.1:{engine.port}"]
""")
            log = open(os.path.join(self.tmp, "prometheus.log"), "w")
            self.prometheus = subprocess.Popen(
                ["prometheus", f"--config.file={config}",
                 f"--storage.tsdb.path={os.path.join(self.tmp, 'data')}",
                 f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=log)
            log.close()

            def scraped():
                result = self.api(port, "query", query='up{job="verdict"}')["result"]
                return result and result[0]["value"][1] == "1"
            self.wait_for("the engine scraped", scraped)
            build = self.api(port, "query", query="verdict_build_info")["result"]
            self.assertEqual(len(build), 1)
            self.assertIn("version", build[0]["metric"])

            def evaluated():
                groups = self.api(port, "rules")["groups"]
                rules = [r for g in groups for r in g["rules"]]
                return rules if rules and all(r.get("lastEvaluation", "").startswith("2")
                                              and not r["lastEvaluation"].startswith("0001")
                                              for r in rules) else None
            rules = self.wait_for("every rule evaluated", evaluated)
            self.assertEqual(len(rules), 9)
            for rule in rules:
                self.assertEqual(rule["health"], "ok", rule)
                # A healthy engine: nothing fires.
                self.assertEqual(rule["state"], "inactive", rule)

            names = set(self.api(port, "label/__name__/values"))
            missing = sorted(dashboard_metric_names() - names - CREATED_ON_FIRST_EVENT)
            self.assertEqual(missing, [], "series the dashboard queries that the engine lacks")


if __name__ == "__main__":
    unittest.main()
