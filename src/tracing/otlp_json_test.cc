#include "tracing/otlp_json.h"

#include <gtest/gtest.h>

namespace verdict::tracing {
namespace {

Span Example() {
  Span span;
  span.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  span.span_id = "1111111111111111";
  span.parent_span_id = "00f067aa0ba902b7";
  span.trace_state = "congo=t61rcWkgMzE";
  span.name = "decision";
  span.kind = SpanKind::kServer;
  span.start_unix_ns = 1'796'000'000'000'000'001;
  span.end_unix_ns = 1'796'000'000'000'500'000;
  span.attributes = {{"verdict.outcome", "review"}, {"quote", "a\"b"}};
  return span;
}

TEST(OtlpJsonTest, EncodesTheProtobufJsonMappingOfAnExportRequest) {
  const std::string json = EncodeExportRequest("verdict", {Example()});
  EXPECT_EQ(json,
            R"({"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":)"
            R"({"stringValue":"verdict"}}]},"scopeSpans":[{"scope":{"name":"verdict"},"spans":[)"
            R"({"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"1111111111111111",)"
            R"("parentSpanId":"00f067aa0ba902b7","traceState":"congo=t61rcWkgMzE",)"
            R"("name":"decision","kind":2,"startTimeUnixNano":"1796000000000000001",)"
            R"("endTimeUnixNano":"1796000000000500000","attributes":[{"key":"verdict.outcome",)"
            R"("value":{"stringValue":"review"}},{"key":"quote","value":{"stringValue":"a\"b"}}]})"
            R"(]}]}]})");
}

TEST(OtlpJsonTest, ARootSpanHasNoParentAndAnErrorHasAStatus) {
  Span span = Example();
  span.parent_span_id.clear();
  span.trace_state.clear();
  span.kind = SpanKind::kInternal;
  span.error = "journal unavailable";
  const std::string json = EncodeExportRequest("svc", {span});
  EXPECT_EQ(json.find("parentSpanId"), std::string::npos);
  EXPECT_EQ(json.find("traceState"), std::string::npos);
  EXPECT_NE(json.find(R"("kind":1)"), std::string::npos);
  EXPECT_NE(json.find(R"("status":{"code":2,"message":"journal unavailable"})"), std::string::npos);
}

TEST(OtlpJsonTest, SeveralSpansAreOneArray) {
  Span second = Example();
  second.span_id = "2222222222222222";
  const std::string json = EncodeExportRequest("verdict", {Example(), second});
  EXPECT_NE(json.find(R"("spanId":"1111111111111111")"), std::string::npos);
  EXPECT_NE(json.find(R"(},{"traceId")"), std::string::npos);
  EXPECT_NE(json.find(R"("spanId":"2222222222222222")"), std::string::npos);
}

}  // namespace
}  // namespace verdict::tracing
