// [[ingest]] tables: the contract's keys, defaults, and errors that name the key.
#include "ingest/ingest_options.h"

#include <gtest/gtest.h>

#include "engine/engine_options.h"

namespace verdict::ingest {
namespace {

constexpr const char* kBoth = R"(
[engine]
workers = 2

[[ingest]]
kind = "kafka"
brokers = "127.0.0.1:9092"
topic = "payments"
decisions_topic = "decisions"
dead_letter = "payments-dlq"
tenant = "acme"
priority = "bulk"
session_timeout_ms = 6000

[[ingest]]
kind = "amqp"
url = "amqp://guest:guest@127.0.0.1:5672/"
queue = "payments"
decisions_exchange = "decisions"
dead_letter = "payments-dlq"
)";

TEST(IngestOptionsTest, ReadsEveryStreamWithItsKeysAndDefaults) {
  Result<std::vector<IngestOptions>> streams = ParseIngestOptions(kBoth, "verdict.toml");
  ASSERT_TRUE(streams.ok()) << streams.status().ToString();
  ASSERT_EQ(streams->size(), 2u);
  const IngestOptions& kafka = (*streams)[0];
  EXPECT_EQ(kafka.kind, StreamKind::kKafka);
  EXPECT_EQ(kafka.brokers, "127.0.0.1:9092");
  EXPECT_EQ(kafka.topic, "payments");
  EXPECT_EQ(kafka.decisions_topic, "decisions");
  EXPECT_EQ(kafka.dead_letter, "payments-dlq");
  EXPECT_EQ(kafka.tenant, "acme");
  EXPECT_EQ(kafka.priority, Priority::kBulk);
  EXPECT_EQ(kafka.Name(), "kafka:payments");
  EXPECT_EQ(kafka.session_timeout_ms, 6000u);
  const IngestOptions& amqp = (*streams)[1];
  EXPECT_EQ(amqp.kind, StreamKind::kAmqp);
  EXPECT_EQ(amqp.url, "amqp://guest:guest@127.0.0.1:5672/");
  EXPECT_EQ(amqp.queue, "payments");
  EXPECT_EQ(amqp.decisions_exchange, "decisions");
  EXPECT_EQ(amqp.tenant, "default");
  EXPECT_EQ(amqp.priority, Priority::kStandard);
  EXPECT_EQ(amqp.Name(), "amqp:payments");
}

TEST(IngestOptionsTest, TheEngineAcceptsTheSameFile) {
  Result<EngineOptions> engine = ParseEngineOptions(kBoth, "verdict.toml");
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
}

TEST(IngestOptionsTest, NoStreamsIsAnEmptyList) {
  Result<std::vector<IngestOptions>> streams = ParseIngestOptions("[engine]\nworkers = 2\n", "x");
  ASSERT_TRUE(streams.ok());
  EXPECT_TRUE(streams->empty());
  Result<std::vector<IngestOptions>> no_file = LoadIngestOptions("");
  ASSERT_TRUE(no_file.ok());
  EXPECT_TRUE(no_file->empty());
}

struct BadCase {
  const char* toml;
  const char* field;
};

TEST(IngestOptionsTest, MistakesAreErrorsNamingTheKey) {
  const BadCase cases[] = {
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\n",
       "ingest[0].topic"},
      {"[[ingest]]\nkind = \"mqtt\"\n", "ingest[0].kind"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\npriority = \"urgent\"\n",
       "ingest[0].priority"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\ntopics = \"typo\"\n",
       "ingest[0].topics"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\nqueue = \"q\"\n",
       "ingest[0].queue"},
      {"[[ingest]]\nkind = \"amqp\"\nurl = \"http://x\"\nqueue = \"q\"\n"
       "decisions_exchange = \"e\"\ndead_letter = \"x\"\n",
       "ingest[0].url"},
      {"[[ingest]]\nkind = \"amqp\"\nurl = \"amqp://h/\"\nqueue = \"q\"\n"
       "decisions_exchange = \"e\"\n",
       "ingest[0].dead_letter"},
      {"[[ingest]]\nkind = \"amqp\"\nurl = \"amqp://h/\"\nqueue = \"q\"\n"
       "decisions_exchange = \"e\"\ndead_letter = \"q\"\n",
       "ingest[0].dead_letter"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\ntenant = \"a/b\"\n",
       "ingest[0].tenant"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = 5\n", "ingest[0].brokers"},
      {"[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
       "dead_letter = \"x\"\nsession_timeout_ms = 10\n",
       "ingest[0].session_timeout_ms"},
      {"[[ingest]]\nkind = \"amqp\"\nurl = \"amqp://h/\"\nqueue = \"q\"\n"
       "decisions_exchange = \"e\"\ndead_letter = \"x\"\nsession_timeout_ms = 6000\n",
       "ingest[0].session_timeout_ms"},
      {"[ingest]\nkind = \"kafka\"\n", "ingest"},
  };
  for (const BadCase& c : cases) {
    Result<std::vector<IngestOptions>> streams = ParseIngestOptions(c.toml, "verdict.toml");
    ASSERT_FALSE(streams.ok()) << c.toml;
    EXPECT_EQ(streams.status().field(), c.field) << streams.status().ToString();
    EXPECT_NE(streams.status().message().find("verdict.toml"), std::string::npos);
  }
}

TEST(IngestOptionsTest, TheSameInputTwiceIsRefused) {
  const char* twice =
      "[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d\"\n"
      "dead_letter = \"x\"\n"
      "[[ingest]]\nkind = \"kafka\"\nbrokers = \"b:1\"\ntopic = \"t\"\ndecisions_topic = \"d2\"\n"
      "dead_letter = \"x2\"\n";
  Result<std::vector<IngestOptions>> streams = ParseIngestOptions(twice, "verdict.toml");
  ASSERT_FALSE(streams.ok());
  EXPECT_EQ(streams.status().field(), "ingest[1]");
}

}  // namespace
}  // namespace verdict::ingest
