#include "api/decision_json.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(DecisionJsonTest, WritesTheContractShape) {
  Decision d;
  d.decision_id = *Uuid::Parse("0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11");
  d.transaction_id = "tx-0001";
  d.outcome = Outcome::kReview;
  d.score = 0.87;
  d.path = DecisionPath::kModel;
  d.reasons.push_back({"STRUCTURING", "structuring_24h", "4 amounts \"near\" 10,000"});
  d.contributions.push_back({"sender_near_threshold_count_24h", 4, 1.42});
  d.model = {"aml", "3", "abc"};
  d.policy = {"7", "def"};
  d.timings = {12, 3, 9, 1, 310, 340};
  EXPECT_EQ(DecisionToJson(d),
            R"({"decision_id":"0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11","transaction_id":"tx-0001",)"
            R"("outcome":"review","score":0.87,"path":"model","reasons":[{"code":"STRUCTURING",)"
            R"("rule":"structuring_24h","message":"4 amounts \"near\" 10,000"}],)"
            R"("contributions":[{"feature":"sender_near_threshold_count_24h","value":4,)"
            R"("contribution":1.42}],"model":{"name":"aml","version":"3","sha256":"abc"},)"
            R"("policy":{"version":"7","sha256":"def"},"timings_us":{"queue":12,"features":3,)"
            R"("model":9,"policy":1,"journal":310,"total":340}})");
}

TEST(DecisionJsonTest, RiskAnomalyAndItsExplanationWhenTheModelHasThem) {
  Decision d;
  d.decision_id = *Uuid::Parse("0193a7c4-5e1b-7cc2-9f00-3b1f2a9e4d11");
  d.transaction_id = "tx-0002";
  d.outcome = Outcome::kReview;
  d.score = 0.25;
  d.risk = 0.5;
  d.anomaly = 0.75;
  d.anomaly_contributions.push_back({"amount_usd", 9000, 2.5});
  const std::string json = DecisionToJson(d);
  EXPECT_NE(json.find(R"("score":0.25,"risk":0.5,"anomaly":0.75,"path":"model")"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("anomaly_contributions":[{"feature":"amount_usd","value":9000,)"
                      R"("contribution":2.5}],"model":null)"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace verdict
