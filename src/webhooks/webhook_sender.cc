#include "webhooks/webhook_sender.h"

#include "cluster/http_client.h"

namespace verdict::webhooks {
namespace {

class HttpWebhookSender final : public WebhookSender {
 public:
  HttpWebhookSender(cluster::HttpEndpoint endpoint, std::string target,
                    std::chrono::milliseconds timeout)
      : client_(std::move(endpoint), timeout), target_(std::move(target)) {}

  Result<int> Post(const std::vector<std::pair<std::string, std::string>>& headers,
                   std::string_view body, std::chrono::milliseconds timeout) override {
    cluster::HttpCall call;
    call.method = "POST";
    call.target = target_;
    call.headers = headers;
    call.body = std::string(body);
    call.timeout = timeout;
    // Deliveries are at least once anyway: the receiver deduplicates on Verdict-Delivery.
    call.may_resend = true;
    VERDICT_ASSIGN_OR_RETURN(cluster::HttpAnswer answer, client_.Call(call));
    return answer.status;
  }

 private:
  cluster::HttpClient client_;
  std::string target_;
};

// The path and query of an http:// URL; "/" when it has none.
std::string TargetOf(std::string_view url) {
  const std::string_view rest = url.substr(url.find("://") + 3);
  const size_t slash = rest.find('/');
  return slash == std::string_view::npos ? std::string("/") : std::string(rest.substr(slash));
}

}  // namespace

Result<std::unique_ptr<WebhookSender>> MakeHttpWebhookSender(std::string_view url,
                                                             std::chrono::milliseconds timeout) {
  VERDICT_ASSIGN_OR_RETURN(cluster::HttpEndpoint endpoint, cluster::ParseHttpEndpoint(url));
  return std::unique_ptr<WebhookSender>(
      std::make_unique<HttpWebhookSender>(std::move(endpoint), TargetOf(url), timeout));
}

}  // namespace verdict::webhooks
