// UTF-8 repair for text echoed back to a client: error messages quote what a request sent (a
// query parameter, a key cut at 40 bytes), and a JSON response must stay valid UTF-8 whatever
// the request held. Not for the decision path: there simdjson has validated the input already.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace verdict {

// `text` with every byte that does not begin a well-formed UTF-8 sequence (RFC 3629: no
// overlong forms, surrogates or code points above U+10FFFF) replaced by U+FFFD.
std::string ReplaceInvalidUtf8(std::string_view text);

}  // namespace verdict
