// Deterministic binary encoding of an AccountState, for the journal's state persistence and
// recovery. Same state → same bytes. Decode is strict: it refuses truncated, oversized,
// unsorted or out-of-range input with an error and never crashes. Stateless; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "features/account_state.h"

namespace verdict {

// Format version 2 (docs/features.md, "State encoding"); version 1 decodes too.
std::string EncodeAccountState(const AccountState& state);
Result<AccountState> DecodeAccountState(std::string_view bytes);

}  // namespace verdict
