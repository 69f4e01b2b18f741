// Compiles under -Wthread-safety -Werror: every guarded access holds its lock.
#include "common/mutex.h"

namespace verdict {

class Account {
 public:
  void Deposit(int amount) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    AddLocked(amount);
  }
  int balance() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return balance_;
  }

 private:
  void AddLocked(int amount) REQUIRES(mu_) { balance_ += amount; }

  Mutex mu_;
  int balance_ GUARDED_BY(mu_) = 0;
};

int Use() {
  Account account;
  account.Deposit(1);
  return account.balance();
}

}  // namespace verdict
