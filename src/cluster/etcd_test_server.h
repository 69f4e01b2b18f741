// EtcdTestServer: a real etcd (Debian's etcd-server, installed by scripts/setup) started on
// ephemeral loopback ports in a temporary directory for one test, and stopped with it.
// Tests only. Not thread-safe.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "cluster/http_client.h"
#include "cluster/loopback_port.h"

extern char** environ;

namespace verdict::cluster {

class EtcdTestServer {
 public:
  EtcdTestServer() {
    dir_ = std::filesystem::temp_directory_path() /
           ("verdict-etcd-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    // A port found free may be taken by another test's server before this one binds it; the
    // server then exits, and the probe could reach the other test's etcd. Each attempt has its
    // own member name, which the probe checks, and new ports.
    for (int attempt = 0; attempt < 3 && !ready_; ++attempt) ready_ = Start(attempt);
  }
  ~EtcdTestServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  EtcdTestServer(const EtcdTestServer&) = delete;
  EtcdTestServer& operator=(const EtcdTestServer&) = delete;

  bool ready() const { return ready_; }
  const std::string& url() const { return url_; }
  // Stops (SIGSTOP) or resumes (SIGCONT) the server: a network cut as the client sees it.
  // A stop is delivered asynchronously: Pause(true) returns once the server has stopped (the
  // child's stop reported by waitpid), so nothing it answers afterwards was sent before.
  void Pause(bool paused) {
    ::kill(pid_, paused ? SIGSTOP : SIGCONT);
    if (paused) {
      int status = 0;
      ::waitpid(pid_, &status, WUNTRACED);
    }
  }

 private:
  bool Start(int attempt) {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    const int client = FreeLoopbackPort();
    const int peer = FreeLoopbackPort();
    const std::string name = dir_.filename().string() + "-" + std::to_string(attempt);
    url_ = "http://127.0.0.1:" + std::to_string(client);
    const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer);
    std::vector<std::string> args = {"etcd",
                                     "--name=" + name,
                                     "--data-dir=" + (dir_ / name).string(),
                                     "--listen-client-urls=" + url_,
                                     "--advertise-client-urls=" + url_,
                                     "--listen-peer-urls=" + peer_url,
                                     "--initial-advertise-peer-urls=" + peer_url,
                                     "--initial-cluster=" + name + "=" + peer_url,
                                     "--logger=zap",
                                     "--log-level=error"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const std::string log = (dir_ / "etcd.log").string();
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                       0644);
    ::posix_spawn_file_actions_adddup2(&actions, 1, 2);
    if (::posix_spawnp(&pid_, "etcd", &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    ::posix_spawn_file_actions_destroy(&actions);
    // Ready once this server (its member name) answers.
    HttpClient probe(HttpEndpoint{"127.0.0.1", std::to_string(client)},
                     std::chrono::milliseconds(500));
    for (int i = 0; i < 150 && pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
      auto answer = probe.PostJson("/v3/cluster/member/list", "{}");
      if (answer.ok() && answer->status == 200) {
        return answer->body.find("\"name\":\"" + name + "\"") != std::string::npos;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::string url_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace verdict::cluster
