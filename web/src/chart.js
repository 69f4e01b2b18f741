// The contributions bar chart as inline SVG: one row per feature, named as the engine's feature
// catalog names it (label and unit, from the case view's feature_labels), its bar right (red)
// when it pushed the score up and left (blue) when down. Three columns that never share space:
// the name with the feature's value beneath it, the bars, and the contribution figures, so no
// label can overlap a bar or a figure.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

// The feature's name for people and its value with the unit.
export function featureText(c, labels = {}) {
  const known = labels[c.feature];
  const value = fmt(c.value);
  if (!known) return { name: c.feature, value: `= ${value}` };
  const unit = known.unit === "yes/no" ? (c.value >= 0.5 ? "yes" : "no") : `${value} ${known.unit}`;
  return { name: known.label, value: known.unit === "yes/no" ? unit : `= ${unit}` };
}

export function contributionChart(contributions, { width = 620, labels = {} } = {}) {
  const items = [...contributions].sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  const rowH = 38;
  const labelW = 300; // about 44 characters at 12px
  const valueW = 64;
  const height = Math.max(1, items.length) * rowH + 24;
  const plotW = width - labelW - valueW - 16;
  const max = Math.max(1e-9, ...items.map((c) => Math.abs(c.contribution)));
  const zero = labelW + 8 + plotW / 2;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-labelledby": "contrib-title contrib-desc",
    class: "chart",
    id: "contributions-chart",
  });
  root.append(svg("title", { id: "contrib-title" }, "Top feature contributions"));
  root.append(
    svg(
      "desc",
      { id: "contrib-desc" },
      items
        .map((c) => {
          const t = featureText(c, labels);
          return `${t.name} ${t.value}: ${c.contribution >= 0 ? "+" : ""}${c.contribution.toFixed(3)}`;
        })
        .join("; ") || "No contributions (the rules decided without the model).",
    ),
  );
  root.append(svg("line", { x1: zero, x2: zero, y1: 4, y2: height - 18, class: "axis" }));
  items.forEach((c, i) => {
    const y = 8 + i * rowH;
    const w = (Math.abs(c.contribution) / max) * (plotW / 2);
    const up = c.contribution >= 0;
    const t = featureText(c, labels);
    const label = svg("text", { x: labelW, y: y + 13, "text-anchor": "end", class: "label", "data-feature": c.feature });
    label.append(svg("tspan", { x: labelW, class: "name" }, shorten(t.name)));
    label.append(svg("tspan", { x: labelW, dy: 15, class: "caption" }, shorten(t.value)));
    label.append(svg("title", {}, `${t.name} ${t.value} (${c.feature} = ${c.value})`));
    root.append(label);
    root.append(
      svg("rect", {
        x: up ? zero : zero - w,
        y: y + 4,
        width: Math.max(1, w),
        height: rowH - 16,
        class: up ? "bar up" : "bar down",
        "data-feature": c.feature,
      }),
    );
    root.append(
      svg(
        "text",
        { x: width - 4, y: y + 20, "text-anchor": "end", class: "value" },
        (up ? "+" : "") + c.contribution.toFixed(3),
      ),
    );
  });
  root.append(svg("text", { x: zero, y: height - 4, "text-anchor": "middle", class: "caption" }, "← lowers score · raises score →"));
  return root;
}

// About 44 characters fit in the name column at 12px.
function shorten(text) {
  return text.length > 44 ? text.slice(0, 43) + "…" : text;
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : Number(v).toPrecision(4);
}
