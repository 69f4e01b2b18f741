// Must be refused under -Wthread-safety -Werror: a REQUIRES function called without the lock.
#include "common/mutex.h"

namespace verdict {

class Account {
 public:
  void Deposit(int amount) { AddLocked(amount); }

 private:
  void AddLocked(int amount) REQUIRES(mu_) { balance_ += amount; }

  Mutex mu_;
  int balance_ GUARDED_BY(mu_) = 0;
};

void Use() {
  Account account;
  account.Deposit(1);
}

}  // namespace verdict
