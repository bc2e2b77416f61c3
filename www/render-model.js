// The model view panel: store.modelView() under the chosen budget and format. Each encoded
// message is one card; the report says which stored messages it carries (entry.output is its
// index in view.messages) and the card shows those canonical messages (store.messages()) as
// readable lines, with the exact encoded message as JSON beside them. Messages before the first
// entry's output are the prefix (system rules, "# Current state", compaction summary), shown as
// their plain JSON. Stored messages not sent are greyed, with why.
import { $, h, fmt, clip, printable, plainJson, explain } from "./dom.js";
import { ui, REDACT } from "./state.js";

/** Readable lines of a canonical message (the store's own model, the same for every format). */
function linesOf(m) {
  const lines = [];
  const add = (text, kind = "text") => {
    const s = printable(text);
    if (s.trim() !== "") lines.push({ kind, text: s });
  };
  if (m.tool_call_id) add(`↳ answers ${m.tool_call_id}${m.status === "error" ? " (error)" : ""}`, "meta");
  if (typeof m.content === "string") add(m.content);
  else {
    for (const p of m.content ?? []) {
      if (p.type === "text") add(p.text);
      else if (p.type === "reasoning") add(`[reasoning] ${p.text}`, "meta");
      else if (p.type === "other") add(`[part ${clip(JSON.stringify(p.raw), 80)}]`, "meta");
      else add(`[${p.type}${p.media_type ? ` ${p.media_type}` : ""}]`, "meta");
    }
  }
  for (const c of m.tool_calls ?? []) add(`${c.name}(${JSON.stringify(c.args ?? {})})`, "call");
  for (const c of m.invalid_tool_calls ?? []) add(`${c.name ?? "?"}(${c.args ?? ""}) — invalid arguments${c.error ? `: ${c.error}` : ""}`, "call");
  return lines;
}

function roleClass(role) {
  return role === "tool" || role === "user" || role === "assistant" ? role : "system";
}

function body(lines, limit = 420) {
  return h("div", { class: "body" }, lines.map((l, i) => h("div", { class: `line ${l.kind}` }, clip(l.text, i === 0 ? limit : 200))));
}

function tokenBar(tokens, max) {
  return [h("span", { class: "tok" }, `${fmt(tokens)} tok`), h("span", { class: "tbar" }, h("i", { style: `width:${Math.max(2, Math.round((100 * tokens) / Math.max(1, max)))}%` }))];
}

/** The encoded message exactly as sent, collapsed. */
function asSent(message) {
  return h("details", { class: "raw" }, h("summary", {}, "as sent"), h("pre", { class: "mono" }, clip(JSON.stringify(message, null, 1), 20_000)));
}

/**
 * Why each stored message left out was left out: compacted ones precede the cut; of the rest,
 * the newest `start_on_user` ones were dropped to start on a user message, the older by budget.
 */
function leftOutReasons(view, canon, report, leadingSystem) {
  const kept = new Set(report.messages.map((r) => r.id));
  const compaction = view.get("compaction");
  const cutAt = compaction?.first_kept_id ? canon.findIndex((m) => m.id === compaction.first_kept_id) : -1;
  const cutIndex = Math.max(0, cutAt);
  const reasonOf = new Map();
  const left = canon.map((m, i) => i).filter((i) => !kept.has(canon[i].id) && !(i === 0 && leadingSystem));
  for (const i of left) if (i < cutIndex) reasonOf.set(i, "compacted");
  const rest = left.filter((i) => i >= cutIndex);
  const count = (reason) => report.dropped.filter((d) => d.reason === reason).reduce((s, d) => s + d.count, 0);
  let sou = count("start_on_user");
  let bud = count("budget");
  for (let k = rest.length - 1; k >= 0; k--) {
    if (sou > 0) { reasonOf.set(rest[k], "start on user"); sou--; }
    else if (bud > 0) { reasonOf.set(rest[k], "budget"); bud--; }
    else reasonOf.set(rest[k], "dropped by repair");
  }
  return reasonOf;
}

/** What the prefix messages are, in order, by the report's token counts. */
function prefixKinds(report, count) {
  const kinds = [];
  if (report.systemTokens > 0) kinds.push({ label: "system prompt", cls: "system", tokens: report.systemTokens, limit: 400 });
  if (report.stateTokens > 0) kinds.push({ label: `# Current state — ${report.sections.filter((s) => s.included).map((s) => s.name).join(", ")}`, cls: "state", tokens: report.stateTokens, limit: 1200 });
  if (report.summaryTokens > 0) kinds.push({ label: "compaction summary", cls: "summary", tokens: report.summaryTokens, limit: 1200 });
  // Should the report and the output ever disagree, the prefix is shown without labels.
  return kinds.length === count ? kinds : Array.from({ length: count }, () => ({ label: "prefix", cls: "system", tokens: 0, limit: 600 }));
}

function prefixCard(message, kind, report, maxTok) {
  return h("article", { class: `msg sent ${kind.cls}` },
    h("header", {}, h("span", { class: "role" }, "prefix"), h("span", { class: "tag" }, kind.label),
      report.redacted.length && kind.cls === "state" ? h("span", { class: "tag redact" }, `redacted: ${report.redacted.join(", ")}`) : null,
      ...(kind.tokens ? tokenBar(kind.tokens, maxTok) : [])),
    h("div", { class: "body" }, h("div", { class: "line text" }, clip(plainJson(message), kind.limit))));
}

/** One encoded message and the report entries it carries. */
function sentCard(message, entries, ctx) {
  const lines = [];
  const notes = [];
  let synthetic = 0;
  let truncated = 0;
  for (const e of entries) {
    const i = ctx.canonIndex.get(e.id);
    if (i === undefined) {
      // Not in the store: an answer the model view's repair added for a dangling call.
      synthetic++;
      const fix = ctx.inserted.get(e.toolCallId);
      lines.push({ kind: "meta", text: `↳ answers ${fix?.toolCallId ?? "a dangling call"}: synthetic result added by repair${fix ? ` (${fix.kind.replace(/_/g, " ")})` : ""}` });
      continue;
    }
    lines.push(...linesOf(ctx.canon[i]));
    const t = ctx.truncated.get(e.id);
    if (t) {
      truncated++;
      notes.push(h("div", { class: "trunc-note" }, `sent as a preview: full result ${fmt(t.tokens)} tok → preview ${fmt(t.previewTokens)} tok · the rest at ${t.artifact}`));
    }
  }
  const roles = [...new Set(entries.map((e) => e.role))];
  const cls = roleClass(roles.every((r) => r === "tool") ? "tool" : roles.find((r) => r !== "tool"));
  const tags = [];
  if (synthetic) tags.push(h("span", { class: "tag repair" }, `added by repair${synthetic > 1 ? ` ×${synthetic}` : ""}`));
  if (truncated) tags.push(h("span", { class: "tag trunc" }, "truncated → preview"));
  const ids = entries.map((e) => e.id || "(repair)").join(" + ");
  const tokens = entries.reduce((s, e) => s + e.tokens, 0);
  return h("article", { class: `msg sent ${cls}`, "data-ids": ids },
    h("header", {}, h("span", { class: "role" }, roles.join(" + ") || "?"), h("span", { class: "id", title: ids }, ids), ...tags, ...tokenBar(tokens, ctx.maxTok)),
    body(lines), notes, asSent(message));
}

function droppedCard(m, reason) {
  return h("article", { class: `msg dropped ${roleClass(m.role)}` },
    h("header", {}, h("span", { class: "role" }, m.role), h("span", { class: "id" }, m.id), h("span", { class: "tag drop" }, `not sent: ${reason ?? "dropped"}`)),
    body(linesOf(m), 140));
}

function renderSummary(messages, report, stored) {
  const over = report.used > report.budget;
  const droppedTotal = report.dropped.reduce((s, d) => s + d.count, 0);
  $("model-summary").replaceChildren(
    h("div", {}, h("b", { id: "sent-count" }, `${messages.length} message${messages.length === 1 ? "" : "s"} sent`), ` in ${ui.format} format · ${fmt(report.used)} / ${fmt(report.budget)} tokens (${stored} in the store)`),
    h("div", { class: "meter" }, h("i", { class: over ? "over" : "", style: `width:${Math.min(100, (100 * report.used) / Math.max(1, report.budget)).toFixed(1)}%` })),
    h("div", { class: "chips" },
      report.dropped.map((d) => h("span", { class: "tag drop" }, `${d.count} not sent: ${d.reason.replace(/_/g, " ")}`)),
      report.truncated.length ? h("span", { class: "tag trunc" }, `${report.truncated.length} truncated`) : null,
      report.repairs.length ? h("span", { class: "tag repair" }, `${report.repairs.length} repaired in the selection`) : null,
      report.redacted.length ? h("span", { class: "tag redact" }, `${report.redacted.length} redacted`) : null,
      droppedTotal === 0 && !report.truncated.length && !report.repairs.length ? h("span", { class: "tag" }, "everything fits") : null),
  );
}

export function renderModel(view) {
  const list = $("model-list");
  const opts = { budget: ui.budget, format: ui.format, startOnUser: ui.startOnUser, redact: REDACT };
  if (ui.previewOver) opts.maxToolResultTokens = ui.previewOver;
  let mv;
  try {
    mv = view.modelView(opts);
  } catch (e) {
    $("model-summary").replaceChildren(h("div", { class: "error-box" }, explain(e)));
    list.replaceChildren(e.code === "BUDGET_TOO_SMALL" ? h("p", { class: "muted" }, "Raise the budget: the system prompt (always kept) does not fit.") : "");
    $("payload-json").textContent = "";
    list.dataset.sent = "0";
    return;
  }
  const { messages, report } = mv;
  const canon = view.messages();
  const leadingSystem = canon[0]?.role === "system";
  const entries = report.messages;
  const prefix = entries.length ? entries[0].output : messages.length;
  const ctx = {
    canon,
    canonIndex: new Map(canon.map((m, i) => [m.id, i])),
    truncated: new Map(report.truncated.map((t) => [t.id, t])),
    // The fix behind each result the repair inserted, by the call it answers (the report names it).
    inserted: new Map(report.repairs.filter((f) => f.action === "inserted").map((f) => [f.toolCallId, f])),
    maxTok: Math.max(1, report.systemTokens, report.stateTokens, report.summaryTokens, ...entries.map((r) => r.tokens)),
  };
  const reasonOf = leftOutReasons(view, canon, report, leadingSystem);

  const cards = [];
  const kinds = prefixKinds(report, prefix);
  messages.slice(0, prefix).forEach((m, i) => cards.push(prefixCard(m, kinds[i], report, ctx.maxTok)));

  const byOutput = new Map();
  for (const e of entries) byOutput.set(e.output, [...(byOutput.get(e.output) ?? []), e]);
  // Stored messages left out are shown where they were, between the sent ones.
  let ci = leadingSystem ? 1 : 0;
  const greyUpTo = (end) => {
    for (; ci < end; ci++) if (reasonOf.has(ci)) cards.push(droppedCard(canon[ci], reasonOf.get(ci)));
  };
  for (let out = prefix; out < messages.length; out++) {
    const group = byOutput.get(out) ?? [];
    const idxs = group.map((e) => ctx.canonIndex.get(e.id)).filter((i) => i !== undefined);
    if (idxs.length) {
      greyUpTo(Math.min(...idxs));
      ci = Math.max(ci, Math.max(...idxs) + 1);
    }
    cards.push(sentCard(messages[out], group, ctx));
  }
  greyUpTo(canon.length);
  if (!canon.length) cards.push(h("p", { class: "muted" }, "No messages yet: press ▶ Play or Step to replay the transcript through the store, one command at a time."));
  list.replaceChildren(...cards);
  list.dataset.sent = String(messages.length);
  renderSummary(messages, report, canon.length);
  $("payload-json").textContent = clip(JSON.stringify(messages, null, 1), 200_000);
}
