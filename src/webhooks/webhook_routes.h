// GET /v1/webhooks (admin role): the delivery state of every webhook endpoint the caller's tenant
// may see (its own and the deployment's): cursor, journal head, pending records, last attempt and
// its status, failures. Never the secret. The dispatcher must outlive the router.
#pragma once

#include "api/router.h"
#include "webhooks/webhook_dispatcher.h"

namespace verdict::webhooks {

void RegisterWebhookRoutes(const WebhookDispatcher& dispatcher, Router& router);

// The route's JSON body (for tests).
std::string EndpointsToJson(const std::vector<EndpointStatus>& endpoints);

}  // namespace verdict::webhooks
