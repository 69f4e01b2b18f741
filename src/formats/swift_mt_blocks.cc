// SWIFT FIN block structure: {1:...}{2:...}{3:{...}}{4:\n:20:...\n-}{5:{...}}.
#include <algorithm>

#include "core/bic.h"
#include "formats/message_text.h"
#include "formats/swift_mt.h"

namespace verdict {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpperOrDigit(char c) { return (c >= 'A' && c <= 'Z') || IsDigit(c); }

class BlockParser {
 public:
  BlockParser(std::string_view text, size_t first_line) : text_(text), first_line_(first_line) {}

  Status Error(size_t pos, const std::string& what) const {
    return InvalidArgument("SWIFT MT line " + std::to_string(LineAt(pos)) + ": " + what, "mt");
  }
  Status BlockError(char block, size_t pos, const std::string& what) const {
    return InvalidArgument(
        "block " + std::string(1, block) + " line " + std::to_string(LineAt(pos)) + ": " + what,
        "{" + std::string(1, block) + ":}");
  }

  size_t LineAt(size_t pos) const {
    pos = std::min(pos, text_.size());
    return first_line_ + static_cast<size_t>(std::count(text_.begin(), text_.begin() + pos, '\n'));
  }

  Result<MtMessage> Parse() {
    MtMessage m;
    m.first_line = first_line_;
    size_t pos = 0;
    char last = '0';
    bool seen[6] = {};
    while (true) {
      while (pos < text_.size() &&
             (text_[pos] == '\r' || text_[pos] == '\n' || text_[pos] == ' ')) {
        ++pos;
      }
      if (pos >= text_.size()) break;
      if (text_[pos] != '{' || pos + 2 >= text_.size() || text_[pos + 2] != ':') {
        return Error(pos, "expected a block such as {1:...}");
      }
      const char id = text_[pos + 1];
      if (id < '1' || id > '5') {
        return Error(pos, "unknown block {" + std::string(1, id) + ":");
      }
      if (seen[id - '0'] || id <= last) {
        return Error(pos, "block " + std::string(1, id) + " is repeated or out of order");
      }
      seen[id - '0'] = true;
      last = id;
      const size_t start = pos + 3;
      switch (id) {
        case '1':
        case '2': {
          const size_t end = text_.find('}', start);
          if (end == std::string_view::npos) return BlockError(id, pos, "is not closed");
          const std::string_view content = text_.substr(start, end - start);
          VERDICT_RETURN_IF_ERROR(id == '1' ? Basic(content, pos, &m) : App(content, pos, &m));
          pos = end + 1;
          break;
        }
        case '3':
        case '5': {
          VERDICT_ASSIGN_OR_RETURN(pos, Tags(id, start, id == '3' ? &m.user_header : &m.trailer));
          break;
        }
        case '4': {
          VERDICT_ASSIGN_OR_RETURN(pos, Text(start, &m));
          break;
        }
      }
    }
    if (!seen[1]) return Error(0, "block 1 (basic header) is missing");
    if (!seen[2]) return Error(0, "block 2 (application header) is missing");
    if (!seen[4]) return Error(0, "block 4 (text) is missing");
    if (m.direction == 'O') std::swap(m.sender_bic, m.receiver_bic);
    return m;
  }

 private:
  // A 12-character logical terminal address: BIC8, terminal code, branch → the BIC.
  Result<std::string> Terminal(char block, std::string_view lt, size_t pos) const {
    for (char c : lt) {
      if (!IsUpperOrDigit(c)) {
        return BlockError(block, pos, "address " + Quote(lt) + " may contain only A-Z and 0-9");
      }
    }
    std::string bic(lt.substr(0, 8));
    if (lt.substr(9, 3) != "XXX") bic += lt.substr(9, 3);
    Status s = ValidateBic(bic);
    if (!s.ok()) return BlockError(block, pos, s.message());
    return bic;
  }

  Status Basic(std::string_view c, size_t pos, MtMessage* m) const {
    // F 01 BANKBEBBAXXX 0000 000000
    if (c.size() != 25)
      return BlockError('1', pos, "must have 25 characters, has " + std::to_string(c.size()));
    if (c[0] != 'F' && c[0] != 'A' && c[0] != 'L') {
      return BlockError('1', pos, "application id must be F, A or L");
    }
    if (!IsDigit(c[1]) || !IsDigit(c[2]))
      return BlockError('1', pos, "service id must be 2 digits");
    for (size_t i = 15; i < 25; ++i) {
      if (!IsDigit(c[i]))
        return BlockError('1', pos, "session and sequence numbers must be digits");
    }
    // The terminal of block 1 is the sender of an input message and the receiver of an
    // output message; Parse() swaps them for output messages.
    VERDICT_ASSIGN_OR_RETURN(m->sender_bic, Terminal('1', c.substr(3, 12), pos));
    return Status::Ok();
  }

  Status App(std::string_view c, size_t pos, MtMessage* m) const {
    if (c.size() < 4 || (c[0] != 'I' && c[0] != 'O') || !IsDigit(c[1]) || !IsDigit(c[2]) ||
        !IsDigit(c[3])) {
      return BlockError('2', pos, "must start with I or O and a 3-digit message type");
    }
    m->direction = c[0];
    m->message_type = std::string(c.substr(1, 3));
    if (c[0] == 'I') {
      // I 103 BANKDEFFXXXX [N [3 [003]]]
      if (c.size() < 16 || c.size() > 21) {
        return BlockError('2', pos, "an input header has 16 to 21 characters");
      }
      VERDICT_ASSIGN_OR_RETURN(m->receiver_bic, Terminal('2', c.substr(4, 12), pos));
      if (c.size() > 16) {
        const char p = c[16];
        if (p != 'S' && p != 'U' && p != 'N')
          return BlockError('2', pos, "priority must be S, U or N");
        m->priority = p;
      }
      for (size_t i = 17; i < c.size(); ++i) {
        if (!IsDigit(c[i]))
          return BlockError('2', pos, "delivery monitoring and obsolescence must be digits");
      }
    } else {
      // O 103 HHMM YYMMDD BANKBEBBAXXX 0000 000000 YYMMDD HHMM [N]
      if (c.size() != 46 && c.size() != 47) {
        return BlockError('2', pos, "an output header has 46 or 47 characters");
      }
      for (size_t i : {4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) {
        if (!IsDigit(c[i])) return BlockError('2', pos, "input time and date must be digits");
      }
      VERDICT_ASSIGN_OR_RETURN(m->receiver_bic, Terminal('2', c.substr(14, 12), pos));
      for (size_t i = 26; i < 46; ++i) {
        if (!IsDigit(c[i])) return BlockError('2', pos, "MIR and output date/time must be digits");
      }
    }
    return Status::Ok();
  }

  // {3:{108:REF}{121:uuid}} and {5:{CHK:...}}: returns the position after the block.
  Result<size_t> Tags(char block, size_t pos,
                      std::vector<std::pair<std::string, std::string>>* out) {
    while (pos < text_.size() && text_[pos] == '{') {
      const size_t colon = text_.find(':', pos);
      const size_t end = text_.find('}', pos);
      if (colon == std::string_view::npos || end == std::string_view::npos || colon > end) {
        return BlockError(block, pos, "expected {tag:value}");
      }
      std::string tag(text_.substr(pos + 1, colon - pos - 1));
      std::string value(text_.substr(colon + 1, end - colon - 1));
      if (tag.empty() || tag.size() > 3 || !std::all_of(tag.begin(), tag.end(), IsUpperOrDigit)) {
        return BlockError(block, pos, "bad tag " + Quote(tag));
      }
      if (value.find('{') != std::string::npos || value.find('\n') != std::string::npos) {
        return BlockError(block, pos, "{" + tag + ":} is not closed on its line");
      }
      if (out->size() == 32) return BlockError(block, pos, "more than 32 tags");
      out->emplace_back(std::move(tag), std::move(value));
      pos = end + 1;
    }
    if (pos >= text_.size() || text_[pos] != '}') return BlockError(block, pos, "is not closed");
    return pos + 1;
  }

  // Block 4: CRLF, then ":TAG:value" fields with continuation lines, then "-}".
  Result<size_t> Text(size_t pos, MtMessage* m) {
    size_t line_start = pos;
    if (text_.substr(pos).starts_with("\r\n")) {
      line_start = pos + 2;
    } else if (text_.substr(pos).starts_with("\n")) {
      line_start = pos + 1;
    } else {
      return BlockError('4', pos, "the text must start on a new line after {4:");
    }
    size_t line_number = LineAt(line_start);
    for (;; ++line_number) {
      if (line_start >= text_.size()) return BlockError('4', pos, "is not closed with -}");
      size_t eol = text_.find('\n', line_start);
      if (eol == std::string_view::npos) eol = text_.size();
      std::string_view line = text_.substr(line_start, eol - line_start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.starts_with("-}")) {
        m->text_end_line = line_number;
        return line_start + 2;
      }
      if (line.starts_with(":")) {
        const size_t close = line.find(':', 1);
        const std::string_view tag =
            close == std::string_view::npos ? "" : line.substr(1, close - 1);
        const bool ok = tag.size() >= 2 && tag.size() <= 3 && IsDigit(tag[0]) && IsDigit(tag[1]) &&
                        (tag.size() == 2 || (tag[2] >= 'A' && tag[2] <= 'Z'));
        if (!ok) return BlockError('4', line_start, "bad field tag in " + Quote(line));
        if (m->fields.size() == 200) return BlockError('4', line_start, "more than 200 fields");
        MtField field;
        field.tag = std::string(tag);
        field.line = line_number;
        field.lines.emplace_back(line.substr(close + 1));
        m->fields.push_back(std::move(field));
      } else {
        if (m->fields.empty())
          return BlockError('4', line_start, "text must start with a field tag");
        if (m->fields.back().lines.size() == 40) {
          return BlockError('4', line_start, "field has more than 40 lines");
        }
        m->fields.back().lines.emplace_back(line);
      }
      line_start = eol + 1;
    }
  }

  std::string_view text_;
  size_t first_line_;
};

}  // namespace

Result<std::vector<MtChunk>> SplitMtMessages(std::string_view body, const MtLimits& limits) {
  std::vector<MtChunk> out;
  size_t line = 1;
  size_t start = 0;
  size_t start_line = 1;
  auto flush = [&](size_t end) -> Status {
    std::string_view chunk = body.substr(start, end - start);
    size_t lead_lines = 0;
    size_t skip = 0;
    while (skip < chunk.size() &&
           (chunk[skip] == '\n' || chunk[skip] == '\r' || chunk[skip] == ' ')) {
      lead_lines += chunk[skip] == '\n';
      ++skip;
    }
    chunk.remove_prefix(skip);
    if (TrimSpace(chunk).empty()) return Status::Ok();
    if (out.size() == limits.max_messages) {
      return InvalidArgument(
          "more than " + std::to_string(limits.max_messages) + " SWIFT messages in one input",
          "mt");
    }
    if (chunk.size() > limits.max_message_bytes) {
      return InputTooLarge("SWIFT MT line " + std::to_string(start_line + lead_lines) +
                               ": message longer than " + std::to_string(limits.max_message_bytes) +
                               " characters",
                           "mt");
    }
    out.push_back(MtChunk{chunk, start_line + lead_lines});
    return Status::Ok();
  };
  bool in_text = false;  // inside block 4, where '$' and "{1:" cannot start a message
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    const bool at_line_start = i == 0 || body[i - 1] == '\n';
    if (in_text && at_line_start && (c == '$' || body.substr(i).starts_with("{1:"))) {
      // Neither '$' nor '{' is in the SWIFT x character set of block 4's text: the message
      // before lacks its "-}" (its own parse says so), and this line starts the next one,
      // which must not be swallowed as that message's text.
      in_text = false;
    }
    if (!in_text && c == '$') {
      VERDICT_RETURN_IF_ERROR(flush(i));
      start = i + 1;
      start_line = line;
    } else if (!in_text && body.substr(i).starts_with("{1:") && i > start &&
               !TrimSpace(body.substr(start, i - start)).empty()) {
      VERDICT_RETURN_IF_ERROR(flush(i));
      start = i;
      start_line = line;
    } else if (!in_text && body.substr(i).starts_with("{4:")) {
      in_text = true;
    } else if (in_text && at_line_start && body.substr(i).starts_with("-}")) {
      in_text = false;
    }
    if (c == '\n') ++line;
  }
  VERDICT_RETURN_IF_ERROR(flush(body.size()));
  if (out.empty()) return InvalidArgument("no SWIFT MT message in the input", "mt");
  return out;
}

Result<MtMessage> ParseMtBlocks(std::string_view text, size_t first_line, const MtLimits& limits) {
  if (text.size() > limits.max_message_bytes) {
    return InputTooLarge(
        "SWIFT MT message longer than " + std::to_string(limits.max_message_bytes) + " characters",
        "mt");
  }
  return BlockParser(text, first_line).Parse();
}

Result<Transaction> DecodeSwiftMt(std::string_view text, size_t first_line, const MtLimits& limits,
                                  bool* carries_time) {
  VERDICT_ASSIGN_OR_RETURN(MtMessage message, ParseMtBlocks(text, first_line, limits));
  return MapMtMessage(message, carries_time);
}

}  // namespace verdict
