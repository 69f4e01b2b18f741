#include "engine/report_routes.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/error_response.h"
#include "common/json_writer.h"
#include "common/sha256.h"
#include "engine/case_routes.h"
#include "engine/record_explanation.h"
#include "features/feature_vector.h"
#include "reports/goaml_writer.h"
#include "reports/html_writer.h"
#include "reports/report_data.h"

namespace verdict {
namespace {

enum class ReportFormat { kGoaml, kHtml };

// The query: exactly one "format", "goaml" or "html"; anything else is an error naming it.
Result<ReportFormat> ParseReportQuery(std::string_view query) {
  std::optional<ReportFormat> format;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    const std::string key(pair.substr(0, std::min<size_t>(eq, 40)));
    if (key != "format") {
      return InvalidArgument("unknown query parameter '" + key + "'; use format=goaml or html",
                             key);
    }
    VERDICT_ASSIGN_OR_RETURN(
        std::string value,
        DecodeQueryValue(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1),
                         "format"));
    if (value == "goaml") {
      format = ReportFormat::kGoaml;
    } else if (value == "html") {
      format = ReportFormat::kHtml;
    } else {
      return InvalidArgument("format must be 'goaml' or 'html'", "format");
    }
  }
  if (!format) return InvalidArgument("format is required: goaml or html", "format");
  return *format;
}

// 409 with the goAML error's stable code, naming the configuration key or transaction field.
HttpResponse GoamlRefusal(const Status& status) {
  return ErrorResponse(HttpError{409, reports::GoamlErrorCode(status)}, status);
}

// The admin event "reports.export" of one export: the case, the format, the caller and the
// SHA-256 of the bytes; durable when it returns.
Status JournalExport(journal::Journal& journal, const HttpRequest& request, const cases::Case& c,
                     std::string_view format, size_t bytes, const std::string& sha256) {
  journal::AdminEvent event;
  event.tenant = c.tenant;
  event.principal =
      request.auth.principal.empty() ? std::string("anonymous") : request.auth.principal;
  event.action = "reports.export";
  event.object = c.case_id;
  JsonWriter w(event.details_json);
  w.BeginObject()
      .Key("format")
      .String(format)
      .Key("sha256")
      .String(sha256)
      .Key("bytes")
      .Uint(bytes)
      .Key("decision_id")
      .String(c.decision_id)
      .Key("transaction_id")
      .String(c.transaction_id)
      .Key("journal_seq")
      .Uint(c.journal_seq)
      .EndObject();
  return journal.RecordAdminEvent(event);
}

struct ReportContext {
  cases::CaseStore& store;
  journal::Journal& journal;
  const lifecycle::TenantModels* models;
  reports::ReportOptions options;
  const Clock& clock;
};

HttpResponse Report(const ReportContext& ctx, const HttpRequest& request) {
  auto format = ParseReportQuery(request.query);
  if (!format.ok()) return ErrorResponse(format.status());
  auto c = ctx.store.Get(request.auth.tenant, request.PathParam("case_id"));
  if (!c.ok()) return ErrorResponse(c.status());
  const bool goaml = *format == ReportFormat::kGoaml;
  if (goaml) {
    if (Status escalated = reports::CheckEscalated(*c); !escalated.ok()) {
      return GoamlRefusal(escalated);
    }
  }
  const reports::ReportingEntity entity = ctx.options.Resolve(c->tenant);
  if (goaml) {
    // Before reading the journal: a deployment without the keys fails fast and the same way.
    if (Status configured = reports::CheckGoaml(entity); !configured.ok()) {
      return GoamlRefusal(configured);
    }
  }
  const lifecycle::TenantModels* models = ctx.models;
  auto data =
      reports::GatherReportData(ctx.journal, *c, [models](const journal::JournalRecord& record) {
        return ExplainJournaledRecord(models, record);
      });
  if (!data.ok()) return ErrorResponse(data.status());
  const int64_t now = ctx.clock.NowMicros();
  HttpResponse response;
  if (goaml) {
    auto xml = reports::WriteGoaml(*data, entity, now);
    if (!xml.ok()) return GoamlRefusal(xml.status());
    response.body = std::move(xml).value();
    response.content_type = "application/xml; charset=utf-8";
  } else {
    response.body = reports::WriteHtml(*data, entity, now);
    response.content_type = "text/html; charset=utf-8";
    // The narrative is printed, never run: no script, frame or remote resource may load.
    response.headers.emplace_back("Content-Security-Policy",
                                  "default-src 'none'; style-src 'unsafe-inline'");
  }
  const std::string sha256 = Sha256Hex(response.body);
  // Journaled before it is answered: a report the engine produced is on record with its digest.
  if (Status recorded = JournalExport(ctx.journal, request, *c, goaml ? "goaml" : "html",
                                      response.body.size(), sha256);
      !recorded.ok()) {
    return ErrorResponse(recorded);
  }
  const std::string filename =
      std::string(goaml ? "str-" : "case-") + c->case_id + (goaml ? ".xml" : ".html");
  response.headers.emplace_back(
      "Content-Disposition",
      std::string(goaml ? "attachment" : "inline") + "; filename=\"" + filename + "\"");
  response.headers.emplace_back("X-Report-SHA256", sha256);
  return response;
}

}  // namespace

void RegisterReportRoutes(cases::CaseStore& cases, journal::Journal& journal,
                          const lifecycle::TenantModels* models,
                          const reports::ReportOptions& options, const Clock& clock,
                          ReportWorker& worker, Router& router) {
  auto ctx =
      std::make_shared<const ReportContext>(ReportContext{cases, journal, models, options, clock});
  router.Add(
      "GET", "/v1/cases/{case_id}/report",
      [ctx, &worker](HttpRequest&& request, Responder respond) {
        auto held = std::make_shared<const HttpRequest>(std::move(request));
        const bool queued = worker.Post([ctx, held, respond](bool run) {
          if (!run) {
            return respond(ErrorResponse(Status(
                StatusCode::kUnavailable, "the engine is stopping; the report was not produced")));
          }
          respond(Report(*ctx, *held));
        });
        if (!queued) {
          HttpResponse busy = ErrorResponse(Status(
              StatusCode::kResourceExhausted,
              std::to_string(kMaxQueuedReports) + " reports are waiting to be produced; retry"));
          busy.headers.emplace_back("Retry-After", "1");
          respond(std::move(busy));
        }
      },
      RouteOptions{{}, Role::kAnalyst});
}

}  // namespace verdict
