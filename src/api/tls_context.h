// The server's TLS (internal to src/api; docs/security.md): the OpenSSL context built from
// TlsOptions (versions, cipher suites, groups, certificate, client verification) and the verified
// client certificate's subject. A context is built once before serving and then only read by
// the I/O threads, as OpenSSL allows.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "api/http_beast.h"
#include "api/http_server.h"
#include "common/result.h"

namespace verdict::http_internal {

// Fails with a Status naming the server.tls key at fault (a file that cannot be loaded, a key
// not matching its certificate).
Result<std::unique_ptr<ssl::context>> MakeTlsContext(const TlsOptions& tls);

// The subject of the client certificate that the handshake verified, as an RFC 4514 string
// (UTF-8 kept, control characters escaped); empty when the client sent none.
std::string VerifiedPeerSubject(SSL* ssl);

}  // namespace verdict::http_internal
