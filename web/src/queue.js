// The review queue in triage order (severity, then risk: the engine's default sort), with
// filters (status, my cases / unassigned, typology, account, opened from / to), pages by cursor,
// and keyboard triage: j/k move, a assigns the selected case to me, o or Enter opens it, x marks
// it for bulk assignment ("Assign selected to me").
import { api } from "./api.js";
import { el, clear, formatScore, formatTime, outcomeBadge, toast } from "./dom.js";

const SORTS = [
  ["severity", "Severity, then risk (triage)"],
  ["score", "Score (highest first)"],
  ["age", "Age (oldest first)"],
  ["newest", "Newest first"],
];

// "sender → receiver", the flagged party first when it is the receiver.
function parties(c) {
  return c.receiver_account && c.receiver_account !== c.sender_account
    ? `${c.sender_account} → ${c.receiver_account}`
    : c.sender_account;
}

function reasonsInWords(c) {
  if (c.reasons && c.reasons.length) return c.reasons.map((r) => r.message || r.code).join("; ");
  return c.typologies.join(", ") || "—";
}

export function renderQueue(main, params, onAuthError) {
  const filters = {
    status: params.get("status") ?? "open",
    assignee: params.get("assignee") ?? "",
    typology: params.get("typology") ?? "",
    account: params.get("account") ?? "",
    from: params.get("from") ?? "",
    to: params.get("to") ?? "",
    sort: params.get("sort") ?? "severity",
  };
  let rows = [];
  let selected = 0;
  let cursor = null;
  const marked = new Set();

  const field = (id, label, control) => el("div", { class: "field" }, el("label", { for: id }, label), control);
  const select = (id, value, options) =>
    el(
      "select",
      { id, name: id },
      options.map(([v, text]) => el("option", { value: v, selected: v === value }, text)),
    );
  const form = el(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter the queue" },
    field(
      "f-status",
      "Status",
      select("f-status", filters.status, [
        ["open", "Open"],
        ["in_review", "In review"],
        ["closed", "Closed"],
        ["", "Any"],
      ]),
    ),
    field(
      "f-assignee",
      "Assigned",
      select("f-assignee", filters.assignee, [
        ["", "Anyone"],
        ["me", "My cases"],
        ["none", "Unassigned"],
      ]),
    ),
    field("f-typology", "Typology", el("input", { id: "f-typology", value: filters.typology, placeholder: "e.g. STRUCTURING", size: 16 })),
    field("f-account", "Account", el("input", { id: "f-account", value: filters.account, size: 12 })),
    field("f-from", "Opened from", el("input", { id: "f-from", type: "date", value: filters.from })),
    field("f-to", "Opened to", el("input", { id: "f-to", type: "date", value: filters.to })),
    field("f-sort", "Sort by", select("f-sort", filters.sort, SORTS)),
    el("button", { type: "submit" }, "Apply"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = new URLSearchParams();
    for (const [name, id] of [
      ["status", "f-status"],
      ["assignee", "f-assignee"],
      ["typology", "f-typology"],
      ["account", "f-account"],
      ["from", "f-from"],
      ["to", "f-to"],
      ["sort", "f-sort"],
    ]) {
      q.set(name, form.querySelector("#" + id).value.trim());
    }
    location.hash = "#/queue?" + q.toString();
  });
  for (const id of ["f-status", "f-assignee", "f-sort"]) {
    form.querySelector("#" + id).addEventListener("change", () => form.requestSubmit());
  }

  const summary = el("p", { class: "summary", "aria-live": "polite", id: "queue-summary" });
  const bulk = el("button", { type: "button", id: "bulk-assign", disabled: true }, "Assign selected to me");
  bulk.addEventListener("click", () => assignMany([...marked]));
  const tbody = el("tbody");
  const table = el(
    "table",
    { class: "queue", "aria-describedby": "queue-help" },
    el("caption", {}, "Cases"),
    el(
      "thead",
      {},
      el(
        "tr",
        {},
        el("th", { scope: "col" }, el("span", { class: "sr-only" }, "Select")),
        ["Outcome", "Risk", "Parties", "Transaction", "Amount", "Reasons", "Opened", "Assignee"].map((h) =>
          el("th", { scope: "col", class: h === "Amount" || h === "Risk" ? "num" : undefined }, h),
        ),
      ),
    ),
    tbody,
  );
  const more = el("button", { type: "button", hidden: true, id: "load-more" }, "Load more");
  more.addEventListener("click", () => load(true));
  main.append(
    el("h1", {}, "Review queue"),
    form,
    el(
      "div",
      { class: "toolbar" },
      el(
        "p",
        { id: "queue-help", class: "help" },
        "Keys: j / k move · a assign to me · o or Enter open · x select for bulk assignment.",
      ),
      bulk,
    ),
    summary,
    table,
    more,
  );

  function markRows() {
    tbody.querySelectorAll("tr").forEach((tr, j) => {
      tr.setAttribute("aria-selected", j === selected ? "true" : "false");
      const box = tr.querySelector("input[type=checkbox]");
      box.checked = marked.has(tr.dataset.case);
    });
    bulk.disabled = marked.size === 0;
    bulk.textContent = marked.size ? `Assign ${marked.size} selected to me` : "Assign selected to me";
  }

  function select_(i) {
    if (rows.length === 0) return;
    selected = Math.max(0, Math.min(rows.length - 1, i));
    markRows();
    const tr = tbody.children[selected];
    tr.querySelector("a").focus({ preventScroll: true });
    tr.scrollIntoView({ block: "nearest" });
  }

  function toggle(id) {
    if (marked.has(id)) marked.delete(id);
    else marked.add(id);
    markRows();
  }

  function renderRows() {
    clear(tbody);
    rows.forEach((c, i) => {
      const link = el(
        "a",
        { href: "#/case/" + encodeURIComponent(c.case_id), class: "case-link", title: "Open case " + c.case_id },
        c.transaction_id,
      );
      link.addEventListener("focus", () => {
        selected = i;
        markRows();
      });
      const box = el("input", {
        type: "checkbox",
        "aria-label": "Select case " + c.transaction_id,
        checked: marked.has(c.case_id),
      });
      box.addEventListener("change", () => toggle(c.case_id));
      const risk = typeof c.risk === "number" ? c.risk : c.score;
      tbody.append(
        el(
          "tr",
          { "data-case": c.case_id, "aria-selected": i === selected ? "true" : "false" },
          el("td", {}, box),
          el("td", {}, outcomeBadge(c.outcome)),
          el("td", { class: "num", title: typeof c.risk === "number" ? "risk" : "score (no risk journaled)" }, formatScore(risk)),
          el("td", { class: "parties" }, parties(c)),
          el("td", {}, link),
          el("td", { class: "num" }, `${c.amount} ${c.currency}`),
          el("td", { class: "reasons" }, el("div", { class: "clamp", title: reasonsInWords(c) }, reasonsInWords(c))),
          el("td", { class: "when" }, formatTime(c.opened_at).split(" ").map((part) => el("span", {}, part))),
          el("td", {}, c.assignee ?? "—"),
        ),
      );
    });
    markRows();
  }

  async function load(append) {
    const q = new URLSearchParams({ sort: filters.sort, limit: "50" });
    for (const name of ["status", "assignee", "typology", "account", "from", "to"]) {
      if (filters[name]) q.set(name, filters[name]);
    }
    if (append && cursor) q.set("cursor", cursor);
    try {
      const page = await api("/v1/cases?" + q.toString());
      rows = append ? rows.concat(page.cases) : page.cases;
      cursor = page.next_cursor;
      more.hidden = !cursor;
      summary.textContent = `${page.total} case${page.total === 1 ? "" : "s"} match; showing ${rows.length}, by ${page.sort}.`;
      renderRows();
    } catch (e) {
      if (!onAuthError(e)) toast(`Cannot load the queue: ${e.message}`);
    }
  }

  async function assignMany(ids) {
    if (ids.length === 0) return;
    try {
      const answer = await api("/v1/cases:assign", { method: "POST", body: { case_ids: ids } });
      const refused = answer.results.filter((r) => r.result === "refused");
      toast(
        `Assigned ${answer.assigned}, unchanged ${answer.unchanged}` +
          (refused.length ? `, refused ${refused.length}: ${refused[0].error.message}` : "") +
          ".",
      );
      for (const r of answer.results) {
        if (r.case) {
          marked.delete(r.case_id);
          const i = rows.findIndex((c) => c.case_id === r.case_id);
          if (i >= 0) rows[i] = r.case;
        }
      }
      renderRows();
      if (rows[selected]) tbody.children[selected].querySelector("a").focus({ preventScroll: true });
    } catch (e) {
      if (!onAuthError(e)) toast(`Cannot assign: ${e.message}`);
    }
  }

  function onKey(event) {
    if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    const current = rows[selected];
    if (event.key === "j") select_(selected + 1);
    else if (event.key === "k") select_(selected - 1);
    else if (event.key === "x" && current) toggle(current.case_id);
    else if (event.key === "a" && current) assignMany([current.case_id]);
    else if ((event.key === "o" || (event.key === "Enter" && !event.target.closest("a, button"))) && current) {
      location.hash = "#/case/" + encodeURIComponent(current.case_id);
    } else return;
    event.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  load(false);
  return () => document.removeEventListener("keydown", onKey);
}
