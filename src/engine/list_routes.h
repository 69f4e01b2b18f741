// The published-list route: POST /v1/lists/import (admin role) takes a new version of one
// sanctions list of the caller's tenant's policy (`list NAME = names from opensanctions ...`;
// body: policy/list_import.h), rebuilds the tenant's bundle with the list's files replaced,
// and activates it like POST /v1/policy/ingest: journaled (a lists.import admin event, then
// policy.activate), stored, swapped atomically. A list with any malformed row is refused with
// every error and nothing changes. GET /v1/lists (analyst, admin or auditor) shows the
// tenant's lists in force and its last continuous-screening run (engine/rescreener.h), which
// every activation of a new list version starts (the engine's policy-activation hook). The
// Engine must outlive the router; the re-screen worker stops with the router.
#pragma once

#include "api/router.h"
#include "common/metrics.h"
#include "common/result.h"
#include "engine/engine.h"

namespace verdict {

// Starts the re-screen worker (resuming a stored run that had not finished) and sets the
// engine's policy-activation hook to it; an error when the stored runs cannot be read.
Status RegisterListRoutes(Engine& engine, MetricsRegistry& metrics, Router& router);

}  // namespace verdict
