// SHA-256 of a byte string as lowercase hex, via OpenSSL. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace verdict {

std::string Sha256Hex(std::string_view bytes);

}  // namespace verdict
