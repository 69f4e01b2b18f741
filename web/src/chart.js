// The contributions bar chart as inline SVG: one horizontal bar per feature, right (red) when
// it pushed the score up, left (blue) when down, with the feature's value in the label.
const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function contributionChart(contributions, { width = 620 } = {}) {
  const items = [...contributions].sort((a, b) => Math.abs(b.contribution) - Math.abs(a.contribution));
  const rowH = 28;
  const labelW = 300;
  const height = Math.max(1, items.length) * rowH + 24;
  const plotW = width - labelW - 70;
  const max = Math.max(1e-9, ...items.map((c) => Math.abs(c.contribution)));
  const zero = labelW + plotW / 2;
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
      items.map((c) => `${c.feature} ${c.contribution >= 0 ? "+" : ""}${c.contribution.toFixed(3)}`).join("; ") ||
        "No contributions (the rules decided without the model).",
    ),
  );
  root.append(svg("line", { x1: zero, x2: zero, y1: 4, y2: height - 18, class: "axis" }));
  items.forEach((c, i) => {
    const y = 8 + i * rowH;
    const w = (Math.abs(c.contribution) / max) * (plotW / 2);
    const up = c.contribution >= 0;
    const label = svg("text", { x: labelW - 8, y: y + 15, "text-anchor": "end", class: "label" }, shorten(`${c.feature} = ${fmt(c.value)}`));
    label.append(svg("title", {}, `${c.feature} = ${c.value}`));
    root.append(label);
    root.append(
      svg("rect", {
        x: up ? zero : zero - w,
        y,
        width: Math.max(1, w),
        height: rowH - 10,
        class: up ? "bar up" : "bar down",
        "data-feature": c.feature,
      }),
    );
    root.append(
      svg(
        "text",
        { x: up ? zero + w + 4 : zero - w - 4, y: y + 15, "text-anchor": up ? "start" : "end", class: "value" },
        (up ? "+" : "") + c.contribution.toFixed(3),
      ),
    );
  });
  root.append(svg("text", { x: zero, y: height - 4, "text-anchor": "middle", class: "caption" }, "← lowers score · raises score →"));
  return root;
}

// About 44 characters fit beside the bars at 12px.
function shorten(text) {
  return text.length > 44 ? text.slice(0, 43) + "…" : text;
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : Number(v).toPrecision(4);
}
