// ParseWebhookTables: the configuration's `[[webhooks]]` array of tables read into
// EndpointOptions, validated at start-up; each secret_file is read once, here. Kept apart from
// webhook_options.h so that only the configuration reader includes toml++. Stateless;
// thread-safe.
#pragma once

#include <toml++/toml.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "webhooks/webhook_options.h"

namespace verdict::webhooks {

// The `webhooks` node of the configuration's root: absent (null) or an array of tables.
// Relative secret_file paths resolve against `config_dir` (empty: as written). Errors name the
// key, e.g. "webhooks[1].events"; they never quote a secret.
Result<std::vector<EndpointOptions>> ParseWebhookTables(const toml::node* node,
                                                        const std::string& config_dir);

}  // namespace verdict::webhooks
