#include "load/load_generator.h"

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>

#include "common/rfc3339.h"
#include "load/input_request.h"

namespace load {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

// With honor_retry_after, a request refused this many times takes the last 429 as its answer:
// a server that refuses forever (or says Retry-After: 0) must not keep a connection resending.
constexpr int kMaxResends = 10;

struct Pending {
  Clock::time_point intended;
  std::string klass;
  int tenant = -1;  // index into LoadOptions::tenants; -1 without --tenant
  std::string body;
  int64_t deadline_us = 0;   // what `within_deadline` judges the answer by; 0: none known
  int resends = 0;           // after a 429's Retry-After (LoadOptions::honor_retry_after)
  bool reconnected = false;  // a resend already went again on a new connection (see OnResponse)
};

// One arrival process: the whole load, or one tenant's share of it.
struct Stream {
  explicit Stream(net::io_context& ioc) : timer(ioc) {}
  int tenant = -1;
  double rate_per_s = 0;
  Clock::time_point next;
  net::steady_timer timer;
  bool done = false;
};

class Runner;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Runner& runner, net::io_context& ioc, std::string klass, int tenant)
      : runner_(runner), socket_(ioc), klass_(std::move(klass)), tenant_(tenant) {}
  const std::string& klass() const { return klass_; }
  int tenant() const { return tenant_; }
  // Opens the connection (again); the runner counts it as connecting until it is. Once open it
  // is idle, or, with resend_current, sends current_ again (a resend after Retry-After).
  void Connect(const tcp::endpoint& endpoint, bool resend_current = false);
  void Send(Pending request);
  void Close() {
    beast::error_code ec;
    socket_.close(ec);
  }
  // Closes the socket and forgets what was read on it, before a reconnect.
  void Drop() {
    Close();
    buffer_.clear();
  }

 private:
  void Attempt();
  void OnResponse(beast::error_code ec);
  // With honor_retry_after: a 429 with Retry-After in whole seconds, how long to wait before
  // sending the request again; otherwise none (the 429 is the answer).
  std::optional<std::chrono::seconds> RetryDelay() const;
  // Sends current_ again after delay: on this connection if the server keeps it open, else on a
  // new one.
  void ResendAfter(std::chrono::seconds delay, bool keep_alive);

  Runner& runner_;
  tcp::socket socket_;
  tcp::endpoint endpoint_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  std::string wire_;
  Pending current_;
  bool resend_on_connect_ = false;  // current_ goes out as soon as the connection opens
  const std::string klass_;         // the class whose requests this connection carries
  const int tenant_;                // and the tenant (-1: no tenants)
};

// One class's connections (one tenant's, with tenants): those free, and the requests waiting for
// one of them, oldest first.
struct Pool {
  std::vector<Connection*> idle;
  std::deque<Pending> backlog;
  size_t connecting = 0;  // connections being opened or reopened
  size_t opened = 0;
  size_t limit = 0;  // most connections it may open (LoadOptions::max_connections)
};

class Runner {
 public:
  explicit Runner(const LoadOptions& options) : options_(options), rng_(options.seed) {
    double total = 0;
    for (const auto& [name, share] : options.mix) total += share;
    double cumulative = 0;
    for (const auto& [name, share] : options.mix) {
      cumulative += share / total;
      classes_.emplace_back(cumulative, name);
      result_.by_class[name];
    }
    for (const TenantLoad& t : options.tenants) {
      result_.tenant_rate_per_s[t.name] = t.rate_per_s;
      for (const auto& [name, share] : options.mix) result_.by_tenant[t.name].by_class[name];
    }
  }

  LoadResult Run() {
    endpoint_ = tcp::endpoint(
        net::ip::make_address(options_.host == "localhost" ? "127.0.0.1" : options_.host),
        options_.port);
    // Each class has its own connections, as a payment switch keeps separate pools: a
    // realtime request never waits on the client side behind bulk ones.
    // Tenants likewise: each has its own pools, shared out by its rate.
    double total = 0;
    for (const auto& [name, share] : options_.mix) total += share;
    double total_rate = 0;
    if (options_.tenants.empty()) {
      streams_.push_back(std::make_unique<Stream>(ioc_));
      streams_.back()->rate_per_s = total_rate = options_.rate_per_s;
    }
    for (size_t t = 0; t < options_.tenants.size(); ++t) {
      streams_.push_back(std::make_unique<Stream>(ioc_));
      streams_.back()->tenant = static_cast<int>(t);
      streams_.back()->rate_per_s = options_.tenants[t].rate_per_s;
      total_rate += options_.tenants[t].rate_per_s;
    }
    for (const auto& stream : streams_) {
      const double connections = options_.connections * stream->rate_per_s / total_rate;
      for (const auto& [name, share] : options_.mix) {
        if (share <= 0) continue;
        // At least a few per class: with a durable journal each answer waits for a group
        // commit, so one connection carries only a few hundred requests a second.
        int n = std::max(std::min(options_.connections, 8),
                         static_cast<int>(connections * share / total + 0.5));
        // Each pool may grow in proportion to its first size, so that a flooded class cannot
        // take the room of another's.
        pools_[{stream->tenant, name}].limit =
            options_.max_connections == 0
                ? n
                : std::max<size_t>(
                      n, static_cast<size_t>(n) * options_.max_connections / options_.connections);
        for (int i = 0; i < n; ++i) Open(stream->tenant, name);
      }
    }
    start_ = Clock::now();
    window_end_ = start_ + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options_.duration_s));
    for (const auto& stream : streams_) {
      stream->next = start_;
      ScheduleNext(*stream);
    }
    if (options_.busy_poll) {
      // Finish() stops the io_context (poll() also stops it once no work is left), as run()
      // would return.
      while (!ioc_.stopped()) ioc_.poll();
    } else {
      ioc_.run();
    }
    result_.rate_per_s = total_rate;
    for (const auto& [key, pool] : pools_) result_.connections[key.second] += pool.opened;
    result_.window_s = options_.duration_s;
    result_.elapsed_s = std::chrono::duration<double>(Clock::now() - start_).count();
    for (auto& [name, stats] : result_.by_class) result_.overall.Merge(stats);
    for (auto& [tenant, stats] : result_.by_tenant) {
      for (auto& [name, klass] : stats.by_class) stats.overall.Merge(klass);
    }
    return result_;
  }

  void OnConnecting(const Connection& connection) { ++PoolOf(connection).connecting; }
  // Open: idle, unless it reopened to resend its own request (idle = false).
  void OnConnected(Connection& connection, bool idle) {
    --PoolOf(connection).connecting;
    if (idle) OnIdle(connection);
  }

  // A connection is free: it takes the oldest waiting request of its class.
  void OnIdle(Connection& connection) {
    Pool& pool = PoolOf(connection);
    if (!pool.backlog.empty()) {
      Pending next = std::move(pool.backlog.front());
      pool.backlog.pop_front();
      connection.Send(std::move(next));
    } else {
      pool.idle.push_back(&connection);
      MaybeFinish();
    }
  }

  void OnAnswer(const Pending& request, int status, std::string_view body) {
    const int64_t micros =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - request.intended)
            .count();
    const bool in_time = status == 200 && request.deadline_us > 0 && micros <= request.deadline_us;
    const bool fallback = body.find("\"path\":\"fallback\"") != std::string_view::npos;
    for (ClassStats* stats : StatsFor(request)) {
      ++stats->answered;
      ++stats->status[status];
      stats->latency.Record(micros);
      stats->within_deadline += in_time;
      stats->fallback += fallback;
    }
    if (options_.keep_timeline) {
      const auto sent = request.intended - start_;
      result_.timeline.push_back(
          {std::chrono::duration_cast<std::chrono::microseconds>(sent).count(), micros, status,
           request.klass, request.tenant >= 0 ? options_.tenants[request.tenant].name : ""});
    }
    --outstanding_;
  }

  // A 429 to be sent again after its Retry-After: still outstanding, counted as retried.
  void OnRetry(const Pending& request) {
    for (ClassStats* stats : StatsFor(request)) ++stats->retried;
  }

  // The connection broke before an answer: counted under status 0, not as answered.
  void OnLost(const Pending& request) {
    for (ClassStats* stats : StatsFor(request)) ++stats->status[0];
    --outstanding_;
  }

  const LoadOptions& options() const { return options_; }

 private:
  Pool& PoolOf(const Connection& connection) {
    return pools_[{connection.tenant(), connection.klass()}];
  }

  void Open(int tenant, const std::string& klass) {
    ++pools_[{tenant, klass}].opened;
    connections_.push_back(std::make_shared<Connection>(*this, ioc_, klass, tenant));
    connections_.back()->Connect(endpoint_);
  }

  // The class's stats, and the tenant's class and total when there are tenants.
  std::vector<ClassStats*> StatsFor(const Pending& request) {
    std::vector<ClassStats*> out{&result_.by_class[request.klass]};
    if (request.tenant >= 0) {
      TenantStats& t = result_.by_tenant[options_.tenants[request.tenant].name];
      out.push_back(&t.by_class[request.klass]);
    }
    return out;
  }

  void ScheduleNext(Stream& stream) {
    stream.timer.expires_at(stream.next);
    stream.timer.async_wait([this, &stream](beast::error_code ec) {
      if (ec) return;
      const auto now = Clock::now();
      while (stream.next <= now && stream.next < window_end_ && issued_ < options_.max_requests) {
        Issue(stream.next, stream.tenant);
        stream.next += Gap(stream.rate_per_s);
      }
      if (stream.next < window_end_ && issued_ < options_.max_requests) {
        ScheduleNext(stream);
      } else {
        stream.done = true;
        if (std::all_of(streams_.begin(), streams_.end(), [](const auto& s) { return s->done; })) {
          sending_done_ = true;
          StartDrain();
        }
      }
    });
  }

  Clock::duration Gap(double rate_per_s) {
    double seconds = 1.0 / rate_per_s;
    if (options_.poisson) {
      std::exponential_distribution<double> exp(rate_per_s);
      seconds = exp(rng_);
    }
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }

  void Issue(Clock::time_point intended, int tenant) {
    Pending request;
    request.intended = intended;
    request.tenant = tenant;
    std::uniform_real_distribution<double> uniform(0, 1);
    double pick = uniform(rng_);
    request.klass = classes_.back().second;
    for (const auto& [bound, name] : classes_) {
      if (pick <= bound) {
        request.klass = name;
        break;
      }
    }
    auto class_deadline = options_.deadline_us.find(request.klass);
    request.deadline_us = class_deadline == options_.deadline_us.end() ? 0 : class_deadline->second;
    if (options_.input_lines.empty()) {
      request.body = GeneratedBody(request.klass);
    } else {
      const uint64_t n = options_.first_sequence + issued_;
      InputRequest made = options_.input_lines[n % options_.input_lines.size()].MakeRequest(
          n / options_.input_lines.size(), request.klass, request.deadline_us,
          options_.input_period_us);
      request.body = std::move(made.body);
      request.deadline_us = made.deadline_us;
    }
    for (ClassStats* stats : StatsFor(request)) ++stats->sent;
    ++issued_;
    ++outstanding_;
    Pool& pool = pools_[{tenant, request.klass}];
    if (!pool.idle.empty()) {
      Connection* connection = pool.idle.back();
      pool.idle.pop_back();
      return connection->Send(std::move(request));
    }
    const std::string klass = request.klass;
    pool.backlog.push_back(std::move(request));
    // As a client's connection pool grows while requests wait for a connection: the server then
    // sees the offered load, not the pool's limit, and its own admission (e.g. 429 for bulk)
    // decides.
    if (pool.opened < pool.limit && pool.backlog.size() > pool.connecting) Open(tenant, klass);
  }

  std::string GeneratedBody(const std::string& klass) {
    const uint64_t n = options_.first_sequence + issued_;
    std::uniform_int_distribution<int> account(0, options_.accounts - 1);
    std::uniform_int_distribution<int> cents(100, 2'000'000);
    const int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
    int amount = cents(rng_);
    return "{\"transaction_id\":\"load-" + std::to_string(options_.seed) + "-" +
           std::to_string(start_.time_since_epoch().count() % 1'000'000'007) + "-" +
           std::to_string(n) + "\",\"timestamp\":\"" + verdict::FormatRfc3339Micros(now_us) +
           "\",\"amount\":\"" + std::to_string(amount / 100) + "." +
           std::to_string(10 + amount % 90) +
           "\",\"currency\":\"USD\",\"sender\":{\"account\":"
           "\"L-" +
           std::to_string(account(rng_)) +
           "\",\"country\":\"US\"},\"receiver\":{"
           "\"account\":\"L-" +
           std::to_string(account(rng_)) +
           "\",\"country\":\"GB\"},"
           "\"channel\":\"wire\",\"type\":\"transfer\",\"priority\":\"" +
           klass + "\"}";
  }

  void StartDrain() {
    drain_timer_.expires_after(std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(options_.drain_s)));
    drain_timer_.async_wait([this](beast::error_code ec) {
      if (!ec) Finish();
    });
    MaybeFinish();
  }

  void MaybeFinish() {
    if (sending_done_ && outstanding_ == 0) Finish();
  }

  void Finish() {
    if (finished_) return;
    finished_ = true;
    // What never got an answer stays counted as sent and not answered.
    for (auto& [key, pool] : pools_) pool.backlog.clear();
    drain_timer_.cancel();
    for (auto& stream : streams_) stream->timer.cancel();
    for (auto& connection : connections_) connection->Close();
    ioc_.stop();
  }

  const LoadOptions& options_;
  net::io_context ioc_;
  std::vector<std::unique_ptr<Stream>> streams_;
  net::steady_timer drain_timer_{ioc_};
  std::mt19937_64 rng_;
  std::vector<std::pair<double, std::string>> classes_;
  tcp::endpoint endpoint_;
  std::vector<std::shared_ptr<Connection>> connections_;
  std::map<std::pair<int, std::string>, Pool> pools_;  // by tenant and class
  Clock::time_point start_, window_end_;
  uint64_t issued_ = 0;
  int64_t outstanding_ = 0;
  bool sending_done_ = false;
  bool finished_ = false;
  LoadResult result_;
};

void Connection::Connect(const tcp::endpoint& endpoint, bool resend_current) {
  endpoint_ = endpoint;
  resend_on_connect_ = resend_current;
  runner_.OnConnecting(*this);
  Attempt();
}

void Connection::Attempt() {
  socket_.async_connect(endpoint_, [self = shared_from_this()](beast::error_code ec) {
    if (ec) {
      // Retry shortly; the run's clock keeps going, so refused connections show as latency.
      auto timer = std::make_shared<net::steady_timer>(self->socket_.get_executor());
      timer->expires_after(std::chrono::milliseconds(100));
      timer->async_wait([self, timer](beast::error_code) {
        beast::error_code ignored;
        self->socket_.close(ignored);
        self->Attempt();
      });
      return;
    }
    beast::error_code ignored;
    self->socket_.set_option(tcp::no_delay(true), ignored);
    const bool resend = std::exchange(self->resend_on_connect_, false);
    self->runner_.OnConnected(*self, /*idle=*/!resend);
    if (resend) self->Send(std::move(self->current_));
  });
}

void Connection::Send(Pending request) {
  current_ = std::move(request);
  const LoadOptions& o = runner_.options();
  wire_ = "POST " + o.path + " HTTP/1.1\r\nHost: " + o.host +
          "\r\nContent-Type: application/json\r\nContent-Length: " +
          std::to_string(current_.body.size()) + "\r\n";
  for (const auto& [name, value] : o.headers) wire_ += name + ": " + value + "\r\n";
  if (tenant_ >= 0 && !o.tenants[tenant_].key.empty()) {
    wire_ += "Authorization: Bearer " + o.tenants[tenant_].key + "\r\n";
  }
  wire_ += "\r\n";
  wire_ += current_.body;
  net::async_write(
      socket_, net::buffer(wire_), [self = shared_from_this()](beast::error_code ec, size_t) {
        if (ec) return self->OnResponse(ec);
        self->parser_.emplace();
        self->parser_->body_limit(64 << 20);
        http::async_read(self->socket_, self->buffer_, *self->parser_,
                         [self](beast::error_code read_ec, size_t) { self->OnResponse(read_ec); });
      });
}

void Connection::OnResponse(beast::error_code ec) {
  if (ec) {
    Drop();
    if (ec != net::error::operation_aborted && current_.resends > 0 && !current_.reconnected) {
      // A resend found its connection closed while it waited out the Retry-After (the
      // server's idle limit, say): no answer was lost, so it goes once more on a new one.
      current_.reconnected = true;
      Connect(endpoint_, /*resend_current=*/true);
      return;
    }
    // The connection broke: the request is lost (counted), and the connection is rebuilt.
    runner_.OnLost(current_);
    if (ec != net::error::operation_aborted) Connect(endpoint_);
    return;
  }
  auto& response = parser_->get();
  if (auto delay = RetryDelay()) return ResendAfter(*delay, response.keep_alive());
  runner_.OnAnswer(current_, static_cast<int>(response.result_int()), response.body());
  if (!response.keep_alive()) {
    Drop();
    Connect(endpoint_);
    return;
  }
  runner_.OnIdle(*this);
}

void Connection::ResendAfter(std::chrono::seconds delay, bool keep_alive) {
  ++current_.resends;
  current_.reconnected = false;
  runner_.OnRetry(current_);
  if (!keep_alive) Drop();
  auto timer = std::make_shared<net::steady_timer>(socket_.get_executor(), delay);
  timer->async_wait([self = shared_from_this(), timer, keep_alive](beast::error_code ec) {
    if (ec) return;
    if (keep_alive) return self->Send(std::move(self->current_));
    self->Connect(self->endpoint_, /*resend_current=*/true);
  });
}

std::optional<std::chrono::seconds> Connection::RetryDelay() const {
  const auto& response = parser_->get();
  if (!runner_.options().honor_retry_after || response.result_int() != 429 ||
      current_.resends >= kMaxResends) {
    return std::nullopt;
  }
  const auto header = response.find(http::field::retry_after);
  if (header == response.end()) return std::nullopt;
  // Delta-seconds only (RFC 9110 §10.2.3); an HTTP-date is taken as no advice.
  const std::string_view value = header->value();
  int seconds = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (error != std::errc() || end != value.data() + value.size() || seconds < 0 || seconds > 9999) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

}  // namespace

void ClassStats::Merge(const ClassStats& other) {
  sent += other.sent;
  answered += other.answered;
  within_deadline += other.within_deadline;
  fallback += other.fallback;
  retried += other.retried;
  for (const auto& [code, count] : other.status) status[code] += count;
  latency.Merge(other.latency);
}

verdict::Result<TenantLoad> ParseTenantLoad(const std::string& text) {
  // NAME:RATE[:KEY]; the key may itself contain ':' (everything after the second colon).
  const size_t first = text.find(':');
  if (first == std::string::npos || first == 0) {
    return verdict::InvalidArgument("--tenant '" + text + "' is not NAME:RATE[:KEY]", "--tenant");
  }
  const size_t second = text.find(':', first + 1);
  TenantLoad tenant;
  tenant.name = text.substr(0, first);
  const std::string rate =
      text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  try {
    size_t used = 0;
    tenant.rate_per_s = std::stod(rate, &used);
    if (used != rate.size()) throw std::invalid_argument(rate);
  } catch (const std::exception&) {
    return verdict::InvalidArgument(
        "--tenant '" + tenant.name + "': rate '" + rate + "' is not a number", "--tenant");
  }
  if (!(tenant.rate_per_s > 0)) {
    return verdict::InvalidArgument("--tenant '" + tenant.name + "': rate must be > 0", "--tenant");
  }
  if (second != std::string::npos) tenant.key = text.substr(second + 1);
  return tenant;
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  beast::error_code ec;
  auto address = net::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

verdict::Result<LoadResult> RunLoad(const LoadOptions& options) {
  if (!IsLoopbackHost(options.host)) {
    return verdict::InvalidArgument("target host '" + options.host +
                                        "' is not a loopback address; verdict-load only "
                                        "targets 127.0.0.0/8 or ::1",
                                    "--target");
  }
  if (options.tenants.empty() && !(options.rate_per_s > 0)) {
    return verdict::InvalidArgument("rate must be > 0", "--rate");
  }
  std::set<std::string> tenant_names;
  for (const TenantLoad& t : options.tenants) {
    if (t.name.empty()) return verdict::InvalidArgument("tenant name is empty", "--tenant");
    if (!tenant_names.insert(t.name).second) {
      return verdict::InvalidArgument("tenant '" + t.name + "' is given twice", "--tenant");
    }
    if (!(t.rate_per_s > 0)) {
      return verdict::InvalidArgument("tenant '" + t.name + "' needs a rate > 0", "--tenant");
    }
    if (t.key.find_first_of("\r\n") != std::string::npos) {
      return verdict::InvalidArgument("tenant '" + t.name + "' key has a line break", "--tenant");
    }
  }
  if (!(options.duration_s > 0) || options.duration_s > 3600) {
    return verdict::InvalidArgument("duration must be in (0, 3600] seconds", "--duration");
  }
  if (options.connections < 1 || options.connections > 10'000) {
    return verdict::InvalidArgument("connections must be 1..10000", "--connections");
  }
  if (options.max_connections != 0 &&
      (options.max_connections < options.connections || options.max_connections > 10'000)) {
    return verdict::InvalidArgument("max-connections must be 0 or from --connections to 10000",
                                    "--max-connections");
  }
  if (options.mix.empty()) return verdict::InvalidArgument("mix is empty", "--mix");
  for (const auto& [name, share] : options.mix) {
    if (name != "realtime" && name != "standard" && name != "bulk") {
      return verdict::InvalidArgument("unknown class '" + name + "' in mix", "--mix");
    }
    if (!(share >= 0)) return verdict::InvalidArgument("mix shares must be >= 0", "--mix");
  }
  Runner runner(options);
  return runner.Run();
}

}  // namespace load
