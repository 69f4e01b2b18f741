// ParseHttpRequest: the server's request parsing path without a socket (limits, errors,
// conversion to HttpRequest); SerializeHttpResponse, read back with Beast's parser. The TLS
// and socket paths are covered by tests/integration.
#include "api/http_server.h"

#include <gtest/gtest.h>

#include <boost/beast/http.hpp>

namespace verdict {
namespace {

TEST(ParseHttpRequestTest, ConvertsARequestAsTheServerDoes) {
  const std::string bytes =
      "POST /v1/decisions?x=1 HTTP/1.1\r\nHost: a\r\nContent-Type: Application/JSON; "
      "charset=utf-8\r\nX-Trace: t\r\nContent-Length: 2\r\n\r\n{}GET / HTTP/1.1\r\n\r\n";
  ParsedHttpRequest parsed = ParseHttpRequest(bytes, HttpServerOptions{});
  ASSERT_TRUE(parsed.complete);
  EXPECT_EQ(parsed.error_status, 0);
  EXPECT_EQ(parsed.request.method, "POST");
  EXPECT_EQ(parsed.request.path, "/v1/decisions");
  EXPECT_EQ(parsed.request.query, "x=1");
  EXPECT_EQ(parsed.request.content_type, "application/json");
  EXPECT_EQ(parsed.request.content_type_params, "charset=utf-8");
  EXPECT_EQ(parsed.request.Header("x-trace"), "t");
  EXPECT_EQ(parsed.request.body, "{}");
  EXPECT_TRUE(parsed.request.auth.principal.empty());
  // The pipelined second request is left for the next parse.
  EXPECT_EQ(bytes.substr(parsed.consumed), "GET / HTTP/1.1\r\n\r\n");
}

TEST(ParseHttpRequestTest, ChunkedBodyIsJoined) {
  // Whole, and arriving a few bytes at a time as over a socket.
  for (size_t piece : {SIZE_MAX, size_t{1}, size_t{3}}) {
    ParsedHttpRequest parsed = ParseHttpRequest(
        "POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n",
        HttpServerOptions{}, piece);
    ASSERT_TRUE(parsed.complete) << piece;
    EXPECT_EQ(parsed.request.body, "abc");
    // An empty chunked body, its last CRLF in a later piece (Beast before Boost 1.86 asserts on
    // this in debug and sanitizer builds; http_server.cc turns its assertions off).
    parsed = ParseHttpRequest("POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                              HttpServerOptions{}, piece);
    ASSERT_TRUE(parsed.complete) << piece;
    EXPECT_EQ(parsed.request.body, "");
  }
}

TEST(ParseHttpRequestTest, IncompleteInputNeedsMore) {
  for (std::string_view bytes : {"", "GET / HT", "GET / HTTP/1.1\r\nHost: a\r\n",
                                 "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab",
                                 // the final chunk without its closing CRLF (found by fuzzing:
                                 // parsing it again without new bytes broke Beast's invariants)
                                 "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"}) {
    ParsedHttpRequest parsed = ParseHttpRequest(bytes, HttpServerOptions{});
    EXPECT_FALSE(parsed.complete) << bytes;
    EXPECT_EQ(parsed.error_status, 0) << bytes;
  }
}

TEST(ParseHttpRequestTest, LimitsAndMalformedInputGiveTheServersStatus) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  options.max_body_bytes = 1024;
  const std::string big_header = "GET / HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n";
  EXPECT_EQ(ParseHttpRequest(big_header, options).error_status, 431);
  EXPECT_EQ(
      ParseHttpRequest("POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", options).error_status,
      413);
  const std::string big_chunk =
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + std::string(2048, 'b');
  EXPECT_EQ(ParseHttpRequest(big_chunk, options).error_status, 413);
  for (std::string_view bad :
       {"GET\r\n\r\n", "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", "\x16\x03\x01\x02\r\n\r\n"}) {
    ParsedHttpRequest parsed = ParseHttpRequest(bad, options);
    EXPECT_FALSE(parsed.complete);
    EXPECT_EQ(parsed.error_status, 400) << bad;
    EXPECT_FALSE(parsed.error_message.empty());
  }
}

// Beast waits without limit for the end of a chunk's size line or of the trailer; the server
// stops at max_header_bytes of them, whether they come at once or a few at a time.
TEST(ParseHttpRequestTest, AnEndlessChunkLineOrTrailerIsRefused) {
  HttpServerOptions options;
  options.max_header_bytes = 1024;
  const std::string head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (const std::string& bytes :
       {head + "1;" + std::string(4096, 'a'), head + "0\r\nX: " + std::string(4096, 'a')}) {
    for (size_t piece : {SIZE_MAX, size_t{700}}) {
      ParsedHttpRequest parsed = ParseHttpRequest(bytes, options, piece);
      EXPECT_FALSE(parsed.complete);
      EXPECT_EQ(parsed.error_status, 431) << bytes.substr(head.size(), 8) << " " << piece;
    }
  }
  // Up to the limit it is only an unfinished request.
  EXPECT_EQ(ParseHttpRequest(head + "1;" + std::string(900, 'a'), options).error_status, 0);
}

// A Transfer-Encoding that does not end in chunked leaves no way to find the body's end: read
// as no body, the body would be taken for the next request on the connection.
TEST(ParseHttpRequestTest, ATransferEncodingNotEndingInChunkedIsRefused) {
  for (std::string_view coding : {"gzip", "chunked, gzip", "identity"}) {
    const std::string bytes = "POST /a HTTP/1.1\r\nTransfer-Encoding: " + std::string(coding) +
                              "\r\n\r\nGET /b HTTP/1.1\r\n\r\n";
    ParsedHttpRequest parsed = ParseHttpRequest(bytes, HttpServerOptions{});
    EXPECT_FALSE(parsed.complete) << coding;
    EXPECT_EQ(parsed.error_status, 400) << coding;
    EXPECT_NE(parsed.error_message.find("Transfer-Encoding"), std::string::npos);
  }
  ParsedHttpRequest parsed = ParseHttpRequest(
      "POST /a HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", HttpServerOptions{});
  EXPECT_TRUE(parsed.complete);
}

namespace http = boost::beast::http;

// Parses `bytes` as one whole response with Beast's parser (the reference reader).
http::response<http::string_body> ParseResponse(const std::string& bytes) {
  http::response_parser<http::string_body> parser;
  parser.eager(true);
  boost::beast::error_code ec;
  const size_t used = parser.put(boost::asio::buffer(bytes), ec);
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(used, bytes.size());
  EXPECT_TRUE(parser.is_done());
  return parser.release();
}

TEST(SerializeHttpResponseTest, WritesStatusHeadersAndBody) {
  HttpResponse response;
  response.status = 429;
  response.body = R"({"error":"slow down"})";
  response.headers.emplace_back("Retry-After", "2");
  const std::string bytes = SerializeHttpResponse(response, 11, /*close=*/false);
  EXPECT_EQ(bytes.substr(0, bytes.find("\r\n")), "HTTP/1.1 429 Too Many Requests");
  auto parsed = ParseResponse(bytes);
  EXPECT_EQ(parsed.result_int(), 429);
  EXPECT_EQ(parsed[http::field::server], "verdict");
  EXPECT_EQ(parsed[http::field::content_type], "application/json");
  EXPECT_EQ(parsed["Retry-After"], "2");
  EXPECT_EQ(parsed.body(), response.body);
  EXPECT_TRUE(parsed.keep_alive());
}

TEST(SerializeHttpResponseTest, ConnectionHeaderFollowsTheVersionsDefault) {
  HttpResponse response;
  response.body = "{}";
  EXPECT_FALSE(ParseResponse(SerializeHttpResponse(response, 11, /*close=*/true)).keep_alive());
  EXPECT_TRUE(ParseResponse(SerializeHttpResponse(response, 10, /*close=*/false)).keep_alive());
  EXPECT_FALSE(ParseResponse(SerializeHttpResponse(response, 10, /*close=*/true)).keep_alive());
  EXPECT_EQ(SerializeHttpResponse(response, 11, false).find("Connection"), std::string::npos);
  // An empty body still says its length, so a keep-alive client knows where the next begins.
  response.body.clear();
  EXPECT_EQ(ParseResponse(SerializeHttpResponse(response, 11, false))[http::field::content_length],
            "0");
}

}  // namespace
}  // namespace verdict
