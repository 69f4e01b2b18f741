// TakeClusterJournalForImport: how `verdict import` writes a cluster's journal (in PostgreSQL)
// rather than a data directory's. An import goes before serving, so it refuses while any node is
// live; otherwise it names itself owner of every partition in the partition map, at an epoch
// above every epoch there, with one compare-and-set on the map (a node that starts meanwhile
// makes the write fail, and the import with it), and returns the journal backend opener that
// claims the journal's fence at that epoch. When nodes start, the controller finds the importer
// not live and gives its partitions to them at a higher epoch, so they claim the journal above
// it and continue from the imported head. Stateless; runs on the calling thread.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "engine/engine_options.h"
#include "journal/journal_backend.h"

namespace verdict {

struct ClusterImportJournal {
  std::string owner;  // the id the map and the fence name the importer by
  uint64_t epoch = 0;
  journal::BackendOpener open;
};

Result<ClusterImportJournal> TakeClusterJournalForImport(const ClusterSettings& cluster);

}  // namespace verdict
