// The review queue: filters (status, typology, account), sort (score or age), pages by cursor,
// and keyboard work: j/k move the selection, Enter opens the selected case.
import { api } from "./api.js";
import { el, clear, formatScore, formatTime, outcomeBadge, toast } from "./dom.js";

export function renderQueue(main, params, onAuthError) {
  const filters = {
    status: params.get("status") ?? "open",
    typology: params.get("typology") ?? "",
    account: params.get("account") ?? "",
    sort: params.get("sort") ?? "score",
  };
  let rows = [];
  let selected = 0;
  let cursor = null;

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
    field("f-typology", "Typology", el("input", { id: "f-typology", value: filters.typology, placeholder: "e.g. AMOUNT_THRESHOLD" })),
    field("f-account", "Account", el("input", { id: "f-account", value: filters.account })),
    field(
      "f-sort",
      "Sort by",
      select("f-sort", filters.sort, [
        ["score", "Score (highest first)"],
        ["age", "Age (oldest first)"],
        ["newest", "Newest first"],
      ]),
    ),
    el("button", { type: "submit" }, "Apply"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const q = new URLSearchParams({
      status: form.querySelector("#f-status").value,
      typology: form.querySelector("#f-typology").value.trim(),
      account: form.querySelector("#f-account").value.trim(),
      sort: form.querySelector("#f-sort").value,
    });
    location.hash = "#/queue?" + q.toString();
  });
  for (const id of ["f-status", "f-sort"]) {
    form.querySelector("#" + id).addEventListener("change", () => form.requestSubmit());
  }

  const summary = el("p", { class: "summary", "aria-live": "polite", id: "queue-summary" });
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
        ["Score", "Outcome", "Typologies", "Account", "Amount", "Opened", "Status", "Assignee"].map((h) =>
          el("th", { scope: "col" }, h),
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
    el("p", { id: "queue-help", class: "help" }, "Keys: j / k move, Enter opens the selected case."),
    summary,
    table,
    more,
  );

  function select_(i) {
    if (rows.length === 0) return;
    selected = Math.max(0, Math.min(rows.length - 1, i));
    tbody.querySelectorAll("tr").forEach((tr, j) => tr.setAttribute("aria-selected", j === selected ? "true" : "false"));
    const tr = tbody.children[selected];
    tr.querySelector("a").focus({ preventScroll: true });
    tr.scrollIntoView({ block: "nearest" });
  }

  function renderRows() {
    clear(tbody);
    rows.forEach((c, i) => {
      const link = el("a", { href: "#/case/" + encodeURIComponent(c.case_id), class: "case-link" }, formatScore(c.score));
      link.addEventListener("focus", () => {
        selected = i;
        tbody.querySelectorAll("tr").forEach((tr, j) => tr.setAttribute("aria-selected", j === i ? "true" : "false"));
      });
      tbody.append(
        el(
          "tr",
          { "data-case": c.case_id, "aria-selected": i === selected ? "true" : "false" },
          el("td", {}, link),
          el("td", {}, outcomeBadge(c.outcome)),
          el("td", {}, c.typologies.join(", ") || "—"),
          el("td", {}, c.sender_account),
          el("td", { class: "num" }, `${c.amount} ${c.currency}`),
          el("td", {}, formatTime(c.opened_at)),
          el("td", {}, c.status.replace("_", " ")),
          el("td", {}, c.assignee ?? "—"),
        ),
      );
    });
  }

  async function load(append) {
    const q = new URLSearchParams({ sort: filters.sort, limit: "50" });
    if (filters.status) q.set("status", filters.status);
    if (filters.typology) q.set("typology", filters.typology);
    if (filters.account) q.set("account", filters.account);
    if (append && cursor) q.set("cursor", cursor);
    try {
      const page = await api("/v1/cases?" + q.toString());
      rows = append ? rows.concat(page.cases) : page.cases;
      cursor = page.next_cursor;
      more.hidden = !cursor;
      summary.textContent = `${page.total} case${page.total === 1 ? "" : "s"} match; showing ${rows.length}.`;
      renderRows();
    } catch (e) {
      if (!onAuthError(e)) toast(`Cannot load the queue: ${e.message}`);
    }
  }

  function onKey(event) {
    if (event.target.closest("input, select, textarea") || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "j") select_(selected + 1);
    else if (event.key === "k") select_(selected - 1);
    else if (event.key === "Enter" && rows[selected] && !event.target.closest("a, button")) {
      location.hash = "#/case/" + encodeURIComponent(rows[selected].case_id);
    } else return;
    event.preventDefault();
  }
  document.addEventListener("keydown", onKey);
  load(false);
  return () => document.removeEventListener("keydown", onKey);
}
