// Decoding of SWIFT FIN MT103, MT202 and MT202COV messages into Transactions: blocks 1-5
// (basic, application and user headers, text, trailer), block 4 fields with their format
// rules. Errors name the tag and the line: `:32A: line 7: amount "1000.5.0" is not a number`.
// Stateless free functions; thread-safe. Mapping tables: docs/formats.md.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "core/transaction.h"

namespace verdict {

struct MtLimits {
  size_t max_message_bytes = 10'000;  // FIN messages are at most 10,000 characters
  size_t max_messages = 1000;         // per body or file chunk, as for :batch
};

// One block 4 field: ":32A:" → tag "32A"; its lines without the tag; the line it starts on.
struct MtField {
  std::string tag;
  std::vector<std::string> lines;
  size_t line = 0;
};

struct MtMessage {
  char direction = 'I';      // block 2: 'I' input (to SWIFT), 'O' output (from SWIFT)
  std::string message_type;  // "103", "202"
  std::string sender_bic;    // 8 or 11 characters (branch "XXX" dropped)
  std::string receiver_bic;
  char priority = 0;  // block 2 input priority 'S', 'U', 'N', or 0
  std::vector<std::pair<std::string, std::string>> user_header;  // block 3 {tag:value}
  std::vector<MtField> fields;                                   // block 4, in order
  std::vector<std::pair<std::string, std::string>> trailer;      // block 5 {tag:value}
  size_t first_line = 1;
  size_t text_end_line = 1;  // the line of block 4's closing "-}"
};

// One message's text within a larger body and the line it starts on.
struct MtChunk {
  std::string_view text;
  size_t first_line = 1;
};

// Splits a body or file into messages: at '$' separators and wherever a new "{1:" block
// starts a line after the previous message's end. Blank chunks are dropped.
Result<std::vector<MtChunk>> SplitMtMessages(std::string_view body, const MtLimits& limits = {});

// The blocks of one message (`first_line`: its line in the enclosing body, for errors).
Result<MtMessage> ParseMtBlocks(std::string_view text, size_t first_line = 1,
                                const MtLimits& limits = {});

// Checks every field of an MT103/202/202COV against its format and maps it to a Transaction.
// The timestamp is the time a :13C: gives (SNDTIME, else RNCTIME) on the value date; without
// one, the value date at midnight UTC, and `*carries_time` (when given) is false: a receiver
// that knows when the message arrived stamps that time instead (docs/formats.md).
Result<Transaction> MapMtMessage(const MtMessage& message, bool* carries_time = nullptr);

// ParseMtBlocks + MapMtMessage.
Result<Transaction> DecodeSwiftMt(std::string_view text, size_t first_line = 1,
                                  const MtLimits& limits = {}, bool* carries_time = nullptr);

}  // namespace verdict
