"""MT messages as they are, through the API of the real binary with the shipped policy: an
MT103 without :13C: is decided at the time it was received (not at midnight of its value date),
one with :13C: at the time it carries; the parties' countries come from the BIC or IBAN so that
the corridor rule fires; message.id is :20:; and replaying the journal reproduces the decisions
with the timestamps they used."""
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import BINARY, SOURCE_DIR, VerdictProcess  # noqa: E402

CONFIG = os.path.abspath(os.path.join(SOURCE_DIR, "config", "verdict.toml"))
MT = {"Content-Type": "text/plain; format=swift-mt"}
CORPUS = os.path.join(os.path.dirname(__file__), "..", "fuzz", "corpus", "swift_mt")

# The corpus MT103 with its beneficiary's bank in Iran (57A) and a beneficiary account that is
# no IBAN: only the BIC says where the money goes.
with open(os.path.join(CORPUS, "mt103.fin"), "rb") as f:
    MT103 = (f.read().replace(b"\r\n", b"\n").replace(b":57A:NWBKGB2L", b":57A:BKIDIRTH")
             .replace(b":59F:/GB82WEST12345698765432\n1/ACME LTD\n2/1 HIGH STREET\n3/GB/LONDON\n",
                      b":59:/998877\nACME LTD\n"))
assert b"BKIDIRTH" in MT103 and b":59:/998877" in MT103, "corpus sample changed"


def utc_micros(text):
    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return int(when.replace(tzinfo=datetime.timezone.utc).timestamp() * 1_000_000)


def now_micros():
    return int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1_000_000)


class MtMessagesAsTheyAre(unittest.TestCase):
    def test_time_of_receipt_countries_and_message_id(self):
        data_dir = tempfile.mkdtemp(prefix="verdict-mt-")  # read after the engine stops
        self.addCleanup(shutil.rmtree, data_dir, True)
        with VerdictProcess(extra_args=["--config", CONFIG], data_dir=data_dir) as server:
            before = now_micros()
            status, body = server.json("POST", "/v1/decisions", MT103, MT)
            after = now_micros()
            self.assertEqual(status, 200, body)
            self.assertEqual(body["message"], {"type": "MT103", "id": "REF-4411",
                                               "transactions": 1})
            received = body["decisions"][0]
            self.assertIn("HIGH_RISK_CORRIDOR", {r["code"] for r in received["reasons"]}, received)

            timed = (MT103.replace(b":20:REF-4411\n", b":20:REF-4412\n:13C:/SNDTIME/1245+0100\n")
                     .replace(b"8a562c67-ca16-48ba-b074-65581be6f011",
                              b"8a562c67-ca16-48ba-b074-65581be6f012"))
            status, body = server.json("POST", "/v1/decisions", timed, MT)
            self.assertEqual(status, 200, body)
            self.assertEqual(body["message"]["id"], "REF-4412")
            sent = body["decisions"][0]
            self.assertIn("decision_id", sent, sent)

        def journaled(decision):
            out = subprocess.run([BINARY, "audit", "show", "--json", "--data-dir", data_dir,
                                  decision["decision_id"]],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            return json.loads(out.stdout.splitlines()[0])

        record = journaled(received)
        stamped = utc_micros(record["timestamp"])
        self.assertTrue(before <= stamped <= after, (before, record["timestamp"], after))
        self.assertEqual(json.loads(record["canonical_input"])["receiver"]["country"], "IR")
        self.assertEqual(journaled(sent)["timestamp"], "2026-12-02T11:45:00.000000Z")

        # The hour of day the features saw is the stamped one, not midnight of the value date.
        hour = record["features"][9]  # hour_of_day (features-3)
        self.assertEqual(hour, datetime.datetime.fromtimestamp(
            stamped / 1e6, datetime.timezone.utc).hour)

        out = subprocess.run([BINARY, "audit", "replay", "--data-dir", data_dir],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
