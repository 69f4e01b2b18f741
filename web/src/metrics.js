// Prometheus text exposition, parsed just enough for the live page: samples by name with
// their labels, and quantiles from cumulative histogram buckets.
export function parsePrometheus(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[3] || "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[4]) });
  }
  return samples;
}

export function sum(samples, name, match = {}) {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

// Cumulative buckets {le -> count} of one histogram series.
export function buckets(samples, name, match) {
  const out = new Map();
  for (const s of samples) {
    if (s.name !== name + "_bucket") continue;
    if (!Object.entries(match).every(([k, v]) => s.labels[k] === v)) continue;
    out.set(s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), s.value);
  }
  return out;
}

// The upper bound of the bucket holding quantile q of (now - before), or null without data.
export function quantile(now, before, q) {
  const les = [...now.keys()].sort((a, b) => a - b);
  const count = (le) => (now.get(le) || 0) - ((before && before.get(le)) || 0);
  const total = les.length ? count(les[les.length - 1]) : 0;
  if (total <= 0) return null;
  for (const le of les) if (count(le) >= q * total) return le;
  return Infinity;
}
