// PostgresTestServer: a real PostgreSQL (Debian's postgresql, installed by scripts/setup)
// initialized in a temporary directory and started on an ephemeral loopback port for one test,
// then stopped and removed. PostgreSQL refuses to run as root, so as root it runs as the
// `postgres` user. Tests only. Not thread-safe.
#pragma once

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cluster/loopback_port.h"
#include "cluster/pg_connection.h"

namespace verdict::cluster {

class PostgresTestServer {
 public:
  PostgresTestServer() {
    dir_ = std::filesystem::temp_directory_path() /
           ("verdict-pg-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    if (::geteuid() == 0) {
      if (const passwd* pg = ::getpwnam("postgres")) {
        uid_ = pg->pw_uid;
        gid_ = pg->pw_gid;
        std::filesystem::permissions(dir_, std::filesystem::perms::all);
        (void)::chown(dir_.c_str(), uid_, gid_);
      }
    }
    const std::string bin = "/usr/lib/postgresql/15/bin/";
    const std::string data = (dir_ / "data").string();
    if (Run({bin + "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync"}) != 0) {
      return;
    }
    // A port found free may be taken by another test's server first: this one then exits, and
    // the probe could reach the other. The probe checks the data directory, and a failed start
    // is tried again on another port.
    for (int attempt = 0; attempt < 3 && !ready_; ++attempt) ready_ = Start(bin, data);
  }
  ~PostgresTestServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);  // immediate shutdown
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PostgresTestServer(const PostgresTestServer&) = delete;
  PostgresTestServer& operator=(const PostgresTestServer&) = delete;

  bool ready() const { return ready_; }
  const std::string& url() const { return url_; }

 private:
  bool Start(const std::string& bin, const std::string& data) {
    if (pid_ > 0) {
      ::kill(pid_, SIGQUIT);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    port_ = FreeLoopbackPort();
    pid_ = Spawn({bin + "postgres", "-D", data, "-p", std::to_string(port_), "-h", "127.0.0.1",
                  "-k", dir_.string(), "-c", "fsync=off", "-c", "max_connections=50"});
    url_ =
        "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/postgres?connect_timeout=2";
    for (int i = 0; i < 150 && pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
      if (auto db = PgConnection::Connect(url_); db.ok()) {
        auto shown = (*db)->Exec("SHOW data_directory");
        return shown.ok() && shown->size() == 1 && shown->Get(0, 0) == data;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  pid_t Spawn(const std::vector<std::string>& args) {
    const std::string log = (dir_ / "postgres.log").string();
    const pid_t pid = ::fork();
    if (pid != 0) return pid;
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    if (uid_ != 0 && (::setgid(gid_) != 0 || ::setuid(uid_) != 0)) ::_exit(126);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int Run(const std::vector<std::string>& args) {
    const pid_t pid = Spawn(args);
    int status = 0;
    if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string url_;
  int port_ = 0;
  pid_t pid_ = -1;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool ready_ = false;
};

}  // namespace verdict::cluster
