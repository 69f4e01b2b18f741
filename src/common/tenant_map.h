// TenantMap<V>: a map from tenant name to a small value (a pointer or a shared_ptr) read on the
// request path: Find is lock-free apart from the atomic shared_ptr load and never allocates
// (heterogeneous lookup by string_view), and is one relaxed load while the map is empty, the
// common case of a deployment whose tenants all use its defaults. Writers (rare: an admin
// action, a tenant's first decision) copy the map under a mutex and publish the copy; a reader
// keeps the snapshot it loaded. Owns copies of the values; thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace verdict {

template <typename V>
class TenantMap {
 public:
  using Map = std::map<std::string, V, std::less<>>;

  TenantMap() : map_(std::make_shared<const Map>()) {}
  TenantMap(const TenantMap&) = delete;
  TenantMap& operator=(const TenantMap&) = delete;

  std::optional<V> Find(std::string_view tenant) const {
    if (size_.load(std::memory_order_acquire) == 0) return std::nullopt;
    const std::shared_ptr<const Map> map = map_.load(std::memory_order_acquire);
    auto it = map->find(tenant);
    if (it == map->end()) return std::nullopt;
    return it->second;
  }

  // Sets or replaces the tenant's value.
  void Set(std::string_view tenant, V value) EXCLUDES(write_mu_) {
    MutexLock lock(write_mu_);
    auto next = std::make_shared<Map>(*map_.load(std::memory_order_acquire));
    (*next)[std::string(tenant)] = std::move(value);
    Publish(std::move(next));
  }

  // The tenant's value, or `make()`'s (called under the write lock, so once per tenant) when it
  // has none; `make` returns std::optional<V>, and nullopt leaves the map unchanged.
  template <typename Make>
  std::optional<V> FindOrInsert(std::string_view tenant, Make&& make) EXCLUDES(write_mu_) {
    if (auto found = Find(tenant)) return found;
    MutexLock lock(write_mu_);
    const std::shared_ptr<const Map> now = map_.load(std::memory_order_acquire);
    if (auto it = now->find(tenant); it != now->end()) return it->second;
    std::optional<V> made = make();
    if (!made) return std::nullopt;
    auto next = std::make_shared<Map>(*now);
    next->emplace(std::string(tenant), *made);
    Publish(std::move(next));
    return made;
  }

  // The whole map as it is now (status pages, start-up).
  std::shared_ptr<const Map> snapshot() const { return map_.load(std::memory_order_acquire); }
  size_t size() const { return size_.load(std::memory_order_acquire); }

 private:
  void Publish(std::shared_ptr<const Map> next) REQUIRES(write_mu_) {
    const size_t n = next->size();
    map_.store(std::move(next), std::memory_order_release);
    size_.store(n, std::memory_order_release);
  }

  // Not GUARDED_BY: readers load it without the lock; write_mu_ orders the writers'
  // copy-and-publish.
  std::atomic<std::shared_ptr<const Map>> map_;
  // Published after the map: a reader that sees a non-zero size finds the map that has it.
  std::atomic<size_t> size_{0};
  // Held while FindOrInsert's `make` runs: any lock `make` takes comes after it.
  Mutex write_mu_;
};

}  // namespace verdict
