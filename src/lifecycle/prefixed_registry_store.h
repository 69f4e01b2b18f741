// PrefixedRegistryStore: one tenant's view of a shared RegistryStore: every key is stored under
// a fixed prefix (e.g. "tenant-models/bank-a/"), so a tenant's model registry and active set
// can never read or overwrite another tenant's (I7). Owns nothing; the underlying store must
// outlive it. Thread-safe as the underlying store is.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lifecycle/registry_store.h"

namespace verdict::lifecycle {

class PrefixedRegistryStore final : public RegistryStore {
 public:
  PrefixedRegistryStore(RegistryStore& inner, std::string prefix)
      : inner_(inner), prefix_(std::move(prefix)) {}

  Status Put(std::string_view key, std::string_view value) override {
    return inner_.Put(Key(key), value);
  }
  Result<std::optional<std::string>> Get(std::string_view key) const override {
    return inner_.Get(Key(key));
  }
  // Keys come back without the prefix, as the lifecycle wrote them.
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    VERDICT_ASSIGN_OR_RETURN(auto rows, inner_.List(Key(prefix)));
    for (auto& row : rows) row.first.erase(0, prefix_.size());
    return rows;
  }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string Key(std::string_view key) const {
    std::string out;
    out.reserve(prefix_.size() + key.size());
    out.append(prefix_).append(key);
    return out;
  }

  RegistryStore& inner_;
  const std::string prefix_;
};

}  // namespace verdict::lifecycle
