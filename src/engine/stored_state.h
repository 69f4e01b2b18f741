// The journal's update for an account's new state, sealed where the journal seals states
// (journal/state_seal.h): the state's bytes, their tag, and the tag of the stored state they
// replace, which the account's in-memory state keeps from its last stored update. Stateless;
// callers hold the account's stripe lock (the state is read and its seal updated).
#pragma once

#include <string>

#include "features/account_state.h"
#include "journal/journal.h"

namespace verdict {

// Records the new seal in `state`: a caller that then fails to enqueue the update puts the
// state back whole (its copy from before holds the seal from before).
journal::StateUpdate StoredStateUpdate(const journal::StateSealer* sealer, std::string key,
                                       AccountState& state);

// Sets a state loaded from the journal at start to carry the seal of its stored bytes.
void RecordLoadedSeal(const journal::StateTag* tag, AccountState& state);

}  // namespace verdict
