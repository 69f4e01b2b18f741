// SimTransaction: the simulator's compact form of one generated transfer (indices into the
// Population instead of strings), turned into a LabelledTransaction only on output. Value type.
#pragma once

#include <cstdint>

namespace verdict {

enum class SimChannel : uint8_t { kWire, kAch, kCard, kCash, kOnline, kMobile };
enum class SimType : uint8_t { kTransfer, kPayment, kSalary };

struct SimTransaction {
  int64_t timestamp_us = 0;
  uint32_t sender = 0;
  uint32_t receiver = 0;
  // Minor units of the sender's home currency, or of USD when usd_exact is set (laundering
  // patterns, whose amounts relate to the USD reporting threshold exactly).
  int64_t amount_minor = 0;
  bool usd_exact = false;
  SimChannel channel = SimChannel::kAch;
  SimType type = SimType::kTransfer;
  int32_t pattern = -1;   // index into Simulator::patterns(); -1 = normal activity
  uint64_t sequence = 0;  // generation order, the tie-break among equal timestamps
};

}  // namespace verdict
