// Sampler: whether a decision's spans are recorded. Parent-based: a caller's sampled flag is
// honoured either way; a decision without a caller's context is sampled at `ratio`, decided by
// the trace id's last 16 hex digits (as OpenTelemetry's TraceIdRatioBased sampler), so the
// same trace id always gets the same answer. Immutable; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "tracing/trace_context.h"

namespace verdict::tracing {

class Sampler {
 public:
  // `ratio` in [0, 1]; values outside are clamped.
  explicit Sampler(double ratio);

  double ratio() const { return ratio_; }
  // `trace_id`: the decision's (the caller's, or a new one), 32 lower-case hex digits.
  bool Sample(const std::optional<TraceContext>& caller, std::string_view trace_id) const;
  // The ratio rule alone: the trace id's low 64 bits below ratio × 2^64.
  bool SampleByRatio(std::string_view trace_id) const;

 private:
  double ratio_;
};

}  // namespace verdict::tracing
