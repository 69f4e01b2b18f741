// Must be refused under -Wthread-safety-beta -Werror: two locks taken against their declared
// order (outer_ before inner_).
#include "common/mutex.h"

namespace verdict {

class Pair {
 public:
  void Wrong() {
    MutexLock inner(inner_);
    MutexLock outer(outer_);
    ++value_;
  }

 private:
  Mutex outer_ ACQUIRED_BEFORE(inner_);
  Mutex inner_;
  int value_ GUARDED_BY(inner_) = 0;
};

void Use() {
  Pair pair;
  pair.Wrong();
}

}  // namespace verdict
