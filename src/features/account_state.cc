#include "features/account_state.h"

namespace verdict {

AccountState::AccountState()
    : sent({kWindow1hUs, kWindow24hUs}, kLateToleranceUs),
      received({kWindow1hUs, kWindow24hUs}, kLateToleranceUs) {}

}  // namespace verdict
