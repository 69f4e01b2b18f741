// Caller: who a decision is made for, from the request's credentials: the tenant whose account
// state, decisions and cases it reads and writes (I7), and the principal the journal records.
// The caller's W3C trace context, when its request or message carried one, rides along so that
// the decision joins the caller's trace (docs/tracing.md). Value type; thread-compatible.
// Offline paths (replay, backtest, tests) use the defaults.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tracing/trace_context.h"

namespace verdict {

struct Caller {
  std::string tenant = "default";
  std::string principal = "anonymous";
  // tracing::ParseTraceParent of the request's (or message's) traceparent and tracestate.
  std::optional<tracing::TraceContext> trace = {};
};

// The key of a tenant's account in the account store and the journal's state family:
// "tenant/account". Tenant names never contain '/' ([A-Za-z0-9._-], security/api_key.h), so two
// tenants' accounts of the same name are two keys, and the tenant is the text before the first
// '/'.
inline std::string TenantAccountKey(std::string_view tenant, std::string_view account) {
  std::string key;
  key.reserve(tenant.size() + 1 + account.size());
  key.append(tenant).push_back('/');
  key.append(account);
  return key;
}

}  // namespace verdict
