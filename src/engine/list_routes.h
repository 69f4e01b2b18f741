// The published-list route: POST /v1/lists/import (admin role) takes a new version of one
// sanctions list of the caller's tenant's policy (`list NAME = names from opensanctions ...`;
// body: policy/list_import.h), rebuilds the tenant's bundle with the list's files replaced,
// and activates it like POST /v1/policy/ingest: journaled (a lists.import admin event, then
// policy.activate), stored, swapped atomically. A list with any malformed row is refused with
// every error and nothing changes. The Engine must outlive the router.
#pragma once

#include "api/router.h"
#include "engine/engine.h"

namespace verdict {

void RegisterListRoutes(Engine& engine, Router& router);

}  // namespace verdict
