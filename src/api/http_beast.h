// Boost.Beast and Asio as the HTTP server's files include them (internal to src/api): the same
// macros in every file that instantiates Beast's parser, and the namespace aliases those files
// share. Include it before any other Boost header.
#pragma once

#include <utility>
// Beast then speaks std::string_view, like the rest of the code.
#include <boost/version.hpp>
#if BOOST_VERSION < 108600 && !defined(BOOST_DISABLE_ASSERTS)
// Beast before Boost 1.86 asserts that a final chunk's header is re-parsed with at least 5
// bytes where 3 are valid (boostorg/beast#2861): a client sending an empty chunked body in
// pieces ("0\r\n", then "\r", "\n") would abort a sanitizer or debug build of the server. The
// code after the check handles it; release builds (NDEBUG) never had the check. Boost's
// assertions are off in this file for those versions.
#define BOOST_DISABLE_ASSERTS
#endif
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace verdict::http_internal {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

}  // namespace verdict::http_internal
