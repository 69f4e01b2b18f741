#include "api/tls_context.h"

#include <openssl/err.h>
#include <openssl/x509.h>

#include <array>

namespace verdict {
namespace http_internal {
namespace {

// TLS 1.2: forward secrecy (ECDHE) and AEAD only, the strongest first. TLS 1.3 suites are all
// AEAD with forward secrecy; OpenSSL's defaults are kept, named here so they are on record.
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256";
constexpr const char* kTls13Suites =
    "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256";
constexpr const char* kGroups = "X25519:P-256:P-384";

std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    std::array<char, 256> text{};
    ERR_error_string_n(e, text.data(), text.size());
    if (!out.empty()) out += "; ";
    out += text.data();
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

}  // namespace

std::string VerifiedPeerSubject(SSL* ssl) {
  X509* cert = SSL_get0_peer_certificate(ssl);  // not owned
  if (cert == nullptr || SSL_get_verify_result(ssl) != X509_V_OK) return {};
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return {};
  std::string subject;
  if (X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0,
                         XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) >= 0) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    if (n > 0 && data != nullptr) subject.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  return subject;
}

Result<std::unique_ptr<ssl::context>> MakeTlsContext(const TlsOptions& tls) {
  if (tls.key_file.empty()) {
    return InvalidArgument("server.tls.key_file is required with server.tls.cert_file",
                           "server.tls.key_file");
  }
  if (tls.min_version != "1.2" && tls.min_version != "1.3") {
    return InvalidArgument("server.tls.min_version must be \"1.2\" or \"1.3\"",
                           "server.tls.min_version");
  }
  if (tls.client_cert != TlsOptions::ClientCert::kOff && tls.client_ca_file.empty()) {
    return InvalidArgument("server.tls.client_ca_file is required when client_cert is not \"off\"",
                           "server.tls.client_ca_file");
  }
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  ERR_clear_error();
  auto fail = [](std::string what, std::string key) {
    return InvalidArgument(what + ": " + OpenSslErrors(), std::move(key));
  };
  if (SSL_CTX_set_min_proto_version(
          native, tls.min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION) != 1 ||
      SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1 ||
      SSL_CTX_set_ciphersuites(native, kTls13Suites) != 1 ||
      SSL_CTX_set1_groups_list(native, kGroups) != 1) {
    return fail("cannot restrict TLS versions and ciphers", "server.tls.min_version");
  }
  SSL_CTX_set_options(
      native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  if (SSL_CTX_use_certificate_chain_file(native, tls.cert_file.c_str()) != 1) {
    return fail("cannot load the certificate chain '" + tls.cert_file + "'",
                "server.tls.cert_file");
  }
  if (SSL_CTX_use_PrivateKey_file(native, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return fail("cannot load the private key '" + tls.key_file + "'", "server.tls.key_file");
  }
  if (SSL_CTX_check_private_key(native) != 1) {
    return fail("the private key '" + tls.key_file + "' does not match '" + tls.cert_file + "'",
                "server.tls.key_file");
  }
  if (tls.client_cert != TlsOptions::ClientCert::kOff) {
    if (SSL_CTX_load_verify_locations(native, tls.client_ca_file.c_str(), nullptr) != 1) {
      return fail("cannot load the client CA file '" + tls.client_ca_file + "'",
                  "server.tls.client_ca_file");
    }
    // The CA names sent in the CertificateRequest, so a client can pick the right certificate.
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(tls.client_ca_file.c_str());
    if (names != nullptr) SSL_CTX_set_client_CA_list(native, names);
    int mode = SSL_VERIFY_PEER;
    if (tls.client_cert == TlsOptions::ClientCert::kRequire) {
      mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
    SSL_CTX_set_verify(native, mode, nullptr);
    // Resumed sessions must carry the verified certificate; OpenSSL refuses to resume without
    // a session id context when verifying clients.
    static constexpr unsigned char kContext[] = "verdict";
    SSL_CTX_set_session_id_context(native, kContext, sizeof(kContext) - 1);
  }
  return ctx;
}

}  // namespace http_internal

bool ParseClientCertMode(std::string_view name, TlsOptions::ClientCert* mode) {
  if (name == "off") {
    *mode = TlsOptions::ClientCert::kOff;
  } else if (name == "optional") {
    *mode = TlsOptions::ClientCert::kOptional;
  } else if (name == "require") {
    *mode = TlsOptions::ClientCert::kRequire;
  } else {
    return false;
  }
  return true;
}

}  // namespace verdict
