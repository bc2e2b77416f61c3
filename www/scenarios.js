// The scenario buttons: interrupt mid-batch then store.repair(); an async subagent task started,
// checked and cancelled through AsyncTasks on the simulated server (with polling and delivery of
// its notifications); and a compaction. Each writes canonical messages through the gate and
// leaves a report for the system panel (`scen.last`).
import { h, clip, status, explain } from "./dom.js";
import { core, tape, ui, scen, POLL_MS, TERMINAL_RUN, exclusive, branchAt } from "./state.js";
import { applyStep, deliverIfQueued, setPlaying } from "./replay.js";
import { render } from "./render.js";

/** Before a scenario writes: act on what the timeline shows, with the run still open. */
function prepareScenario({ needsOpenRun }) {
  const notes = [];
  if (ui.viewSeq !== null && ui.viewSeq < core.store.version) notes.push(branchAt(ui.viewSeq, `branched at event ${ui.viewSeq}`));
  if (tape.cursor === 0) applyStep();
  const runStatus = core.store.get("run")?.status;
  if (needsOpenRun && TERMINAL_RUN.has(runStatus) && tape.completionSeq !== null) {
    notes.push(branchAt(tape.completionSeq - 1, `the run had ${runStatus} (it takes no more model turns), so the scenario continues from just before`));
  }
  return notes;
}

async function scenario(fn) {
  setPlaying(false);
  try {
    await exclusive(fn);
  } catch (e) {
    status(explain(e), true);
  }
  render({ follow: true });
}

export function interrupt() {
  return scenario(() => {
    const notes = prepareScenario({ needsOpenRun: true });
    const n = ++scen.count;
    const calls = [
      { id: `call_i${n}_read`, name: "read_file", args: { path: "src/config.py" } },
      { id: `call_i${n}_tests`, name: "run_tests", args: { target: "tests/" } },
      { id: `call_i${n}_search`, name: "search_docs", args: { query: "retry policy" } },
    ];
    const { store, sg } = core;
    const provider = sg.providerOf(ui.format);
    const v1 = store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "I'll check three things in parallel.", tool_calls: calls }] } }).version;
    store.apply({ author: `tool:${calls[0].id}`, update: { messages: [{ role: "tool", tool_call_id: calls[0].id, name: calls[0].name, content: "RETRIES = 3\nTIMEOUT_S = 30" }] } });
    const v3 = store.apply({ author: "user", update: { messages: [{ role: "user", content: "Stop — leave that and do something else: summarise what you found so far." }] } }).version;
    const dangling = store.danglingToolCalls();
    const before = sg.validateMessages(store.messages(provider), { provider });
    const reasons = Object.fromEntries(dangling.map((d) => [d.toolCallId, "interrupted"]));
    const repaired = store.repair({ reasons });
    const after = sg.validateMessages(store.messages(provider), { provider });
    scen.last = {
      title: "Interrupt mid-batch → repair",
      id: "interrupt",
      items: [
        ...notes,
        `event ${v1}: the model calls ${calls.map((c) => c.name).join(", ")}; one result arrives; event ${v3}: the user interrupts`,
        h("span", {}, h("b", {}, `${dangling.length} dangling calls: `), dangling.map((d) => `${d.name} (${d.toolCallId})`).join(", ")),
        h("span", {}, h("b", {}, `violations before repair (${provider}): `), before.length ? before.map((v) => `${v.rule} at message ${v.index} (${v.toolCallId})`).join("; ") : "none"),
        h("span", { class: "repair-fixes" }, h("b", {}, `store.repair() → event ${repaired.version}: `), repaired.report.map((f) => `${f.kind} · ${f.action} · ${f.toolCallId}`).join("; ")),
        h("span", { class: after.length ? "bad-line" : "ok-line" }, after.length ? `still ${after.length} violations` : `✓ violations after repair: none — every call answered, the real result kept`),
      ],
    };
    status(`interrupted: ${dangling.length} dangling calls repaired in event ${repaired.version} (step the timeline back to event ${v3} to see them unanswered)`);
  });
}

// ---------------------------------------------------------------- async tasks

/** The model makes one task tool call; AsyncTasks answers it through the simulated server. */
async function taskCall(name, args, text) {
  const n = ++scen.taskCalls;
  const call = { id: `call_task_${n}`, name, args };
  core.store.apply({ author: "model", update: { messages: [{ role: "assistant", content: text, tool_calls: [call] }] } });
  const before = core.server.calls.length;
  const result = await core.tasks.handle(call);
  const calls = core.server.calls.slice(before);
  return { result, calls };
}

function newestTask(filter = () => true) {
  const ledger = Object.values(core.store.get("async_tasks") ?? {});
  return ledger.filter(filter).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];
}

function taskReport(title, id, notes, result, calls, note) {
  return {
    title,
    id,
    items: [
      ...notes,
      h("span", {}, h("b", {}, "tool result: "), clip(result.content, 300)),
      h("span", {}, h("b", {}, "server calls: "), calls.length ? calls.join(" → ") : "none"),
      note,
    ],
  };
}

export function startTask() {
  return scenario(async () => {
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall(
      "start_async_task",
      { description: "Survey how other agent frameworks recover from a crash in the middle of a tool batch", subagent_type: "researcher" },
      "I'll have the researcher look into this in the background.",
    );
    scen.last = taskReport("Async task: start", "task-start", notes, result, calls, "The run is now pending on the simulated server; the page polls it (AsyncTasks.poll) and a notification is queued when it finishes.");
    status(result.content);
    schedulePoll();
  });
}

export function checkTask() {
  return scenario(async () => {
    const task = newestTask();
    if (!task) return status("no task yet: start one first", true);
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall("check_async_task", { task_id: task.task_id }, "Let me check on the background task.");
    scen.last = taskReport("Async task: check", "task-check", notes, result, calls, "A status the model saw through its own tool is not notified again: a queued notification about it is dropped.");
    status(`check_async_task → ${clip(result.content, 140)}`);
    schedulePoll();
  });
}

export function cancelTask() {
  return scenario(async () => {
    const task = newestTask((t) => ["pending", "running", "waiting"].includes(t.status)) ?? newestTask();
    if (!task) return status("no task yet: start one first", true);
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall("cancel_async_task", { task_id: task.task_id }, "The user no longer needs this; cancelling the background task.");
    scen.last = taskReport("Async task: cancel", "task-cancel", notes, result, calls, "A task that already finished keeps its real status.");
    status(`cancel_async_task → ${result.content}`);
  });
}

/** Polls the server while a task is pending or running (AsyncTasks.poll queues notifications). */
function schedulePoll() {
  clearTimeout(scen.pollTimer);
  const active = Object.values(core.store?.get("async_tasks") ?? {}).some((t) => t.status === "pending" || t.status === "running");
  if (!active) return;
  scen.pollTimer = setTimeout(async () => {
    scen.pollTimer = null;
    try {
      const p = await exclusive(() => core.tasks.poll());
      if (p.notifications.length) status(`task notification queued: ${p.notifications.join(", ")} — it reaches the model at its next turn, or deliver it now`);
    } catch (e) {
      status(`poll: ${explain(e)}`, true);
    }
    render();
    schedulePoll();
  }, POLL_MS);
}

export function deliver() {
  return scenario(() => {
    const d = deliverIfQueued();
    if (!d) return status("nothing queued");
    status(d.delivered.length ? `delivered ${d.delivered.length} notification(s) as user message(s) in event ${d.version}` : `held back: a tool call still waits for its result (${d.deferred} deferred)`);
  });
}

// ---------------------------------------------------------------- compaction

export function compact() {
  return scenario(() => {
    const notes = prepareScenario({ needsOpenRun: false });
    const messages = core.store.messages();
    const cut = core.store.compactionPlan({ keep: 6 });
    const previous = core.store.get("compaction")?.cut ?? 0;
    if (cut <= previous) {
      status(`nothing to compact: the model view already starts at message ${previous}`);
      return;
    }
    const calls = messages.slice(0, cut).flatMap((m) => m.tool_calls ?? []);
    const names = [...new Set(calls.map((c) => c.name))].slice(0, 6).join(", ");
    const task = core.store.get("run")?.task;
    const summary = `${task ? `The user asked: “${clip(task, 160)}”. ` : ""}In the ${cut} messages before this point the agent made ${calls.length} tool calls${names ? ` (${names})` : ""}. (Summary written by the demo page; a real agent asks a model for it.)`;
    const r = core.store.compact({ summary, cut });
    scen.last = {
      title: "Compact the history",
      id: "compact",
      items: [
        ...notes,
        `store.compactionPlan({keep: 6}) → cut at message ${cut} (never inside a tool-call unit)`,
        `store.compact({summary, cut}) → event ${r.version}: the model view is now the summary plus messages ${cut}…${messages.length - 1}`,
        "messages, log and task ledger are untouched: step the timeline back and everything is still there",
      ],
    };
    status(`compacted at message ${cut}: ${cut} messages now reach the model only as a summary`);
  });
}
