// Must be refused under -Wthread-safety -Werror: a guarded member written without its lock.
#include "common/mutex.h"

namespace verdict {

class Account {
 public:
  void Deposit(int amount) { balance_ += amount; }

 private:
  Mutex mu_;
  int balance_ GUARDED_BY(mu_) = 0;
};

void Use() {
  Account account;
  account.Deposit(1);
}

}  // namespace verdict
