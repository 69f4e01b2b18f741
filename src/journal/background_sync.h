// BackgroundSync: runs a sync (the journal's: the store's WAL, Journal::WriteGroup) on a thread
// of its own, so that the thread that asks for it goes on, and tells later how it ended. The
// commit log's switch to its other half needs the store's WAL synced over the pass just ended
// before that half is overwritten, a pass later: started at the switch, the sync has long ended
// by then, and no commit waits for it (docs/architecture.md, "The commit log").
// Thread-safe. Owns its thread; the destructor lets a started sync end, then joins it.
#pragma once

#include <functional>
#include <string>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"

namespace verdict::journal {

class BackgroundSync {
 public:
  BackgroundSync(std::function<Status()> sync, const std::string& thread_name);
  ~BackgroundSync();
  BackgroundSync(const BackgroundSync&) = delete;
  BackgroundSync& operator=(const BackgroundSync&) = delete;

  // Asks for one sync, begun after this call (one asked for while another runs begins when it
  // ends), so it covers what was written before the call.
  void Start() EXCLUDES(mu_);
  // Waits until no sync is asked for or running. Ok, or the first failure of any sync so far:
  // a failure stays, since what that sync was to make durable may not be.
  Status Wait() EXCLUDES(mu_);
  // Whether a sync is asked for or running now (Wait would wait).
  bool Running() const EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);

  const std::function<Status()> sync_;
  mutable Mutex mu_;
  CondVar cv_;  // both ways: a sync asked for, a sync ended, stop
  bool asked_ GUARDED_BY(mu_) = false;
  bool running_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  Status failure_ GUARDED_BY(mu_);  // the first failure
  std::thread thread_;              // last: started once the rest is ready
};

}  // namespace verdict::journal
