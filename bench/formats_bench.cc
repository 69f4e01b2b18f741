// Parse + map per payment message: ISO 20022 pacs.008 (1 and 10 transactions), pain.001
// (2 transactions), SWIFT MT103, against the JSON decoder on the same transaction as the
// side-by-side baseline. items_per_second counts transactions.
#include <benchmark/benchmark.h>

#include <string>

#include "api/transaction_json.h"
#include "formats/iso20022.h"
#include "formats/payment_test_samples.h"
#include "formats/swift_mt.h"

namespace verdict {
namespace {

// The sample pacs.008 cut to its first transaction, repeated `n` times.
std::string Pacs008With(int n) {
  const std::string s(samples::kPacs008);
  const size_t first = s.find("<CdtTrfTxInf>");
  const size_t second = s.find("<CdtTrfTxInf>", first + 1);
  const size_t end = s.find("</FIToFICstmrCdtTrf>");
  const std::string tx = s.substr(first, second - first);
  std::string head = s.substr(0, first);
  head.replace(head.find("<NbOfTxs>2"), 10, "<NbOfTxs>" + std::to_string(n));
  head.erase(head.find("<CtrlSum>"), std::string("<CtrlSum>10950.50</CtrlSum>").size());
  std::string out = head;
  for (int i = 0; i < n; ++i) out += tx;
  return out + s.substr(end);
}

void RunIso(benchmark::State& state, const std::string& xml) {
  size_t txns = 0;
  for (auto _ : state) {
    Result<Iso20022Message> m = DecodeIso20022(xml);
    if (!m.ok()) {
      state.SkipWithError(m.status().message().c_str());
      return;
    }
    for (const auto& t : m->transactions) {
      if (!t.ok()) {
        state.SkipWithError(t.status().message().c_str());
        return;
      }
    }
    txns += m->transactions.size();
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(static_cast<int64_t>(txns));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * xml.size()));
}

void BM_Pacs008_1(benchmark::State& state) { RunIso(state, Pacs008With(1)); }
void BM_Pacs008_10(benchmark::State& state) { RunIso(state, Pacs008With(10)); }
void BM_Pain001_2(benchmark::State& state) { RunIso(state, std::string(samples::kPain001)); }

void BM_Mt103(benchmark::State& state) {
  const std::string mt(samples::kMt103);
  for (auto _ : state) {
    Result<Transaction> t = DecodeSwiftMt(mt);
    if (!t.ok()) {
      state.SkipWithError(t.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * mt.size()));
}

// Baseline: the JSON decoder on the canonical JSON of the same (first pacs.008) transaction.
void BM_JsonSameTransaction(benchmark::State& state) {
  Result<Iso20022Message> m = DecodeIso20022(Pacs008With(1));
  if (!m.ok() || !m->transactions[0].ok()) {
    state.SkipWithError("sample does not decode");
    return;
  }
  const std::string json = CanonicalTransactionJson(*m->transactions[0]);
  TransactionDecoder decoder;
  for (auto _ : state) {
    Result<Transaction> t = decoder.DecodeOne(json);
    if (!t.ok()) {
      state.SkipWithError(t.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * json.size()));
}

// The canonical JSON of a transaction, as every decision builds it for its idempotency check
// (JsonWriter's string escaping and the RFC 3339 timestamp).
void BM_CanonicalTransactionJson(benchmark::State& state) {
  Result<Iso20022Message> m = DecodeIso20022(Pacs008With(1));
  if (!m.ok() || !m->transactions[0].ok()) {
    state.SkipWithError("sample does not decode");
    return;
  }
  const Transaction& transaction = *m->transactions[0];
  size_t bytes = 0;
  for (auto _ : state) {
    std::string json = CanonicalTransactionJson(transaction);
    bytes += json.size();
    benchmark::DoNotOptimize(json);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

BENCHMARK(BM_Pacs008_1);
BENCHMARK(BM_Pacs008_10);
BENCHMARK(BM_Pain001_2);
BENCHMARK(BM_Mt103);
BENCHMARK(BM_JsonSameTransaction);
BENCHMARK(BM_CanonicalTransactionJson);

}  // namespace
}  // namespace verdict

BENCHMARK_MAIN();
