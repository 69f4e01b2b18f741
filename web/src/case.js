// The case view: transaction, reasons, contributions chart, versions, journal proof, the
// account's recent activity, links to the parties' networks, the disposition with its note,
// every comment, history, report downloads, and the assign / comment / dispose forms.
import { api, apiKey } from "./api.js";
import { el, clear, formatScore, formatTime, outcomeBadge, toast } from "./dom.js";
import { contributionChart } from "./chart.js";
import { networkHref } from "./network.js";

const DISPOSITIONS = [
  ["true_positive", "True positive — suspicious activity"],
  ["false_positive", "False positive — the flag was wrong"],
  ["escalated", "Escalated — file a SAR"],
  ["closed_no_action", "Closed, no action"],
];

export function renderCase(main, caseId, onAuthError) {
  const path = "/v1/cases/" + encodeURIComponent(caseId);
  let alive = true;

  async function load() {
    try {
      const view = await api(path);
      if (alive) draw(view);
    } catch (e) {
      if (onAuthError(e)) return;
      clear(main).append(
        el("h1", {}, "Case not found"),
        el("p", { role: "alert" }, e.message),
        el("a", { href: "#/queue" }, "Back to the queue"),
      );
    }
  }

  async function act(action, body, message) {
    try {
      await api(`${path}:${action}`, { method: "POST", body });
      toast(message);
      await load();
      return true;
    } catch (e) {
      if (!onAuthError(e)) toast(`${action} refused: ${e.message}`);
      return false;
    }
  }

  function section(title, id, ...children) {
    return el("section", { class: "card", "aria-labelledby": id }, el("h2", { id }, title), ...children);
  }

  function dl(pairs) {
    return el(
      "dl",
      {},
      pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v ?? "—")]),
    );
  }

  function draw(view) {
    const c = view.case;
    const d = view.decision || {};
    const t = view.transaction || {};
    clear(main);
    main.append(
      el("p", {}, el("a", { href: "#/queue" }, "← Back to the queue")),
      el(
        "h1",
        {},
        `Case ${c.transaction_id} `,
        outcomeBadge(c.outcome),
        el("span", { class: "status", id: "case-status" }, c.status.replace("_", " ")),
      ),
    );
    const grid = el("div", { class: "grid" });
    main.append(grid);

    grid.append(
      section(
        "Transaction",
        "h-txn",
        dl([
          ["Transaction id", c.transaction_id],
          ["Time", formatTime(t.timestamp || c.transaction_at)],
          ["Amount", `${c.amount} ${c.currency}`],
          ["Sender", t.sender ? `${t.sender.account} · ${t.sender.name || ""} · ${t.sender.bank || ""} ${t.sender.country || ""}` : c.sender_account],
          ["Receiver", t.receiver ? `${t.receiver.account} · ${t.receiver.name || ""} · ${t.receiver.bank || ""} ${t.receiver.country || ""}` : c.receiver_account],
          ["Channel / type", `${t.channel || "—"} / ${t.type || "—"}`],
          ["Remittance", t.remittance],
          ["Score", formatScore(c.score)],
          ["Risk", typeof c.risk === "number" ? formatScore(c.risk) : "— (not journaled)"],
          ["Decided", formatTime(c.opened_at)],
          [
            "Network",
            el(
              "span",
              {},
              el("a", { href: networkHref(c.sender_account), id: "network-link" }, `Counterparties of ${c.sender_account}`),
              c.receiver_account && c.receiver_account !== c.sender_account
                ? [" · ", el("a", { href: networkHref(c.receiver_account) }, `of ${c.receiver_account}`)]
                : "",
            ),
          ],
        ]),
      ),
    );

    grid.append(
      section(
        "Reasons",
        "h-reasons",
        el(
          "ul",
          { class: "reasons" },
          (d.reasons || []).map((r) => el("li", {}, el("strong", {}, r.code), ` (${r.rule}): ${r.message}`)),
        ),
      ),
    );

    const source = {
      journal: "As journaled with the decision.",
      recomputed: "Recomputed (TreeSHAP) from the journaled features with the model that decided.",
      none: "None: the rules decided without the model, or that model is no longer loaded.",
    }[view.contributions_source];
    grid.append(
      section(
        "Top feature contributions",
        "h-contrib",
        contributionChart(d.contributions || [], { labels: view.feature_labels || {} }),
        el("p", { class: "help", id: "contrib-source" }, source || ""),
      ),
    );

    grid.append(
      section(
        "Versions",
        "h-versions",
        dl([
          ["Model", d.model ? `${d.model.name || "none"} v${d.model.version || "—"}` : "—"],
          ["Model sha256", d.model && d.model.sha256 ? el("code", {}, d.model.sha256.slice(0, 16) + "…") : "—"],
          ["Policy", d.policy ? d.policy.version : "—"],
          ["Policy sha256", d.policy && d.policy.sha256 ? el("code", {}, d.policy.sha256.slice(0, 16) + "…") : "—"],
          ["Path", d.path],
        ]),
      ),
    );

    grid.append(proofSection(view.proof));
    grid.append(activitySection(view.activity, c));
    grid.append(workSection(c));
    grid.append(historySection(c));
  }

  function proofSection(proof) {
    const out = el("div", { id: "proof-inclusion", "aria-live": "polite" });
    if (!proof) return section("Journal proof", "h-proof", el("p", {}, "The journal record is not available."));
    const cp = proof.checkpoint;
    const status =
      proof.status === "checkpointed"
        ? `Covered by signed checkpoint of ${cp.tree_size} records (${formatTime(cp.time)}); signature ${cp.signature_valid ? "valid" : "INVALID"}.`
        : "Durable; not yet covered by a signed checkpoint (one is signed every few seconds).";
    const button = el("button", { type: "button", disabled: proof.status !== "checkpointed" }, "Verify inclusion");
    button.addEventListener("click", async () => {
      out.textContent = "Verifying…";
      try {
        const v = await api(path + "?proof=inclusion");
        const inc = v.proof && v.proof.inclusion;
        out.textContent = inc
          ? inc.verified
            ? `Inclusion verified: ${inc.path.length} hashes lead to the signed root.`
            : "Inclusion proof FAILED to verify."
          : "Not yet covered by a checkpoint.";
      } catch (e) {
        out.textContent = `Cannot verify: ${e.message}`;
      }
    });
    return section(
      "Journal proof",
      "h-proof",
      el("p", { id: "proof-status", "data-status": proof.status }, status),
      dl([
        ["Record", `#${proof.seq}`],
        ["Record hash", el("code", {}, proof.record_hash.slice(0, 24) + "…")],
      ]),
      button,
      out,
    );
  }

  function activitySection(activity, c) {
    const records = (activity && activity.records) || [];
    return section(
      `Recent activity of ${activity ? activity.account : c.sender_account}`,
      "h-activity",
      records.length === 0
        ? el("p", {}, "No other activity.")
        : el(
            "ol",
            { class: "timeline", id: "timeline" },
            records.map((r) =>
              el(
                "li",
                { class: r.transaction_id === c.transaction_id ? "current" : "" },
                el("time", { datetime: r.transaction_at }, formatTime(r.transaction_at)),
                " ",
                outcomeBadge(r.outcome),
                ` ${r.direction === "out" ? "→" : "←"} ${r.counterparty} · ${r.amount} ${r.currency} · score ${formatScore(r.score)}`,
                r.reasons.length ? ` · ${r.reasons.join(", ")}` : "",
                r.transaction_id === c.transaction_id ? el("span", { class: "tag" }, " this case") : "",
              ),
            ),
          ),
    );
  }

  function workSection(c) {
    const children = [];
    children.push(
      dl([
        ["Assignee", c.assignee],
        ["Disposition", c.disposition ? c.disposition.replace(/_/g, " ") : "—"],
        ["Disposition note", c.disposition ? el("span", { id: "disposition-note" }, c.disposition_note || "(none)") : "—"],
      ]),
    );
    if (c.disposition === "escalated" || c.status === "closed") {
      // Fetched with the analyst's key (a plain link would carry none), then saved.
      const report = (format, text) => {
        const link = el("a", { href: `/v1/cases/${encodeURIComponent(c.case_id)}/report?format=${format}`, class: "report-link", "data-format": format }, text);
        link.addEventListener("click", async (event) => {
          event.preventDefault();
          try {
            const response = await fetch(link.getAttribute("href"), { headers: { Authorization: "Bearer " + apiKey() }, cache: "no-store" });
            if (!response.ok) throw new Error(`HTTP ${response.status}`);
            const url = URL.createObjectURL(await response.blob());
            const save = el("a", { href: url, download: `case-${c.transaction_id}.${format === "goaml" ? "xml" : "html"}` });
            document.body.append(save);
            save.click();
            save.remove();
            setTimeout(() => URL.revokeObjectURL(url), 10000);
          } catch (e) {
            toast(`Cannot download the report: ${e.message}`);
          }
        });
        return link;
      };
      children.push(
        el("p", { class: "help" }, "Report: ", report("html", "printable narrative (HTML)"), " · ", report("goaml", "goAML XML")),
      );
    }
    if (c.status !== "closed") {
      const take = el("button", { type: "button", id: "assign-me" }, c.status === "open" ? "Assign to me" : "Take over");
      take.addEventListener("click", () => act("assign", {}, "Assigned to you."));
      children.push(take);

      const fieldset = el(
        "fieldset",
        {},
        el("legend", {}, "Disposition"),
        DISPOSITIONS.map(([value, label]) =>
          el(
            "div",
            { class: "radio" },
            el("input", { type: "radio", name: "disposition", id: "d-" + value, value, required: true }),
            el("label", { for: "d-" + value }, label),
          ),
        ),
      );
      const note = el("textarea", { id: "d-note", name: "note", rows: 2, maxlength: 8192 });
      const form = el(
        "form",
        { id: "dispose-form", "aria-label": "Dispose of the case" },
        fieldset,
        el("label", { for: "d-note" }, "Note (optional)"),
        note,
        el("button", { type: "submit" }, "Record disposition"),
      );
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const choice = form.querySelector("input[name=disposition]:checked");
        if (!choice) return toast("Choose a disposition.");
        // A disposition is recorded by the case's assignee: take an open case first.
        if (c.status === "open" && !(await act("assign", {}, "Assigned to you."))) return;
        await act("dispose", { disposition: choice.value, note: note.value }, "Disposition recorded.");
      });
      children.push(form);
    }
    const text = el("textarea", { id: "c-text", name: "text", rows: 2, required: true, maxlength: 8192 });
    const comment = el(
      "form",
      { id: "comment-form", "aria-label": "Add a comment" },
      el("label", { for: "c-text" }, "Comment"),
      text,
      el("button", { type: "submit" }, "Add comment"),
    );
    comment.addEventListener("submit", (event) => {
      event.preventDefault();
      if (text.value.trim()) act("comment", { text: text.value }, "Comment added.");
    });
    children.push(comment);
    return section("Work the case", "h-work", ...children);
  }

  function historySection(c) {
    return section(
      "History and comments",
      "h-history",
      el(
        "ol",
        { class: "history", id: "history" },
        c.history.map((h) =>
          el("li", {}, el("time", { datetime: h.at }, formatTime(h.at)), ` ${h.principal}: ${h.action}${h.detail ? " " + h.detail : ""}`),
        ),
      ),
      el("h2", { id: "h-comments" }, `Comments (${c.comments.length})`),
      c.comments.length
        ? el(
            "ul",
            { class: "comments", id: "comments" },
            c.comments.map((m) => el("li", {}, el("strong", {}, m.principal), ` (${formatTime(m.at)}): `, el("span", { class: "comment-text" }, m.text))),
          )
        : el("p", { id: "comments" }, "No comments."),
    );
  }

  load();
  return () => {
    alive = false;
  };
}
