#include "cli/case_labels.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cases/case_store.h"
#include "journal/journal.h"

namespace verdict {

Result<training::LabelOverrides> LoadLabelsFromCases(const std::string& data_dir,
                                                     const std::string& tenant) {
  // The journal logs as it opens; stdout carries the command's report.
  if (spdlog::get("cli") == nullptr && spdlog::get("labels") == nullptr) {
    spdlog::set_default_logger(spdlog::stderr_color_mt("labels"));
  }
  journal::JournalOptions options;
  options.data_dir = data_dir + "/journal";
  options.min_free_bytes = 0;  // read only
  auto opened = journal::Journal::Open(options);
  if (!opened.ok()) {
    return Status(opened.status().code(),
                  "--labels-from-cases: cannot open the journal at " + options.data_dir +
                      " (is the engine running?): " + opened.status().message(),
                  "labels-from-cases");
  }
  return cases::LoadCaseLabels(**opened, tenant);
}

}  // namespace verdict
