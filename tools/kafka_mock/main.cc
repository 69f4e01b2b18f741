// verdict-kafka-mock: librdkafka's mock Kafka cluster (rdkafka_mock.h: the Kafka wire protocol
// in memory, no broker) in a process of its own, so that it outlives an engine killed by a
// test. Creates the topics asked for, writes the bootstrap servers to --brokers-file (whole, by
// rename) and runs until SIGINT or SIGTERM. For tests and benchmarks only: nothing is stored.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void Usage() {
  std::fprintf(stderr,
               "usage: verdict-kafka-mock --brokers-file FILE [--topic NAME[:PARTITIONS]]...\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string brokers_file;
  std::vector<std::pair<std::string, int>> topics;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--brokers-file" && i + 1 < argc) {
      brokers_file = argv[++i];
    } else if (arg == "--topic" && i + 1 < argc) {
      std::string spec = argv[++i];
      int partitions = 1;
      if (size_t colon = spec.find(':'); colon != std::string::npos) {
        partitions = std::atoi(spec.c_str() + colon + 1);
        spec.resize(colon);
      }
      if (spec.empty() || partitions < 1) {
        Usage();
        return 2;
      }
      topics.emplace_back(spec, partitions);
    } else {
      Usage();
      return 2;
    }
  }
  if (brokers_file.empty()) {
    Usage();
    return 2;
  }
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);  // before librdkafka starts its threads

  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", error, sizeof(error));
  // The mock cluster belongs to a client handle; this one is never used to produce.
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
  if (handle == nullptr) {
    std::fprintf(stderr, "verdict-kafka-mock: %s\n", error);
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(handle, 1);
  if (cluster == nullptr) {
    std::fprintf(stderr, "verdict-kafka-mock: cannot create the mock cluster\n");
    return 1;
  }
  for (const auto& [name, partitions] : topics) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster, name.c_str(), partitions, 1);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "verdict-kafka-mock: topic %s: %s\n", name.c_str(),
                   rd_kafka_err2str(err));
      return 1;
    }
  }
  const std::string bootstraps = rd_kafka_mock_cluster_bootstraps(cluster);
  const std::string partial = brokers_file + ".partial";
  {
    std::ofstream out(partial);
    out << bootstraps << "\n";
    if (!out) {
      std::fprintf(stderr, "verdict-kafka-mock: cannot write %s\n", partial.c_str());
      return 1;
    }
  }
  if (std::rename(partial.c_str(), brokers_file.c_str()) != 0) {
    std::fprintf(stderr, "verdict-kafka-mock: cannot write %s\n", brokers_file.c_str());
    return 1;
  }
  std::printf("%s\n", bootstraps.c_str());
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&stop, &signal_number);
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
