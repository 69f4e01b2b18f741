#include "load/input_request.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "load/population_input.h"

namespace load {
namespace {

// One line, one request.
InputRequest MakeInputRequest(std::string_view line, uint64_t round, std::string_view klass,
                              int64_t class_deadline_us) {
  return InputLine(std::string(line)).MakeRequest(round, klass, class_deadline_us);
}

TEST(InputRequestTest, AddsTheMixClassWhenTheLineHasNoPriority) {
  InputRequest r =
      MakeInputRequest(R"({"transaction_id":"t1","amount":"5.00"})", 0, "bulk", 2'000'000);
  EXPECT_EQ(r.body, R"({"priority":"bulk","transaction_id":"t1","amount":"5.00"})");
  EXPECT_EQ(r.deadline_us, 2'000'000);
  EXPECT_EQ(MakeInputRequest("{ }", 0, "bulk", 1).body, R"({"priority":"bulk" })");
}

// The answer is counted under the class the mix chose, so the engine must see that class too.
TEST(InputRequestTest, ReplacesTheLinesOwnPriorityButNotANestedOne) {
  InputRequest r = MakeInputRequest(
      R"({"transaction_id":"t1","meta":{"priority":"x"},"priority" : "bulk","amount":"5.00"})", 0,
      "realtime", 50'000);
  EXPECT_EQ(
      r.body,
      R"({"transaction_id":"t1","meta":{"priority":"x"},"priority" : "realtime","amount":"5.00"})");
}

TEST(InputRequestTest, AShorterDeadlineOfTheLineIsTheOneJudged) {
  EXPECT_EQ(MakeInputRequest(R"({"deadline_ms":20,"transaction_id":"t"})", 0, "standard", 200'000)
                .deadline_us,
            20'000);
  // Longer than the class allows: the engine keeps the class's deadline, and so does the count.
  EXPECT_EQ(MakeInputRequest(R"({"deadline_ms":900,"transaction_id":"t"})", 0, "standard", 200'000)
                .deadline_us,
            200'000);
  // Not a positive integer: ignored here (the engine will refuse the request).
  EXPECT_EQ(MakeInputRequest(R"({"deadline_ms":"20","transaction_id":"t"})", 0, "standard", 200'000)
                .deadline_us,
            200'000);
  // A nested deadline_ms is not the request's.
  EXPECT_EQ(
      MakeInputRequest(R"({"m":{"deadline_ms":5},"transaction_id":"t"})", 0, "standard", 200'000)
          .deadline_us,
      200'000);
}

TEST(InputRequestTest, LaterRoundsMakeTheTransactionIdUnique) {
  InputRequest r = MakeInputRequest(R"({"m":{"transaction_id":"n"},"transaction_id":"t\"1"})", 3,
                                    "standard", 200'000);
  EXPECT_EQ(r.body,
            R"({"priority":"standard","m":{"transaction_id":"n"},"transaction_id":"t\"1-r3"})");
}

// A line is scanned once and makes every round's request; its two edits land in either order.
TEST(InputRequestTest, OneScannedLineMakesEachRoundsRequest) {
  const InputLine id_first(R"({"transaction_id":"t","priority":"bulk","deadline_ms":20})");
  EXPECT_EQ(id_first.MakeRequest(1, "realtime", 50'000).body,
            R"({"transaction_id":"t-r1","priority":"realtime","deadline_ms":20})");
  EXPECT_EQ(id_first.MakeRequest(12, "standard", 200'000).body,
            R"({"transaction_id":"t-r12","priority":"standard","deadline_ms":20})");
  EXPECT_EQ(id_first.MakeRequest(0, "standard", 200'000).deadline_us, 20'000);
  const InputLine priority_first(R"({"priority":"bulk","transaction_id":"t"})");
  EXPECT_EQ(priority_first.MakeRequest(2, "realtime", 50'000).body,
            R"({"priority":"realtime","transaction_id":"t-r2"})");
  EXPECT_EQ(priority_first.text(), R"({"priority":"bulk","transaction_id":"t"})");
}

// A population's period: each round moves the line's timestamp a period later (three edits in
// the order of their positions); round 0, no period or no readable timestamp leave it.
TEST(InputRequestTest, LaterRoundsOfAPeriodMoveTheTimestamp) {
  const int64_t day_us = int64_t{86'400} * 1'000'000;
  const InputLine line(
      R"({"timestamp":"2026-01-31T23:00:00.000001Z","transaction_id":"t","priority":"bulk"})");
  EXPECT_EQ(line.MakeRequest(2, "standard", 1, 30 * day_us).body,
            R"({"timestamp":"2026-04-01T23:00:00.000001Z","transaction_id":"t-r2",)"
            R"("priority":"standard"})");
  EXPECT_EQ(
      line.MakeRequest(0, "bulk", 1, 30 * day_us).body,
      R"({"timestamp":"2026-01-31T23:00:00.000001Z","transaction_id":"t","priority":"bulk"})");
  EXPECT_EQ(
      line.MakeRequest(1, "bulk", 1).body,
      R"({"timestamp":"2026-01-31T23:00:00.000001Z","transaction_id":"t-r1","priority":"bulk"})");
  const InputLine unreadable(R"({"transaction_id":"t","timestamp":"yesterday"})");
  EXPECT_EQ(unreadable.MakeRequest(1, "bulk", 1, day_us).body,
            R"({"priority":"bulk","transaction_id":"t-r1","timestamp":"yesterday"})");
}

TEST(PopulationInputTest, TheDemoPopulationIsAMonthOfRequestsInTimeOrder) {
  auto population = PopulationInput("demo", 5);
  ASSERT_TRUE(population.ok()) << population.status().ToString();
  EXPECT_EQ(population->period_us, int64_t{30} * 86'400 * 1'000'000);
  ASSERT_GT(population->lines.size(), 10'000u);
  const std::string& first = population->lines.front().text();
  EXPECT_NE(first.find(R"("transaction_id":"load-5-)"), std::string::npos) << first;
  EXPECT_NE(first.find(R"("timestamp":"2025-12-02T)"), std::string::npos) << first;
  EXPECT_FALSE(PopulationInput("other", 5).ok());
}

TEST(InputRequestTest, ALineThatIsNotAnObjectIsSentAsItIs) {
  EXPECT_EQ(MakeInputRequest("not json", 2, "bulk", 1).body, "not json");
  EXPECT_EQ(MakeInputRequest(R"([{"transaction_id":"t"}])", 2, "bulk", 1).body,
            R"([{"transaction_id":"t"}])");
}

// A torn line stays torn (the engine refuses it); what could be read of it is still edited.
TEST(InputRequestTest, ATornLineGetsTheClassAndNothingElse) {
  EXPECT_EQ(MakeInputRequest(R"({"transaction_id":"t)", 2, "bulk", 1).body,
            R"({"priority":"bulk","transaction_id":"t)");
  EXPECT_EQ(MakeInputRequest(R"({"deadline_ms":99999999999,"x":1})", 0, "bulk", 7).deadline_us, 7);
}

}  // namespace
}  // namespace load
