"""Continuous screening through the real binary (issue 44 item 4, docs/policy.md "Continuous
screening"): decisions for "Ivan Petrov" are allowed under version 1 of a tenant's
OpenSanctions list; version 2 adds that name as an alias of a listed person, and the engine
re-screens the tenant's recent parties in the background and opens one case, on the party's
most recent decision, naming the entry and the alias. Importing version 2 again, dropping and
re-adding the alias, or restarting opens no second case; another tenant's parties are never
re-screened by this tenant's list; the run shows in GET /v1/lists and in the metrics."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

import verdict_process as vp

POLICY = """policy "rescreen-it" version "1"
list sanctions = names from opensanctions "targets.simple.csv"
rule sanctioned_receiver {
  description "receiver on the sanctions list"
  when watchlist_match(txn.receiver.name, @sanctions) >= 0.92
  then block
  reason "SANCTIONS"
}
rule sanctioned_sender {
  description "sender on the sanctions list"
  when watchlist_match(txn.sender.name, @sanctions) >= 0.92
  then block
  reason "SANCTIONS"
}
"""

HEADER = ("id,schema,name,aliases,birth_date,countries,addresses,identifiers,sanctions,phones,"
          "emails,dataset,first_seen,last_seen,last_change\n")


def targets(ivan_aliases):
    return (HEADER +
            'NK-1,Person,Ivan Petrovich Sidorov,"%s",1961-04-02,ru,,,,,,Test List,,,\n'
            % ivan_aliases +
            "NK-2,Company,Golden Lantern Trading Co. Ltd.,,,cn,,,,,,Test List,,,\n")


V1 = targets("")
V2 = targets("Ivan Petrov;I. P. Sidorov")
V3 = targets("I. P. Sidorov")

RESCREEN = "SANCTIONS_RESCREEN"


class RescreenTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="verdict-rescreen-")
        self.data_dir = os.path.join(self.tmp, "var")
        self.acme = vp.create_key(self.data_dir, "acme", "scorer", "analyst", "admin")
        self.other = vp.create_key(self.data_dir, "other", "scorer", "analyst", "admin")
        self.engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False)

    def tearDown(self):
        self.engine.__exit__(None, None, None)
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def auth(key):
        return {"Authorization": "Bearer " + key["key"]}

    def call(self, key, method, path, body=None, want=200):
        status, answer = self.engine.json(method, path, body, headers=self.auth(key))
        self.assertEqual(status, want, answer)
        return answer

    def decide(self, key, tx_id, sender, receiver):
        txn = vp.transaction(
            tx_id, amount="120.00",
            sender={"account": "S-" + tx_id, "bank": "BANKUS33", "country": "US", "name": sender},
            receiver={"account": "R-" + tx_id, "bank": "BANKGB22", "country": "GB",
                      "name": receiver})
        return self.call(key, "POST", "/v1/decisions", txn)

    def import_list(self, key, tenant, version, text):
        return self.call(key, "POST", "/v1/lists/import", {
            "tenant": tenant, "list": "sanctions", "format": "opensanctions", "version": version,
            "files": [text]})

    def rescreen(self, key):
        return self.call(key, "GET", "/v1/lists")["rescreen"]

    def wait_for_run_after(self, key, previous_run):
        deadline = time.monotonic() + 30
        while True:
            run = self.rescreen(key)
            if run is not None and run["run"] != previous_run and run["state"] in (
                    "done", "failed"):
                return run
            self.assertLess(time.monotonic(), deadline, "the re-screen did not finish: %s" % run)
            time.sleep(0.05)

    def rescreen_cases(self, key):
        page = self.call(key, "GET", "/v1/cases?limit=500&typology=" + RESCREEN)
        return page["cases"]

    def test_a_new_alias_opens_one_case_on_the_partys_latest_decision(self):
        for key, tenant in ((self.acme, "acme"), (self.other, "other")):
            self.call(key, "POST", "/v1/policy/ingest",
                      {"policy": POLICY, "files": {"targets.simple.csv": V1}})
        # The first run of each tenant (its list is new to it) finds no decision yet.
        first = self.wait_for_run_after(self.acme, None)
        self.assertEqual(first["state"], "done", first)
        self.assertEqual(first["lists"][0]["version"], "policy-1")
        self.assertEqual(first["hits"], 0)
        self.wait_for_run_after(self.other, None)

        # Under version 1, Ivan Petrov is not listed (0.77 against the primary name).
        self.assertEqual(self.decide(self.acme, "a-1", "Ann Lee", "Ivan Petrov")["outcome"],
                         "allow")
        self.assertEqual(self.decide(self.acme, "a-2", "PETROV, Ivan", "Bo Chan")["outcome"],
                         "allow")
        self.assertEqual(self.decide(self.acme, "a-3", "Ann Lee", "Olga Ivanova")["outcome"],
                         "allow")
        self.assertEqual(self.decide(self.other, "o-1", "Ann Lee", "Ivan Petrov")["outcome"],
                         "allow")
        self.assertEqual(self.rescreen_cases(self.acme), [])

        # Version 2 lists "Ivan Petrov" as an alias of NK-1.
        self.import_list(self.acme, "acme", "2026-12-07", V2)
        run = self.wait_for_run_after(self.acme, first["run"])
        self.assertEqual(run["state"], "done", run)
        self.assertEqual(run["lists"],
                         [{"list": "sanctions", "version": "2026-12-07", "added_names": 2}])
        # Ann Lee, Ivan Petrov (both spellings are one party), Bo Chan, Olga Ivanova.
        self.assertEqual(run["parties"], 4, run)
        self.assertEqual(run["hits"], 1, run)
        self.assertEqual(run["cases_opened"], 1, run)
        cases = self.rescreen_cases(self.acme)
        self.assertEqual(len(cases), 1, cases)
        view = self.call(self.acme, "GET", "/v1/cases/" + cases[0]["case_id"])
        case = view["case"]
        self.assertEqual(view["decision"]["outcome"], "allow")
        # The party's most recent decision, the entry, the alias and its primary name.
        self.assertEqual(case["transaction_id"], "a-2")
        self.assertEqual(case["outcome"], "review")
        self.assertEqual(case["typologies"], [RESCREEN])
        message = case["reasons"][0]["message"]
        self.assertIn("sender 'PETROV, Ivan' matches 'Ivan Petrov'", message)
        self.assertIn("(alias alias of 'Ivan Petrovich Sidorov') [NK-1]", message)
        self.assertIn("@sanctions version 2026-12-07:", message)
        # Its printable narrative, like any case's (its reasons table shows the decision's own
        # reasons, not yet the re-screen hit: the typology row names it).
        status, _, html = self.engine.request(
            "GET", "/v1/cases/%s/report?format=html" % case["case_id"],
            headers=self.auth(self.acme))
        self.assertEqual(status, 200, html)
        self.assertIn("<td>" + RESCREEN + "</td>", html.decode())
        # The other tenant's Ivan Petrov is not this tenant's to re-screen.
        self.assertEqual(self.rescreen_cases(self.other), [])

        # Version 2 again: nothing new, no run, no case.
        self.import_list(self.acme, "acme", "2026-12-07b", V2)
        self.assertEqual(self.rescreen(self.acme)["run"], run["run"])
        # The alias dropped, then back: a new run hits it again, but its case exists.
        self.import_list(self.acme, "acme", "2026-12-08", V3)
        self.import_list(self.acme, "acme", "2026-12-09", V2)
        again = self.wait_for_run_after(self.acme, run["run"])
        self.assertEqual((again["hits"], again["cases_opened"]), (1, 0), again)
        self.assertEqual(len(self.rescreen_cases(self.acme)), 1)

        status, _, metrics = self.engine.request("GET", "/metrics", headers=self.auth(self.acme))
        self.assertEqual(status, 200)
        text = metrics.decode()
        self.assertIn('verdict_rescreen_hits_total{tenant="acme"} 2', text)
        self.assertIn('verdict_rescreen_cases_opened_total{tenant="acme"} 1', text)

        # Journaled: each run's start and end, and the one case's opening with the hit.
        self.engine.__exit__(None, None, None)
        export = subprocess.run([vp.BINARY, "audit", "export", "--data-dir",
                                 os.path.join(self.data_dir, "journal")],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(export.returncode, 0, export.stderr)
        events = [row for row in map(json.loads, export.stdout.splitlines())
                  if row.get("kind") == "admin_event" and row.get("tenant") == "acme"]
        opened = [e for e in events if e["action"] == "cases.open_rescreen"]
        self.assertEqual(len(opened), 1, opened)
        self.assertIn("Ivan Petrov", json.dumps(opened[0]))
        runs = [e for e in events if e["action"] == "lists.rescreen"]
        self.assertEqual(len(runs), 6, runs)  # three runs: started and done each

        # A restart loads the case (checked against its journaled opening) and re-runs nothing.
        self.engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False)
        self.assertEqual(self.rescreen(self.acme)["run"], again["run"])
        self.assertEqual(self.rescreen(self.acme)["state"], "done")
        self.assertEqual([c["case_id"] for c in self.rescreen_cases(self.acme)],
                         [cases[0]["case_id"]])

    def test_unknown_screening_key_is_refused_at_start(self):
        config = vp.shipped_config_text() + "\n[screening]\nrescreen_dayz = 3\n"
        with self.assertRaises(RuntimeError) as refused:
            vp.VerdictProcess(data_dir=os.path.join(self.tmp, "var2"), config=config)
        self.assertIn("screening.rescreen_dayz", str(refused.exception))


if __name__ == "__main__":
    unittest.main()
