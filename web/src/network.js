// The account's network (#/network/{account}?days=N): its counterparties over the last N days
// from GET /v1/accounts/{account}/network, drawn by hand as SVG (the account in the middle,
// counterparties on a ring, payments as curved arrows, flagged parties ringed in red, payments
// that close a cycle in orange), a table of the same figures, and the account's recent
// decisions. Every counterparty links to its own network and history.
import { api } from "./api.js";
import { el, clear, formatScore, formatTime, outcomeBadge, toast } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function totals(flow) {
  if (!flow.count) return "—";
  const money = flow.totals.map((t) => `${t.amount} ${t.currency}`).join(", ");
  return `${flow.count} · ${money || "no amount"}`;
}

export function networkHref(account, days) {
  return "#/network/" + encodeURIComponent(account) + (days ? "?days=" + days : "");
}

// Node positions: the centre, then a ring (two rings beyond 16 counterparties, alternating,
// so that neighbouring labels do not collide).
function layout(nodes, width, height) {
  const cx = width / 2;
  const cy = height / 2;
  const pos = new Map([[nodes[0].account, { x: cx, y: cy }]]);
  const others = nodes.slice(1);
  const rings = others.length > 16 ? 2 : 1;
  const outer = Math.min(cx, cy) - 70;
  others.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / Math.max(1, others.length) - Math.PI / 2;
    const r = rings === 2 && i % 2 === 1 ? outer * 0.62 : outer;
    pos.set(n.account, { x: cx + r * Math.cos(angle), y: cy + r * Math.sin(angle), angle });
  });
  return pos;
}

export function networkChart(net, days) {
  const width = 760;
  const height = 560;
  const pos = layout(net.nodes, width, height);
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-labelledby": "net-title net-desc",
    class: "chart network",
    id: "network-chart",
  });
  root.append(svg("title", { id: "net-title" }, `Counterparties of ${net.account} over ${net.days} days`));
  root.append(
    svg(
      "desc",
      { id: "net-desc" },
      `${net.nodes.length - 1} counterparties, ${net.edges.length} payment links, ${net.cycles.length} cycles; ` +
        `${net.nodes.filter((n) => n.flagged).length} parties flagged. The table below gives the same figures.`,
    ),
  );
  const defs = svg("defs");
  for (const [id, cls] of [
    ["arrow", "edge-head"],
    ["arrow-cycle", "edge-head cycle"],
  ]) {
    const marker = svg("marker", { id, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: cls }));
    defs.append(marker);
  }
  root.append(defs);
  const radius = (n) => (n.center ? 16 : 9 + Math.min(8, Math.log2(1 + n.in.count + n.out.count) * 2));
  const byAccount = new Map(net.nodes.map((n) => [n.account, n]));
  const edges = svg("g", { class: "edges" });
  for (const e of net.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    // Bend to the right of the direction of travel, so A→B and B→A do not overlap.
    const bend = 0.12 * len;
    const mx = (a.x + b.x) / 2 + (dy / len) * bend;
    const my = (a.y + b.y) / 2 - (dx / len) * bend;
    const rb = radius(byAccount.get(e.to)) + 3;
    const ex = b.x - ((b.x - mx) / Math.hypot(b.x - mx, b.y - my)) * rb;
    const ey = b.y - ((b.y - my) / Math.hypot(b.x - mx, b.y - my)) * rb;
    const path = svg("path", {
      d: `M ${a.x} ${a.y} Q ${mx} ${my} ${ex} ${ey}`,
      class: "edge" + (e.in_cycle ? " cycle" : "") + (e.flagged_payments ? " flagged" : ""),
      "stroke-width": Math.min(6, 1.2 + Math.log2(e.count)),
      "marker-end": `url(#${e.in_cycle ? "arrow-cycle" : "arrow"})`,
    });
    path.append(svg("title", {}, `${e.from} → ${e.to}: ${totals({ count: e.count, totals: e.totals })}`));
    edges.append(path);
  }
  root.append(edges);
  const nodes = svg("g", { class: "nodes" });
  for (const n of net.nodes) {
    const p = pos.get(n.account);
    const link = svg("a", { href: networkHref(n.account, days), class: "node-link" });
    link.append(svg("title", {}, `${n.account}: in ${totals(n.in)}; out ${totals(n.out)}${n.flagged ? `; flagged ${n.flagged_decisions}` : ""}`));
    link.append(
      svg("circle", {
        cx: p.x,
        cy: p.y,
        r: radius(n),
        class: "node" + (n.center ? " center" : "") + (n.flagged ? " flagged" : ""),
        "data-account": n.account,
      }),
    );
    // Labels outside the ring, anchored away from the centre.
    let tx = p.x;
    let ty = p.y + radius(n) + 14;
    let anchor = "middle";
    if (!n.center) {
      const c = Math.cos(p.angle);
      const s = Math.sin(p.angle);
      tx = p.x + c * (radius(n) + 6);
      ty = p.y + s * (radius(n) + 6) + 4;
      anchor = Math.abs(c) < 0.3 ? "middle" : c > 0 ? "start" : "end";
      if (Math.abs(c) < 0.3) ty += s > 0 ? 10 : -6;
    }
    link.append(svg("text", { x: tx, y: ty, "text-anchor": anchor, class: "label" + (n.center ? " center" : "") }, n.account));
    nodes.append(link);
  }
  root.append(nodes);
  return root;
}

export function renderNetwork(main, account, params, onAuthError) {
  const days = Number(params.get("days")) || 30;
  const daysSelect = el(
    "select",
    { id: "net-days" },
    [7, 30, 90].map((d) => el("option", { value: d, selected: d === days }, `${d} days`)),
  );
  daysSelect.addEventListener("change", () => (location.hash = networkHref(account, daysSelect.value)));
  const body = el("div", { id: "network-body" }, el("p", {}, "Loading…"));
  main.append(
    el("h1", {}, "Network of ", el("code", {}, account)),
    el(
      "div",
      { class: "filters" },
      el("div", { class: "field" }, el("label", { for: "net-days" }, "Window"), daysSelect),
      el("a", { href: "#/queue?status=&account=" + encodeURIComponent(account) }, "Cases of this account"),
    ),
    body,
  );
  (async () => {
    try {
      const [net, recent] = await Promise.all([
        api(`/v1/accounts/${encodeURIComponent(account)}/network?days=${days}`),
        api(`/v1/accounts/${encodeURIComponent(account)}/decisions?limit=20`),
      ]);
      clear(body);
      const legend = el(
        "p",
        { class: "help legend" },
        el("span", { class: "key flagged" }, "red ring"),
        " flagged (review or block decisions in the window) · ",
        el("span", { class: "key cycle" }, "orange arrow"),
        " payment in a cycle · arrows run from payer to payee; select a party to see its own network.",
      );
      const cycles = net.cycles.length
        ? el(
            "ul",
            { id: "network-cycles" },
            net.cycles.map((c) => el("li", {}, [...c, c[0]].join(" → "))),
          )
        : el("p", { id: "network-cycles" }, "No cycles among these parties.");
      const rows = net.nodes.map((n) =>
        el(
          "tr",
          { "data-account": n.account, class: n.flagged ? "flagged" : undefined },
          el("td", {}, n.center ? el("strong", {}, n.account) : el("a", { href: networkHref(n.account, days) }, n.account)),
          el("td", { class: "num" }, totals(n.in)),
          el("td", { class: "num" }, totals(n.out)),
          el("td", {}, n.flagged ? `yes (${n.flagged_decisions})` : "no"),
          el("td", {}, el("a", { href: "#/queue?status=&account=" + encodeURIComponent(n.account) }, "cases")),
        ),
      );
      body.append(
        el(
          "div",
          { class: "grid network-grid" },
          el(
            "section",
            { class: "card", "aria-labelledby": "h-graph" },
            el("h2", { id: "h-graph" }, `Counterparties, last ${net.days} days`),
            net.nodes.length > 1 ? networkChart(net, days) : el("p", {}, "No payments in this window."),
            legend,
            net.truncated ? el("p", { class: "help" }, "Only the busiest counterparties and the latest records are shown.") : null,
          ),
          el(
            "section",
            { class: "card", "aria-labelledby": "h-cycles" },
            el("h2", { id: "h-cycles" }, "Cycles"),
            cycles,
            el("h2", { id: "h-recent" }, "Recent decisions"),
            recent.decisions.length
              ? el(
                  "ul",
                  { class: "timeline", id: "network-decisions" },
                  recent.decisions.map((d) =>
                    el(
                      "li",
                      {},
                      outcomeBadge(d.outcome),
                      ` ${d.transaction_id} · score ${formatScore(d.score)} · `,
                      (d.reasons || []).map((r) => r.message || r.code).join("; ") || "no reasons",
                    ),
                  ),
                )
              : el("p", {}, "None."),
          ),
        ),
        el(
          "table",
          { class: "queue", id: "network-table" },
          el("caption", {}, "Parties (payments among the shown parties: count · totals)"),
          el(
            "thead",
            {},
            el("tr", {}, ["Account", "Money in", "Money out", "Flagged", "History"].map((h) => el("th", { scope: "col" }, h))),
          ),
          el("tbody", {}, rows),
        ),
      );
      void formatTime;
    } catch (e) {
      if (!onAuthError(e)) {
        clear(body);
        body.append(el("p", { class: "error" }, `Cannot load the network: ${e.message}`));
        toast(`Cannot load the network: ${e.message}`);
      }
    }
  })();
  return () => {};
}
