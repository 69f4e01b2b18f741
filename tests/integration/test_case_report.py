"""Suspicious transaction reports of cases (issue 44, item 3), against the real binary:
GET /v1/cases/{id}/report?format=goaml|html for an escalated case, the goAML XML validated
against src/reports/goaml_str.xsd with xmllint, the HTML narrative's contents, the refusals
(format, unknown case, tenant wall, role, a case not escalated, missing configuration,
incomplete data), and every export journaled with the SHA-256 of the bytes answered."""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET

import verdict_process as vp

XSD = os.path.join(vp.SOURCE_DIR, "src", "reports", "goaml_str.xsd")
XMLLINT = shutil.which("xmllint") or "/usr/bin/xmllint"

# The deployment's reporting entity lacks rentity_id, which tenant "default" supplies: a
# tenant without its own ("bank-b") cannot export goAML and is told which key is missing.
CONFIG = """
[reports]
institution_name = "Example Bank N.A."
institution_swift = "BANKUS33"
currency_code_local = "USD"
funds_code = "K"
default_transmode_code = "E"
default_indicator = "OTHER"

[reports.reporting_person]
first_name = "Maria"
last_name = "Lopez"
email = "mlro@example.com"
occupation = "MLRO"

[reports.location]
address_type = "B"
address = "1 Main Street"
city = "New York"
country_code = "US"

[reports.transmode_codes]
wire = "EFT"

[reports.indicators]
AMOUNT_THRESHOLD = "LARGE_AMOUNT"

[reports.tenants.default]
rentity_id = 4711
rentity_branch = "Head office"
"""

# What a sender's name may hold: markup characters and non-ASCII text, written as stored.
TRICKY_NAME = "O'Brien & <Sons> \"Ltd\" Müller"


class CaseReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="verdict-report-")
        cls.data_dir = os.path.join(cls.tmp, "var")
        cls.analyst = vp.create_key(cls.data_dir, "default", "scorer", "analyst")
        cls.scorer = vp.create_key(cls.data_dir, "default", "scorer")
        cls.other = vp.create_key(cls.data_dir, "bank-b", "scorer", "analyst")
        cls.engine = vp.VerdictProcess(data_dir=cls.data_dir, insecure_dev=False, config=CONFIG)
        flagged = {
            "rep-escalated": (cls.analyst, {"sender": {"account": "ACC-REP-1", "bank": "BANKUS33",
                                                       "country": "US", "name": TRICKY_NAME},
                                            "remittance": "Zahlung für <Rechnung> 4411"}),
            "rep-open": (cls.analyst, {}),
            "rep-eur": (cls.analyst, {"currency": "EUR"}),
            "rep-b": (cls.other, {}),
        }
        for tx_id, (key, overrides) in flagged.items():
            txn = vp.transaction(tx_id, amount="25000.00", **overrides)
            status, d = cls.engine.json("POST", "/v1/decisions", txn, cls.auth(key))
            assert status == 200 and d["outcome"] == "review", (status, d)
        cls.cases = {}
        deadline = time.monotonic() + 20
        while len(cls.cases) < len(flagged):
            assert time.monotonic() < deadline, "cases did not open"
            for key in (cls.analyst, cls.other):
                _, page = cls.engine.json("GET", "/v1/cases?status=", headers=cls.auth(key))
                for c in page["cases"]:
                    cls.cases[c["transaction_id"]] = c["case_id"]
            time.sleep(0.05)
        for tx_id, key in (("rep-escalated", cls.analyst), ("rep-eur", cls.analyst),
                           ("rep-b", cls.other)):
            cls.escalate(key, cls.cases[tx_id])

    @classmethod
    def tearDownClass(cls):
        cls.engine.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @staticmethod
    def auth(key):
        return {"Authorization": "Bearer " + key["key"]}

    @classmethod
    def escalate(cls, key, case_id):
        for action, body in (("assign", {}),
                             ("dispose", {"disposition": "escalated",
                                          "note": "Funds moved on the same day; see comments."})):
            status, c = cls.engine.json("POST", "/v1/cases/%s:%s" % (case_id, action), body,
                                        cls.auth(key))
            assert status == 200, (action, status, c)

    def report(self, case_id, query, key=None):
        return self.engine.request("GET", "/v1/cases/%s/report%s" % (case_id, query),
                                   headers=self.auth(key or self.analyst))

    def error(self, status, body):
        return status, json.loads(body)["error"]

    def exports_in_journal(self):
        """The reports.export admin events, from `verdict audit export` on the stopped engine
        (started again afterwards on the same data)."""
        self.engine.__exit__(None, None, None)
        run = subprocess.run([vp.BINARY, "audit", "export", "--data-dir",
                              os.path.join(self.data_dir, "journal")],
                             capture_output=True, text=True, timeout=60)
        type(self).engine = vp.VerdictProcess(data_dir=self.data_dir, insecure_dev=False,
                                              config=CONFIG)
        self.assertEqual(run.returncode, 0, run.stderr)
        rows = [json.loads(line) for line in run.stdout.splitlines()]
        return [r for r in rows
                if r.get("kind") == "admin_event" and r.get("action") == "reports.export"]

    def test_goaml_of_an_escalated_case_validates_and_carries_the_transaction(self):
        case_id = self.cases["rep-escalated"]
        status, headers, body = self.report(case_id, "?format=goaml")
        self.assertEqual(status, 200, body)
        self.assertTrue(headers["content-type"].startswith("application/xml"), headers)
        self.assertEqual(headers["x-report-sha256"], hashlib.sha256(body).hexdigest())
        path = os.path.join(self.tmp, "str.xml")
        with open(path, "wb") as f:
            f.write(body)
        lint = subprocess.run([XMLLINT, "--noout", "--schema", XSD, path],
                              capture_output=True, text=True)
        self.assertEqual(lint.returncode, 0, lint.stderr + body.decode())
        root = ET.fromstring(body)
        self.assertEqual(root.tag, "report")
        self.assertEqual(root.findtext("rentity_id"), "4711")
        self.assertEqual(root.findtext("rentity_branch"), "Head office")
        self.assertEqual(root.findtext("report_code"), "STR")
        self.assertEqual(root.findtext("entity_reference"), case_id)
        self.assertEqual(root.findtext("currency_code_local"), "USD")
        self.assertEqual(root.findtext("reporting_person/last_name"), "Lopez")
        t = root.find("transaction")
        self.assertEqual(t.findtext("transactionnumber"), "rep-escalated")
        self.assertEqual(t.findtext("amount_local"), "25000.00")
        self.assertEqual(t.findtext("date_transaction"), "2026-12-02T10:15:30")
        self.assertEqual(t.findtext("transmode_code"), "EFT")  # channel "wire", mapped
        self.assertEqual(t.findtext("transaction_description"), "Zahlung für <Rechnung> 4411")
        sender = t.find("t_from/from_account")
        self.assertEqual(sender.findtext("account"), "ACC-REP-1")
        self.assertEqual(sender.findtext("account_name"), TRICKY_NAME)
        self.assertEqual(sender.findtext("institution_name"), "Example Bank N.A.")  # own BIC
        self.assertEqual(t.findtext("t_from/from_country"), "US")
        receiver = t.find("t_to/to_account")
        self.assertEqual(receiver.findtext("swift"), "BANKGB22")
        self.assertIsNone(receiver.find("institution_name"))
        self.assertEqual(t.findtext("t_to/to_country"), "GB")
        self.assertIn("AMOUNT_THRESHOLD", root.findtext("reason"))
        self.assertIn("Funds moved on the same day", root.findtext("reason"))
        self.assertEqual([i.text for i in root.find("report_indicators")], ["LARGE_AMOUNT"])
        # The journal record's hash links the filing to the journal.
        _, view = self.engine.json("GET", "/v1/cases/" + case_id, headers=self.auth(self.analyst))
        self.assertIn(view["proof"]["record_hash"], t.findtext("comments"))

    def test_html_narrative_is_printable_and_carries_the_case(self):
        case_id = self.cases["rep-escalated"]
        status, headers, body = self.report(case_id, "?format=html")
        self.assertEqual(status, 200, body)
        self.assertTrue(headers["content-type"].startswith("text/html"), headers)
        self.assertIn("default-src 'none'", headers["content-security-policy"])
        html = body.decode()
        self.assertIn("<h1>Suspicious transaction report</h1>", html)
        self.assertIn("@media print", html)
        self.assertIn("break-before: page", html)
        self.assertNotIn("<script", html.lower())
        self.assertNotIn("Not a suspicious transaction report", html)
        # Transaction, parties (escaped as text), reasons, analyst's work.
        for text in ("rep-escalated", "25000.00 USD", "ACC-REP-1", "ACC-2", "Acme Ltd",
                     "O&#39;Brien &amp; &lt;Sons&gt; &quot;Ltd&quot; Müller", "AMOUNT_THRESHOLD",
                     "escalated", "Funds moved on the same day", "Example Bank N.A."):
            self.assertIn(text, html)
        self.assertNotIn(TRICKY_NAME, html)  # never as raw markup
        # The journal proof: the record's hash, verified inclusion in a tree.
        _, view = self.engine.json("GET", "/v1/cases/" + case_id, headers=self.auth(self.analyst))
        self.assertIn("Journal proof", html)
        self.assertIn(view["proof"]["record_hash"], html)
        self.assertIn("<th>Inclusion proof verified</th><td>yes</td>", html)
        self.assertIn(view["decision"]["decision_id"], html)

    def test_every_export_is_journaled_with_the_digest_of_its_bytes(self):
        case_id = self.cases["rep-escalated"]
        produced = {}
        for fmt in ("goaml", "html"):
            status, _, body = self.report(case_id, "?format=" + fmt)
            self.assertEqual(status, 200, body)
            produced[hashlib.sha256(body).hexdigest()] = fmt
        # A refused export is not one.
        status, _, _ = self.report(self.cases["rep-open"], "?format=goaml")
        self.assertEqual(status, 409)
        exports = self.exports_in_journal()
        mine = {}
        for e in exports:
            details = e["details"] if isinstance(e["details"], dict) else json.loads(e["details"])
            mine[details["sha256"]] = (e, details)
        for digest, fmt in produced.items():
            self.assertIn(digest, mine, exports)
            event, details = mine[digest]
            self.assertEqual(event["object"], case_id)
            self.assertEqual(event["principal"], "key:" + self.analyst["id"])
            self.assertEqual(details["format"], fmt)
            self.assertEqual(details["transaction_id"], "rep-escalated")
        refused = [e for e in exports if e["object"] == self.cases["rep-open"] and
                   '"goaml"' in json.dumps(e["details"])]
        self.assertEqual(refused, [])

    def test_format_is_required_and_checked(self):
        case_id = self.cases["rep-escalated"]
        for query in ("", "?format=pdf", "?format=", "?format=GOAML"):
            status, err = self.error(*self.report(case_id, query)[::2])
            self.assertEqual(status, 400, query)
            self.assertEqual(err["field"], "format", query)
        status, err = self.error(*self.report(case_id, "?format=html&lang=de")[::2])
        self.assertEqual((status, err["field"]), (400, "lang"))

    def test_unknown_and_foreign_cases_are_not_found_and_roles_hold(self):
        status, err = self.error(*self.report("0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11",
                                              "?format=html")[::2])
        self.assertEqual(status, 404)
        # Another tenant's analyst sees no such case (I7).
        status, _, _ = self.report(self.cases["rep-escalated"], "?format=html", self.other)
        self.assertEqual(status, 404)
        status, _, _ = self.report(self.cases["rep-b"], "?format=html", self.analyst)
        self.assertEqual(status, 404)
        status, _, _ = self.report(self.cases["rep-escalated"], "?format=html", self.scorer)
        self.assertEqual(status, 403)
        status, _, _ = self.engine.request("GET", "/v1/cases/%s/report?format=html"
                                           % self.cases["rep-escalated"])
        self.assertEqual(status, 401)

    def test_a_case_not_escalated_has_a_narrative_but_no_goaml(self):
        case_id = self.cases["rep-open"]
        status, err = self.error(*self.report(case_id, "?format=goaml")[::2])
        self.assertEqual(status, 409)
        self.assertEqual(err["code"], "case_not_escalated")
        self.assertEqual(err["field"], "format")
        status, _, body = self.report(case_id, "?format=html")
        self.assertEqual(status, 200)
        html = body.decode()
        self.assertIn("<h1>Case narrative</h1>", html)
        self.assertIn("Not a suspicious transaction report", html)

    def test_missing_configuration_is_named_and_incomplete_data_refused(self):
        # bank-b has no rentity_id of its own and the deployment's [reports] none either.
        status, err = self.error(*self.report(self.cases["rep-b"], "?format=goaml",
                                              self.other)[::2])
        self.assertEqual(status, 409)
        self.assertEqual(err["code"], "report_not_configured")
        self.assertEqual(err["field"], "reports.rentity_id")
        self.assertIn("[reports.tenants.bank-b]", err["message"])
        # goAML's amounts are in the local currency; the engine has no rate to convert EUR.
        status, err = self.error(*self.report(self.cases["rep-eur"], "?format=goaml")[::2])
        self.assertEqual(status, 409)
        self.assertEqual(err["code"], "report_incomplete")
        self.assertEqual(err["field"], "transaction.currency")

    def test_the_models_contributions_are_in_the_narrative(self):
        """With the shipped configuration (the demo model decides), the narrative lists the
        decision's feature contributions as the decision answered them."""
        config = vp.shipped_config_text() + CONFIG.replace("[reports.tenants.default]",
                                                           "[reports.tenants.dev]")
        with vp.VerdictProcess(config=config) as engine:
            txn = vp.transaction("rep-model", receiver={"account": "ACC-BLOCKED-1",
                                                        "bank": "BANKGB22", "country": "GB",
                                                        "name": "Acme Ltd"})
            status, d = engine.json("POST", "/v1/decisions", txn)
            self.assertEqual((status, d["outcome"], d["path"]), (200, "block", "model"), d)
            self.assertTrue(d["contributions"], d)
            deadline = time.monotonic() + 20
            while True:
                _, page = engine.json("GET", "/v1/cases?status=")
                if page["cases"]:
                    break
                self.assertLess(time.monotonic(), deadline, "no case opened")
                time.sleep(0.05)
            case_id = page["cases"][0]["case_id"]
            status, _, body = engine.request("GET", "/v1/cases/%s/report?format=html" % case_id)
            self.assertEqual(status, 200, body)
            html = body.decode()
            for c in d["contributions"]:
                self.assertIn("<td>%s</td><td class=\"num\">%.6g</td><td class=\"num\">%+.4f</td>"
                              % (c["feature"], c["value"], c["contribution"]), html)
            self.assertIn("<th>Model score</th><td>%.4f</td>" % d["score"], html)

    def test_a_bad_reports_table_stops_the_start_naming_the_key(self):
        for text, key in (("[reports]\nrentity_idd = 1\n", "reports.rentity_idd"),
                          ("[reports]\ncurrency_code_local = \"XYZ\"\n",
                           "reports.currency_code_local"),
                          ("[reports.tenants.acme.location]\ncountry_code = \"usa\"\n",
                           "reports.tenants.acme.location.country_code")):
            with self.assertRaises(RuntimeError) as raised:
                vp.VerdictProcess(config=text)
            self.assertIn(key, str(raised.exception))


if __name__ == "__main__":
    unittest.main()
