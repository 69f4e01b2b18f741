"""The engine with a configured model (issue 3's engine hook): a small XGBoost model trained
here with Debian's python3-xgboost on two real feature names is loaded at start-up; decisions
take the model path with its score, and non-allow decisions carry up to four TreeSHAP
contributions. A model naming a feature the engine lacks is refused at start-up."""
import json
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from verdict_process import VerdictProcess, transaction  # noqa: E402

try:
    import numpy as np
    import xgboost as xgb
except ImportError:  # pragma: no cover - scripts/setup installs both
    xgb = None


def train(path, names):
    rng = random.Random(3)
    rows, labels = [], []
    for _ in range(2000):
        amount = rng.uniform(1, 50000)
        cross = float(rng.random() < 0.5)
        rows.append([amount, cross])
        labels.append(1.0 if amount > 20000 and cross else 0.0)
    dtrain = xgb.DMatrix(np.array(rows), label=np.array(labels), feature_names=names)
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 3, "eta": 0.5,
                         "nthread": 1}, dtrain, num_boost_round=20)
    booster.save_model(path)


@unittest.skipIf(xgb is None, "needs python3-xgboost")
class ModelTest(unittest.TestCase):
    def test_engine_scores_and_explains_with_the_configured_model(self):
        tmp = tempfile.mkdtemp(prefix="verdict-model-")
        path = os.path.join(tmp, "model.json")
        train(path, ["amount_usd", "cross_border"])
        config = '[model]\npath = "%s"\nname = "it"\nversion = "7"\n' % path
        with VerdictProcess(config=config) as server:
            status, high = server.json("POST", "/v1/decisions", transaction(
                "m-high", amount="30000.00"))  # US -> GB: cross-border
            self.assertEqual(status, 200, high)
            self.assertEqual(high["path"], "model")
            self.assertEqual(high["model"]["name"], "it")
            self.assertEqual(high["model"]["version"], "7")
            self.assertEqual(len(high["model"]["sha256"]), 64)
            self.assertGreater(high["score"], 0.9)
            self.assertEqual(high["outcome"], "block")  # above model_block_score 0.95
            features = [c["feature"] for c in high["contributions"]]
            self.assertTrue(1 <= len(features) <= 4, high)
            self.assertIn("amount_usd", features)
            # The journal keeps the explanation that was answered (issue 5's record).
            status, stored = server.json("GET", "/v1/decisions/" + high["decision_id"])
            self.assertEqual(status, 200, stored)
            self.assertEqual(stored["contributions"], high["contributions"])

            status, low = server.json("POST", "/v1/decisions", transaction(
                "m-low", amount="12.00", sender={"account": "ACC-LOW"}))
            self.assertEqual(low["path"], "model")
            self.assertLess(low["score"], 0.5)
            self.assertEqual(low["outcome"], "allow")
            self.assertEqual(low["contributions"], [])  # explanations only for non-allow

        bad = os.path.join(tmp, "bad.json")
        train(bad, ["amount_usd", "no_such_feature"])
        with self.assertRaises(RuntimeError) as ctx:
            VerdictProcess(config='[model]\npath = "%s"\n' % bad)
        self.assertIn("no_such_feature", str(ctx.exception))


if __name__ == "__main__":
    unittest.main(verbosity=2)
