// [server.tls] configuration (HttpServerOptions::tls), read by engine_options.cc.
#include <gtest/gtest.h>

#include "engine/engine_options.h"

namespace verdict {
namespace {

TEST(TlsOptionsTest, OffByDefault) {
  auto options = ParseEngineOptions("", "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_FALSE(options->server.tls.enabled());
  EXPECT_EQ(options->server.tls.client_cert, TlsOptions::ClientCert::kOff);
  EXPECT_EQ(options->server.tls.min_version, "1.2");
}

TEST(TlsOptionsTest, ReadsEveryKey) {
  auto options = ParseEngineOptions(
      "[server.tls]\ncert_file = \"s.pem\"\nkey_file = \"s.key\"\nclient_ca_file = \"ca.pem\"\n"
      "client_cert = \"require\"\nmin_version = \"1.3\"\nhandshake_timeout_ms = 2500\n",
      "t.toml");
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  const TlsOptions& tls = options->server.tls;
  EXPECT_TRUE(tls.enabled());
  EXPECT_EQ(tls.cert_file, "s.pem");
  EXPECT_EQ(tls.key_file, "s.key");
  EXPECT_EQ(tls.client_ca_file, "ca.pem");
  EXPECT_EQ(tls.client_cert, TlsOptions::ClientCert::kRequire);
  EXPECT_EQ(tls.min_version, "1.3");
  EXPECT_EQ(tls.handshake_timeout_ms, 2500);
}

TEST(TlsOptionsTest, BadValuesAreErrorsNamingTheKey) {
  struct Case {
    const char* toml;
    const char* field;
  };
  const Case cases[] = {
      {"[server.tls]\nciphers = \"ALL\"\n", "server.tls.ciphers"},
      {"[server]\ntls = 1\n", "server.tls"},
      {"[server.tls]\ncert_file = \"s.pem\"\n", "server.tls.key_file"},
      {"[server.tls]\nkey_file = \"s.key\"\n", "server.tls.cert_file"},
      {"[server.tls]\ncert_file = \"s\"\nkey_file = \"k\"\nclient_cert = \"maybe\"\n",
       "server.tls.client_cert"},
      {"[server.tls]\ncert_file = \"s\"\nkey_file = \"k\"\nclient_cert = \"require\"\n",
       "server.tls.client_ca_file"},
      {"[server.tls]\nclient_cert = \"optional\"\nclient_ca_file = \"ca\"\n",
       "server.tls.cert_file"},
      {"[server.tls]\nmin_version = \"1.1\"\n", "server.tls.min_version"},
      {"[server.tls]\nhandshake_timeout_ms = 10\n", "server.tls.handshake_timeout_ms"},
  };
  for (const Case& c : cases) {
    auto options = ParseEngineOptions(c.toml, "t.toml");
    ASSERT_FALSE(options.ok()) << c.toml;
    EXPECT_EQ(options.status().field(), c.field) << c.toml << " -> " << options.status().ToString();
  }
}

}  // namespace
}  // namespace verdict
