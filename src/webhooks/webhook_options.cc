#include "webhooks/webhook_options.h"

#include <algorithm>

namespace verdict::webhooks {

bool EndpointOptions::Wants(std::string_view event) const {
  return std::find(events.begin(), events.end(), event) != events.end();
}

}  // namespace verdict::webhooks
