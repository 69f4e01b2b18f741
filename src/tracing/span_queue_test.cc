#include "tracing/span_queue.h"

#include <gtest/gtest.h>

#include <thread>

namespace verdict::tracing {
namespace {

std::vector<Span> Spans(size_t n, const std::string& name = "s") {
  std::vector<Span> spans(n);
  for (Span& span : spans) span.name = name;
  return spans;
}

auto Now() { return std::chrono::steady_clock::now(); }

TEST(SpanQueueTest, KeepsADecisionsSpansWholeOrRefusesThemAll) {
  SpanQueue queue(10);
  std::vector<Span> first = Spans(6);
  EXPECT_TRUE(queue.Push(first));
  EXPECT_TRUE(first.empty());
  std::vector<Span> second = Spans(6);
  EXPECT_FALSE(queue.Push(second));  // 12 > 10: none of them
  EXPECT_EQ(second.size(), 6u);
  EXPECT_EQ(queue.size(), 6u);
  std::vector<Span> third = Spans(4);
  EXPECT_TRUE(queue.Push(third));
  EXPECT_EQ(queue.size(), 10u);
  EXPECT_EQ(queue.unfinished(), 10u);
}

TEST(SpanQueueTest, TakesOldestFirstUpToTheMaximum) {
  SpanQueue queue(100);
  std::vector<Span> a = Spans(3, "a");
  std::vector<Span> b = Spans(3, "b");
  ASSERT_TRUE(queue.Push(a));
  ASSERT_TRUE(queue.Push(b));
  std::vector<Span> taken = queue.Take(1, 4, Now());
  ASSERT_EQ(taken.size(), 4u);
  EXPECT_EQ(taken[0].name, "a");
  EXPECT_EQ(taken[3].name, "b");
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.unfinished(), 6u);  // taken is not finished
  queue.Finished(4);
  EXPECT_EQ(queue.unfinished(), 2u);
}

TEST(SpanQueueTest, TakeReturnsWhatThereIsAtTheDeadline) {
  SpanQueue queue(100);
  std::vector<Span> a = Spans(2);
  ASSERT_TRUE(queue.Push(a));
  EXPECT_EQ(queue.Take(50, 50, Now() + std::chrono::milliseconds(20)).size(), 2u);
  EXPECT_TRUE(queue.Take(50, 50, Now() + std::chrono::milliseconds(5)).empty());
}

TEST(SpanQueueTest, APushReachingTheWaitersThresholdWakesIt) {
  SpanQueue queue(100);
  std::vector<Span> got;
  std::thread consumer([&] { got = queue.Take(5, 5, Now() + std::chrono::seconds(30)); });
  for (int i = 0; i < 5; ++i) {
    std::vector<Span> one = Spans(1);
    ASSERT_TRUE(queue.Push(one));
  }
  consumer.join();  // long before 30 s when woken
  EXPECT_EQ(got.size(), 5u);
}

TEST(SpanQueueTest, CloseWakesTheConsumerAndRefusesPushes) {
  SpanQueue queue(100);
  std::thread consumer([&] { queue.Take(5, 5, Now() + std::chrono::seconds(30)); });
  queue.Close();
  consumer.join();
  EXPECT_TRUE(queue.closed());
  std::vector<Span> late = Spans(1);
  EXPECT_FALSE(queue.Push(late));
}

}  // namespace
}  // namespace verdict::tracing
