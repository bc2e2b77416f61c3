// The system state panel: what the app sees (store.systemView(): every channel but the private
// ones) — the run, the async task ledger, plan and todos, approvals, validation of the stored
// history for the chosen format's provider, the last scenario's report, the gate's refusals,
// the newest events of the log and the other channels.
import { $, h, fmt, clip, section, statusBadge, muted } from "./dom.js";
import { core, ui, scen } from "./state.js";

const SHOWN = new Set(["messages", "run", "budget", "async_tasks", "plan", "todos", "approvals", "notifications"]);

export function renderSystem(view, live) {
  const out = [];
  const system = view.systemView();
  const run = system.run ?? {};
  const budget = system.budget?.used;
  out.push(section("Run",
    h("dl", { class: "kv" },
      h("dt", {}, "status"), h("dd", { id: "run-status" }, statusBadge(run.status ?? "created")),
      h("dt", {}, "task"), h("dd", { title: run.task ?? "" }, run.task ?? "—"),
      h("dt", {}, "version"), h("dd", {}, `${view.version} events · last hash ${view.lastHash.slice(0, 12)}…`),
      budget ? [h("dt", {}, "budget used"), h("dd", {}, `${budget.turns ?? 0} turns · ${budget.tool_calls ?? 0} tool calls · ${fmt(budget.tokens ?? 0)} reported tokens`)] : null)));

  const tasks = Object.values(system.async_tasks ?? {});
  out.push(section("Async task ledger",
    tasks.length
      ? h("table", { class: "ledger" },
          h("tr", {}, h("th", {}, "task id"), h("th", {}, "agent"), h("th", {}, "status"), h("th", {}, "run"), h("th", {}, "tries")),
          tasks.map((t) => h("tr", { "data-task": t.task_id }, h("td", { class: "mono" }, t.task_id), h("td", {}, t.agent_name), h("td", {}, statusBadge(t.status)), h("td", { class: "mono" }, t.run_id), h("td", {}, t.attempts))))
      : muted("no tasks — try “Start async task”")));

  const plan = Object.entries(system.plan ?? {});
  const todos = Array.isArray(system.todos) ? system.todos : [];
  out.push(section("Plan / todos",
    plan.length || todos.length
      ? h("ul", { class: "plain" },
          plan.map(([id, s]) => h("li", {}, statusBadge(s.status), " ", `${id}: ${s.title ?? ""}`)),
          todos.map((t) => h("li", {}, statusBadge(t.status), " ", t.content)))
      : muted("none in this transcript")));

  const approvals = Object.entries(system.approvals ?? {});
  if (approvals.length) out.push(section("Approvals", h("ul", { class: "plain" }, approvals.map(([id, a]) => h("li", {}, statusBadge(a.status), ` ${id} → ${a.tool_call_id}`)))));

  const provider = core.sg.providerOf(ui.format);
  const violations = core.sg.validateMessages(view.messages(provider), { provider });
  const dangling = view.danglingToolCalls();
  out.push(section(`Validation (${provider}) of the stored history`,
    violations.length
      ? h("ul", { class: "plain bad-line", id: "violations" }, violations.map((v) => h("li", { title: v.message }, `✗ ${v.rule} at message ${v.index}${v.toolCallId ? ` (${v.toolCallId})` : ""}`)))
      : h("div", { class: "ok-line", id: "violations" }, `✓ no violations of ${provider}'s rules`),
    dangling.length ? h("div", { class: "bad-line" }, `dangling calls: ${dangling.map((d) => `${d.name} (${d.toolCallId})`).join(", ")}`) : null));

  if (scen.last) {
    out.push(section(`Last scenario: ${scen.last.title}${live ? "" : " (live state)"}`, h("div", { class: "report", id: "scenario-report", "data-scenario": scen.last.id }, h("ol", {}, scen.last.items.map((i) => h("li", {}, i))))));
  }

  if (core.rejections.length) {
    out.push(section("Refused at the gate (audit)", h("ul", { class: "plain" }, core.rejections.slice(-4).reverse().map((r) => h("li", { class: "bad-line", title: r.message }, `${r.code} — ${r.author} → ${r.channels.join(", ")}`)))));
  }

  const events = view.events({ since: Math.max(0, view.version - 7) });
  out.push(section(`Event log (${view.version} events, hash-chained)`,
    h("ul", { class: "plain events" }, events.reverse().map((e) => h("li", { class: e.sequence === view.version && !live ? "current" : "" }, `#${e.sequence} ${e.type} · ${e.author} → ${Object.keys(e.payload).join(", ")}`)))));

  const others = Object.entries(system).filter(([k, v]) => !SHOWN.has(k) && v !== null && v !== undefined && !(typeof v === "object" && Object.keys(v).length === 0));
  out.push(section("Other channels",
    others.length ? others.map(([k, v]) => h("div", {}, h("b", { style: "font-size:12px" }, k), h("div", { class: "json" }, clip(JSON.stringify(v), 400))))
      : muted("facts, files, artifacts, compaction…: all empty")));
  $("system-body").replaceChildren(...out);
}
