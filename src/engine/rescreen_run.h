// RescreenRun: one continuous-screening run of a tenant (docs/policy.md, "Continuous
// screening"): the names each changed list added, the window of decisions it re-screens and how
// far it got. Stored in the journal's registry under "rescreen/<tenant>" (synced) when a list
// version is activated, so that a restart resumes a run that had not finished, and rendered as
// the list status's "rescreen" object. Value type with a JSON codec; thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/json_writer.h"
#include "common/result.h"
#include "policy/watchlist.h"

namespace verdict {

inline constexpr std::string_view kRescreenPrefix = "rescreen/";

enum class RescreenState {
  kPending,     // activated; waits for the worker, or was interrupted (a restart resumes it)
  kRunning,     // reading the window's decisions and screening
  kDone,        // finished: the counts are final
  kFailed,      // stopped by a journal or store error (error says which); a restart retries it
  kSuperseded,  // a newer version's run took over what was left of this one
};
std::string_view RescreenStateName(RescreenState state);

struct RescreenList {
  std::string list;
  // The list's version: the publisher's, as imported (POST /v1/lists/import), else
  // "policy-<version>" for a list a policy bundle changed.
  std::string version;
  std::vector<Watchlist::Input> added;  // the names this run re-screens against
};

struct RescreenRun {
  std::string run_id;          // "<tenant policy version>@<activation time in µs>"
  std::string policy_version;  // the policy that brought the list versions
  std::string principal;       // who activated it
  RescreenState state = RescreenState::kPending;
  int64_t activated_at_us = 0;
  int64_t since_us = 0;  // the window's start: decisions decided at or after this
  std::vector<RescreenList> lists;
  // Progress and results (zero until the run reads).
  uint64_t records_read = 0;
  uint64_t parties = 0;  // distinct party names screened
  uint64_t hits = 0;     // hits on the added names
  uint64_t cases_opened = 0;
  bool truncated = false;  // the party bound stopped the reading before the window's start
  int64_t finished_at_us = 0;
  std::string error;
};

// The stored form: the status fields plus every added name.
std::string RescreenRunToJson(const RescreenRun& run);
Result<RescreenRun> RescreenRunFromJson(std::string_view json);
// The status an API shows (no names: counts of added names per list).
void WriteRescreenStatusJson(const RescreenRun& run, JsonWriter& w);

}  // namespace verdict
