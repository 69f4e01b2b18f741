// RegistryStore: the durable key-value index the lifecycle keeps its registry and active set
// in (the journal's registry column family in the engine; a map in tests). Implementations
// must be thread-safe; writes are durable when Put returns.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/mutex.h"
#include "common/result.h"
#include "common/thread_annotations.h"

namespace verdict::lifecycle {

class RegistryStore {
 public:
  virtual ~RegistryStore() = default;
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  virtual Result<std::optional<std::string>> Get(std::string_view key) const = 0;
  // Every entry whose key starts with `prefix`, in key order.
  virtual Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const = 0;
};

// In memory, for tests and tools that keep nothing. Thread-safe.
class MemoryRegistryStore final : public RegistryStore {
 public:
  Status Put(std::string_view key, std::string_view value) override {
    MutexLock lock(mu_);
    map_[std::string(key)] = std::string(value);
    return Status::Ok();
  }
  Result<std::optional<std::string>> Get(std::string_view key) const override {
    MutexLock lock(mu_);
    auto it = map_.find(std::string(key));
    if (it == map_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Result<std::vector<std::pair<std::string, std::string>>> List(
      std::string_view prefix) const override {
    MutexLock lock(mu_);
    std::vector<std::pair<std::string, std::string>> out;
    for (auto it = map_.lower_bound(std::string(prefix));
         it != map_.end() && it->first.starts_with(prefix); ++it) {
      out.push_back(*it);
    }
    return out;
  }

 private:
  mutable Mutex mu_;
  std::map<std::string, std::string> map_ GUARDED_BY(mu_);
};

}  // namespace verdict::lifecycle
