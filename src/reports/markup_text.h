// Text made safe for XML and HTML documents: the five markup characters escaped, bytes that are
// not well-formed UTF-8 replaced by U+FFFD, and the characters XML 1.0 forbids (controls below
// U+0020 but tab, line feed and carriage return; U+FFFE and U+FFFF) replaced too, so that any
// journaled text yields a well-formed document. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace verdict::reports {

// Appends `text` to `out`, escaped for element content and attribute values alike.
void AppendEscaped(std::string& out, std::string_view text);
std::string Escaped(std::string_view text);

// `text` cut to at most `max_chars` Unicode characters, ending in "…" when cut; never splits a
// UTF-8 sequence. For free text a schema bounds (goAML's 4,000-character reason).
std::string TruncateChars(std::string_view text, size_t max_chars);

}  // namespace verdict::reports
