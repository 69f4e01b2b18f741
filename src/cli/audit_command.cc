#include "cli/audit_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/audit_record_text.h"
#include "cluster/pg_journal_verifier.h"
#include "common/json_writer.h"
#include "common/rfc3339.h"
#include "engine/journal_replay.h"
#include "journal/exporter.h"
#include "journal/verifier.h"

namespace verdict {
namespace {

constexpr int kExitProblem = 1;
constexpr int kExitError = 2;

struct AuditArgs {
  std::string data_dir;
  std::string postgres_url;
  std::string kek_file;
  bool json = false;
  std::string public_key_hex;
  std::string id;
  std::string tenant;
  std::string from;
  std::string to;
  std::string account;
  std::string out;
};

[[noreturn]] void FailAudit(const Status& status) {
  std::cerr << "verdict audit: " << status.ToString() << "\n";
  throw CLI::RuntimeError(kExitError);
}

// `serve --data-dir` keeps the journal in DIR/journal; the audit commands take either that
// folder or DIR itself, so an auditor handed the engine's data dir need not know its layout.
AuditArgs WithJournalDir(AuditArgs a) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(fs::path(a.data_dir) / "CURRENT", ec) &&
      fs::exists(fs::path(a.data_dir) / "journal" / "CURRENT", ec)) {
    a.data_dir = (fs::path(a.data_dir) / "journal").string();
  }
  return a;
}

// The journal the command reads: the data dir's, or with --postgres the cluster journal's
// (read-only; its chain 0, the one chain of the cluster journal).
std::unique_ptr<journal::JournalReader> OpenReader(const AuditArgs& a) {
  Result<std::unique_ptr<journal::JournalReader>> reader =
      [&a]() -> Result<std::unique_ptr<journal::JournalReader>> {
    if (a.postgres_url.empty()) return journal::JournalReader::Open(a.data_dir, a.kek_file);
    VERDICT_ASSIGN_OR_RETURN(std::unique_ptr<cluster::PgJournalBackend> backend,
                             cluster::PgJournalBackend::OpenReadOnly(a.postgres_url, 0));
    return journal::JournalReader::OverBackend(std::move(backend), a.kek_file);
  }();
  if (!reader.ok()) FailAudit(reader.status());
  return std::move(reader).value();
}

// What the command reads, for its messages.
std::string Source(const AuditArgs& a) {
  return a.postgres_url.empty() ? a.data_dir : "the cluster journal in PostgreSQL";
}

// RFC 3339, or integer microseconds since the epoch.
std::optional<int64_t> ParseTime(const std::string& text, const char* flag) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  long long micros = std::strtoll(text.c_str(), &end, 10);
  if (end != nullptr && *end == '\0') return micros;
  Result<int64_t> parsed = ParseRfc3339Micros(text);
  if (!parsed.ok()) FailAudit(InvalidArgument(parsed.status().message(), flag));
  return *parsed;
}

std::optional<journal::PublicKey> TrustedKey(const AuditArgs& a) {
  if (a.public_key_hex.empty()) return std::nullopt;
  std::optional<journal::PublicKey> key = journal::ParsePublicKeyHex(a.public_key_hex);
  if (!key) FailAudit(InvalidArgument("--public-key must be 64 hex digits", "public-key"));
  return key;
}

// The cluster journal in PostgreSQL: every chain, each on its own.
void RunVerifyPostgres(const AuditArgs& a) {
  cluster::PgVerifyOptions options;
  options.url = a.postgres_url;
  options.kek_file = a.kek_file;
  options.trusted_public_key = TrustedKey(a);
  std::cerr << "verifying the cluster journal in PostgreSQL ...\n";
  Result<std::vector<cluster::ChainReport>> reports = cluster::VerifyPgJournal(options);
  if (!reports.ok()) FailAudit(reports.status());
  if (reports->empty()) FailAudit(NotFound("no journal chain in this database"));
  bool ok = true;
  std::string json = "[";
  for (const cluster::ChainReport& chain : *reports) {
    const journal::VerifyReport& r = chain.report;
    ok = ok && r.ok;
    if (a.json) {
      if (json.size() > 1) json += ",";
      json += "{\"chain\":" + std::to_string(chain.chain) +
              ",\"report\":" + journal::VerifyReportToJson(r) + "}";
    } else if (r.ok) {
      std::cout << "chain " << chain.chain << " OK: " << r.records << " records, " << r.checkpoints
                << " signed checkpoints verified; root " << journal::ToHex(r.root) << "\n";
    } else {
      std::cout << "chain " << chain.chain << " FAILED at record " << r.first_bad_seq << ": "
                << r.problem << "\n"
                << r.records << " records verified before it\n";
    }
  }
  if (a.json) std::cout << json << "]\n";
  if (!a.json && options.trusted_public_key == std::nullopt) {
    std::cerr << "checkpoints were checked against the keys they carry; pass --public-key to "
                 "require one trusted key\n";
  }
  if (!ok) throw CLI::RuntimeError(kExitProblem);
}

void RunVerify(const AuditArgs& a) {
  if (!a.postgres_url.empty()) return RunVerifyPostgres(a);
  if (a.data_dir.empty()) FailAudit(InvalidArgument("give --data-dir or --postgres", "data-dir"));
  journal::VerifyOptions options;
  options.data_dir = a.data_dir;
  options.kek_file = a.kek_file;
  options.trusted_public_key = TrustedKey(a);
  std::cerr << "verifying " << a.data_dir << " ...\n";
  Result<journal::VerifyReport> report = journal::Verify(options);
  if (!report.ok()) FailAudit(report.status());
  if (a.json) {
    std::cout << journal::VerifyReportToJson(*report) << "\n";
  } else if (report->ok) {
    std::cout << "OK: " << report->records << " records, " << report->checkpoints
              << " signed checkpoints verified; root " << journal::ToHex(report->root) << "\n";
    if (report->records_only_in_commit_log > 0) {
      std::cout << "of which " << report->records_only_in_commit_log
                << " are in the commit log only, verified where the engine's next start will "
                   "restore them\n";
    }
  } else {
    std::cout << "FAILED at record " << report->first_bad_seq << ": " << report->problem << "\n"
              << report->records << " records verified before it\n";
  }
  if (!report->ok) throw CLI::RuntimeError(kExitProblem);
}

void RunReplay(const AuditArgs& a) {
  std::cerr << "replaying " << Source(a) << " ...\n";
  Result<JournalReplayReport> report = ReplayJournal(*OpenReader(a));
  if (!report.ok()) FailAudit(report.status());
  if (a.json) {
    std::cout << JournalReplayReportToJson(*report) << "\n";
  } else if (report->ok()) {
    std::cout << "OK: " << report->decisions << " decisions replayed; feature vectors and "
              << report->accounts << " account states match the journal\n";
  } else {
    std::cout << "FAILED: " << report->feature_mismatches << " feature vectors differ (first at "
              << "record " << report->first_feature_mismatch_seq << "), "
              << report->state_mismatches << " account states differ"
              << (report->first_state_mismatch.empty() ? "" : " (first: ")
              << report->first_state_mismatch << (report->first_state_mismatch.empty() ? "" : ")")
              << "\n";
  }
  if (!report->ok()) throw CLI::RuntimeError(kExitProblem);
}

void RunShow(const AuditArgs& a) {
  Result<std::vector<journal::JournalRecord>> found = OpenReader(a)->Find(a.id, a.tenant);
  if (!found.ok()) FailAudit(found.status());
  if (found->empty()) {
    std::cerr << "verdict audit: no decision or transaction " << a.id << "\n";
    throw CLI::RuntimeError(kExitProblem);
  }
  for (const journal::JournalRecord& record : *found) {
    if (a.json) {
      std::cout << journal::RecordToJson(record) << "\n";
    } else {
      std::cout << AuditRecordText(record);
    }
  }
}

void RunExport(const AuditArgs& a) {
  journal::ExportFilter filter;
  filter.from_us = ParseTime(a.from, "from");
  filter.to_us = ParseTime(a.to, "to");
  filter.account = a.account;
  filter.tenant = a.tenant;
  std::unique_ptr<journal::JournalReader> reader = OpenReader(a);
  std::ofstream file;
  if (!a.out.empty()) {
    file.open(a.out, std::ios::binary | std::ios::trunc);
    if (!file) FailAudit(Unavailable("cannot open " + a.out + " for writing"));
  }
  std::ostream& out = a.out.empty() ? std::cout : file;
  Result<uint64_t> written = reader->ExportJsonLines(filter, out);
  if (!written.ok()) FailAudit(written.status());
  out.flush();
  if (!out) FailAudit(Unavailable("writing the export failed"));
  std::cerr << "exported " << *written << " records\n";
}

}  // namespace

void RegisterAuditCommand(CLI::App& app) {
  auto args = std::make_shared<AuditArgs>();
  CLI::App* audit = app.add_subcommand("audit", "Verify, show and export the decision journal");
  audit->require_subcommand(1);

  // Every subcommand reads a data dir's journal or, with --postgres, a cluster's.
  auto common = [&args](CLI::App* cmd) {
    CLI::Option* data_dir = cmd->add_option(
        "--data-dir", args->data_dir, "The engine's data directory, or the journal folder in it");
    cmd->add_option("--postgres", args->postgres_url,
                    "A cluster's PostgreSQL (libpq URL): its journal instead of a data dir")
        ->excludes(data_dir);
    cmd->add_option("--kek-file", args->kek_file,
                    "Key-encryption key file, to read encrypted record payloads");
  };
  // Either --data-dir or --postgres; the data dir's journal folder found in it.
  auto journal_args = [](const AuditArgs& a) {
    if (a.data_dir.empty() && a.postgres_url.empty()) {
      FailAudit(InvalidArgument("give --data-dir or --postgres", "data-dir"));
    }
    return a.postgres_url.empty() ? WithJournalDir(a) : a;
  };

  CLI::App* verify = audit->add_subcommand(
      "verify", "Check the hash chain, Merkle roots and checkpoint signatures");
  common(verify);
  verify->add_flag("--json", args->json, "Print the report as JSON on stdout");
  verify->add_option("--public-key", args->public_key_hex,
                     "Trusted Ed25519 public key (hex); default: the data dir's .pub file, or "
                     "with --postgres the key each checkpoint carries");
  verify->callback([args, journal_args] { RunVerify(journal_args(*args)); });

  CLI::App* show =
      audit->add_subcommand("show", "Print one decision by decision or transaction id");
  common(show);
  show->add_option("id", args->id, "Decision id (UUID) or transaction id")->required();
  show->add_option("--tenant", args->tenant, "Tenant of the transaction id (default: any)");
  show->add_flag("--json", args->json,
                 "Print each record as one JSON line (default: readable, features by name)");
  show->callback([args, journal_args] { RunShow(journal_args(*args)); });

  CLI::App* replay = audit->add_subcommand(
      "replay", "Re-run every journaled transaction; check features and account states match");
  common(replay);
  replay->add_flag("--json", args->json, "Print the report as JSON on stdout");
  replay->callback([args, journal_args] { RunReplay(journal_args(*args)); });

  CLI::App* exp = audit->add_subcommand("export", "Write decisions and admin events as JSON Lines");
  common(exp);
  exp->add_option("--from", args->from, "Decided at or after (RFC 3339 or epoch micros)");
  exp->add_option("--to", args->to, "Decided before (RFC 3339 or epoch micros)");
  exp->add_option("--account", args->account, "Only decisions touching this account");
  exp->add_option("--tenant", args->tenant, "Only this tenant's decisions");
  exp->add_option("--out", args->out, "Output file (default: stdout)");
  exp->callback([args, journal_args] { RunExport(journal_args(*args)); });
}

}  // namespace verdict
