// The signature every webhook delivery carries (docs/webhooks.md): the header
// `Verdict-Signature: t=UNIX,v1=HEX`, HEX the lowercase hex HMAC-SHA256, keyed with the
// endpoint's secret, of `UNIX + "." + body`. The timestamp lets a receiver refuse replays of old
// deliveries. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace verdict::webhooks {

inline constexpr std::string_view kEventHeader = "Verdict-Event";
inline constexpr std::string_view kDeliveryHeader = "Verdict-Delivery";
inline constexpr std::string_view kSignatureHeader = "Verdict-Signature";

// Lowercase hex HMAC-SHA256 of `message` keyed with `key`.
std::string HmacSha256Hex(std::string_view key, std::string_view message);

// The Verdict-Signature value for `body` sent at `unix_seconds`.
std::string SignatureHeaderValue(std::string_view secret, int64_t unix_seconds,
                                 std::string_view body);

}  // namespace verdict::webhooks
