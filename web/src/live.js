// The live page: throughput, outcomes, p99 per stage, fallback share (from /metrics, which
// needs the admin or auditor role) and the drift level per model (from /v1/drift), refreshed
// every few seconds. Rates and p99s are over the last interval; the first poll shows totals.
import { api, ApiError } from "./api.js";
import { el, clear } from "./dom.js";
import { parsePrometheus, sum, buckets, quantile } from "./metrics.js";

const STAGES = ["queue", "features", "model", "policy", "journal", "total"];
const OUTCOMES = ["allow", "review", "block"];
const REFRESH_MS = 3000;
const DRIFT_LEVELS = ["no drift", "L1", "L2", "L3"];

export function renderLive(main, onAuthError) {
  let previous = null;
  const stats = el("div", { class: "stats", id: "live-stats" });
  const stages = el("tbody");
  const updated = el("p", { class: "help", "aria-live": "polite", id: "live-updated" });
  const metricsError = el("p", { class: "error", role: "alert" });
  const drift = el("div", { id: "live-drift" });
  main.append(
    el("h1", {}, "Live engine"),
    updated,
    metricsError,
    stats,
    el(
      "section",
      { class: "card", "aria-labelledby": "h-stages" },
      el("h2", { id: "h-stages" }, "p99 per pipeline stage"),
      el(
        "table",
        { id: "stage-table" },
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Stage"), el("th", { scope: "col" }, "p99"), el("th", { scope: "col" }, "p50"))),
        stages,
      ),
    ),
    el("section", { class: "card", "aria-labelledby": "h-drift" }, el("h2", { id: "h-drift" }, "Model drift"), drift),
  );

  const stat = (label, value, id) =>
    el("div", { class: "stat", id }, el("div", { class: "stat-value" }, value), el("div", { class: "stat-label" }, label));
  const ms = (le) => (le === null ? "—" : le === Infinity ? "> max bucket" : `≤ ${(le * 1000).toFixed(le < 0.001 ? 3 : 1)} ms`);

  async function poll() {
    const now = performance.now();
    try {
      const text = await api("/metrics");
      const samples = parsePrometheus(text);
      const total = sum(samples, "verdict_engine_decisions_total");
      const byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, sum(samples, "verdict_engine_decisions_total", { outcome: o })]));
      const fallback = sum(samples, "verdict_engine_decisions_total", { path: "fallback" });
      const stageBuckets = Object.fromEntries(STAGES.map((s) => [s, buckets(samples, "verdict_engine_stage_seconds", { stage: s })]));
      const dt = previous ? (now - previous.at) / 1000 : 0;
      const delta = previous ? total - previous.total : 0;
      const rate = previous && dt > 0 ? delta / dt : null;
      const fallbackShare =
        previous && delta > 0 ? (fallback - previous.fallback) / delta : total > 0 ? fallback / total : null;
      clear(stats).append(
        stat("decisions / s", rate === null ? "…" : rate.toFixed(1), "stat-throughput"),
        stat("decisions in total", String(total), "stat-total"),
        ...OUTCOMES.map((o) =>
          stat(`${o} (${total > 0 ? ((100 * byOutcome[o]) / total).toFixed(1) : "0.0"} %)`, String(byOutcome[o]), "stat-" + o),
        ),
        stat("fallback share", fallbackShare === null ? "—" : `${(100 * fallbackShare).toFixed(1)} %`, "stat-fallback"),
      );
      clear(stages);
      for (const s of STAGES) {
        const before = previous && delta > 0 ? previous.stageBuckets[s] : null;
        stages.append(
          el("tr", {}, el("th", { scope: "row" }, s), el("td", {}, ms(quantile(stageBuckets[s], before, 0.99))), el("td", {}, ms(quantile(stageBuckets[s], before, 0.5)))),
        );
      }
      previous = { at: now, total, fallback, stageBuckets };
      metricsError.textContent = "";
    } catch (e) {
      if (onAuthError(e)) return;
      metricsError.textContent =
        e instanceof ApiError && e.status === 403
          ? "Engine metrics need a key with the admin or auditor role; drift is shown below."
          : `Cannot read metrics: ${e.message}`;
    }
    try {
      const d = await api("/v1/drift");
      const level = DRIFT_LEVELS[d.level] ?? String(d.level);
      clear(drift).append(
        el(
          "p",
          { class: `drift level-${d.level}` },
          `${d.model.name} v${d.model.version}: level ${d.level} (${level}), drift score ${Number(d.drift_score).toFixed(3)}${d.frozen ? " — model frozen" : ""}`,
        ),
      );
    } catch (e) {
      if (onAuthError(e)) return;
      clear(drift).append(el("p", {}, e instanceof ApiError && e.status === 404 ? "Drift watch is off for this engine." : `Cannot read drift: ${e.message}`));
    }
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}; refreshes every ${REFRESH_MS / 1000} s.`;
  }

  poll();
  const timer = setInterval(poll, REFRESH_MS);
  return () => clearInterval(timer);
}
