#include "engine/stored_state.h"

#include "features/account_state_codec.h"

namespace verdict {

journal::StateUpdate StoredStateUpdate(const journal::StateSealer* sealer, std::string key,
                                       AccountState& state) {
  journal::StateUpdate update;
  update.key = std::move(key);
  update.value = EncodeAccountState(state);
  if (sealer != nullptr) {
    update.replaced_known = true;
    if (state.stored_seal() != journal::StateTag{}) update.replaced_tag = state.stored_seal();
    update.tag = sealer->Tag(update.key, update.value);
    state.set_stored_seal(update.tag);
  }
  return update;
}

void RecordLoadedSeal(const journal::StateTag* tag, AccountState& state) {
  if (tag != nullptr) state.set_stored_seal(*tag);
}

}  // namespace verdict
