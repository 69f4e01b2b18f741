#include "api/error_response.h"

#include <gtest/gtest.h>

namespace verdict {
namespace {

TEST(ErrorResponseTest, WritesTheContractShape) {
  EXPECT_EQ(ErrorToJson(InvalidArgument("amount must be positive", "amount")),
            R"({"error":{"code":"invalid_argument","message":"amount must be positive",)"
            R"("field":"amount"}})");
  EXPECT_EQ(ErrorToJson(NotFound("no such decision")),
            R"({"error":{"code":"not_found","message":"no such decision"}})");
}

TEST(ErrorResponseTest, MapsCanonicalCodesToHttp) {
  const std::pair<Status, HttpError> cases[] = {
      {InvalidArgument("x"), {400, "invalid_argument"}},
      {Status(StatusCode::kFailedPrecondition, "x"), {400, "failed_precondition"}},
      {Status(StatusCode::kUnauthenticated, "x"), {401, "unauthenticated"}},
      {Status(StatusCode::kPermissionDenied, "x"), {403, "permission_denied"}},
      {NotFound("x"), {404, "not_found"}},
      {Status(StatusCode::kAlreadyExists, "x"), {409, "already_exists"}},
      {Status(StatusCode::kResourceExhausted, "x"), {429, "resource_exhausted"}},
      {Internal("x"), {500, "internal"}},
      {Unavailable("x"), {503, "unavailable"}},
      {Status(StatusCode::kDeadlineExceeded, "x"), {504, "deadline_exceeded"}},
      // Reasons refine a code into an answer of HTTP's own.
      {InputTooLarge("x"), {413, "payload_too_large"}},
      {UnsupportedMediaType("x"), {415, "unsupported_media_type"}},
  };
  for (const auto& [status, want] : cases) {
    const HttpError got = HttpErrorOf(status);
    EXPECT_EQ(got.status, want.status) << status.ToString();
    EXPECT_EQ(got.code, want.code) << status.ToString();
  }
}

TEST(ErrorResponseTest, AnswersOnlyHttpHasKeepTheirCodes) {
  HttpResponse r = ErrorResponse(kHttpMethodNotAllowed, Status(StatusCode::kUnimplemented, "no"));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.body, R"({"error":{"code":"method_not_allowed","message":"no"}})");
  r = ErrorResponse(kHttpHeaderFieldsTooLarge, InputTooLarge("big"));
  EXPECT_EQ(r.status, 431);
  EXPECT_EQ(r.body, R"({"error":{"code":"invalid_argument","message":"big"}})");
}

TEST(ErrorResponseTest, KeepsMessagesValidUtf8AndAddsMembers) {
  HttpResponse r = ErrorResponse(InvalidArgument("bad \xff key", "k\xfe"),
                                 [](JsonWriter& w) { w.Key("errors").BeginArray().EndArray(); });
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body.find('\xff'), std::string::npos);
  EXPECT_EQ(r.body.find('\xfe'), std::string::npos);
  EXPECT_NE(r.body.find(R"(,"errors":[]}})"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace verdict
