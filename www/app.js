// The stategate demo page: a real transcript replayed step by step through a StateStore, seen
// three ways — by the model (store.modelView), by the app (the system view: every channel but
// private ones) and by a private middleware (one private channel holding a canary that must
// never show up anywhere else). Plain ES modules; the package is the one built for the web.
import { load } from "../pkg/web.js";
import { createAgentServer } from "./agent-sim.js";

const TRANSCRIPTS = [
  { file: "claudecode-coverage-test-fix.jsonl", label: "Claude Code: add a function + test" },
  { file: "openhands-basic-gui-mode.json", label: "OpenHands: build a Vue todo app" },
  { file: "sweagent-marshmallow-1867-fc.traj", label: "SWE-agent: marshmallow #1867" },
  { file: "taubench-gpt4o-airline-historical.json", label: "τ-bench: airline support, 200 runs" },
];
const TRANSCRIPT_DIR = "../tests/fixtures/transcripts/";
const MEMORY = { name: "memory", reducer: "replace", visibility: "private", owner: "memory" };
const REDACT = ["email", "dob"]; // fields the model view shows as [redacted] in the state sections
const PLAY_MS = 420;
const POLL_MS = 450;
const TERMINAL_RUN = new Set(["completed", "failed", "cancelled"]);
const params = new URLSearchParams(location.search);
const CANARY = params.get("canary") || `CANARY-PRIVATE-${randomId()}`;

const $ = (id) => document.getElementById(id);
const fmt = (n) => Number(n).toLocaleString("en-US");

/** Everything the page knows; `store` is the live StateStore. */
const S = {
  sg: null,
  store: null,
  memoryKey: null,
  tasks: null,
  server: null,
  source: null, // {name, kind, runs, run}
  steps: [],
  cursor: 0, // next step
  stepVersions: [], // store version after each applied step
  completionSeq: null,
  playing: false,
  timer: null,
  pollTimer: null,
  viewSeq: null, // null = live; else a past sequence shown read-only
  budget: 2000,
  format: "openai",
  previewOver: 500,
  startOnUser: true,
  scenario: null, // the last scenario's report {title, items}
  rejections: [],
  taskCalls: 0,
  leak: null,
};

// ---------------------------------------------------------------- small DOM helper

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function randomId() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function clip(text, n) {
  const s = String(text ?? "");
  return s.length > n ? `${s.slice(0, n)}… (+${fmt(s.length - n)} chars)` : s;
}

function textOf(value) {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((p) => (typeof p === "string" ? p : p?.text ?? textOf(p?.content ?? "") ?? "")).join("");
  if (typeof value === "object" && ("result" in value || "error" in value)) return textOf(value.result ?? value.error);
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- one queue for every change

let chain = Promise.resolve();
/** Runs `fn` after every earlier change (replay steps, scenarios, polls never interleave). */
function exclusive(fn) {
  const run = chain.then(fn);
  chain = run.catch(() => {});
  return run;
}

function status(text, isError = false) {
  const el = $("scenario-status");
  el.textContent = text;
  el.title = text;
  el.classList.toggle("error", isError);
}

function explain(e) {
  return e?.code ? `${e.code}: ${e.message.replace(/^[A-Z_]+: /, "")}` : String(e?.message ?? e);
}

// ---------------------------------------------------------------- transcripts → steps

function authorOf(m) {
  switch (m.type) {
    case "human": return "user";
    case "ai": return "model";
    case "system": return "system-prompt";
    case "tool": return `tool:${m.tool_call_id}`;
    default: return m.type ?? "unknown";
  }
}

function shortText(m) {
  const t = textOf(m.content).replace(/\s+/g, " ").trim();
  return t.length > 48 ? `${t.slice(0, 48)}…` : t;
}

/**
 * One step per message, or per assistant turn with its tool results (a superstep applied with
 * applyBatch: each result is its own command, event and version). The first step starts the
 * run; the last one completes it.
 */
function buildSteps(run) {
  const steps = [{ label: "the run starts", cmds: [{ author: "runtime", update: { run: { status: "running" }, budget: { limits: { max_turns: 1000, max_tool_calls: 5000 } } } }] }];
  let task = false;
  for (let i = 0; i < run.length; ) {
    const m = run[i];
    if (m.type === "ai" && m.tool_calls?.length) {
      const cmds = [{ author: "model", update: { messages: [m] } }];
      let j = i + 1;
      while (j < run.length && run[j].type === "tool") {
        const update = { messages: [run[j]] };
        const call = m.tool_calls.find((c) => c.id === run[j].tool_call_id);
        if (call && /^(TodoWrite|write_todos)$/.test(call.name) && Array.isArray(call.args?.todos)) {
          update.todos = call.args.todos.map(({ content, status }) => ({ content, status }));
        }
        const fact = personFact(call, run[j]);
        if (fact) update.facts = fact;
        cmds.push({ author: authorOf(run[j]), update });
        j++;
      }
      const names = [...new Set(m.tool_calls.map((c) => c.name))].join(", ");
      steps.push({ label: `model calls ${names}; ${cmds.length - 1} result${cmds.length === 2 ? "" : "s"}`, cmds });
      i = j;
    } else {
      const update = { messages: [m] };
      if (m.type === "human" && !task) {
        update.run = { task: clip(textOf(m.content).replace(/\s+/g, " ").trim(), 240) };
        task = true;
      }
      steps.push({ label: `${authorOf(m)}: ${shortText(m) || "(no text)"}`, cmds: [{ author: authorOf(m), update }] });
      i++;
    }
  }
  steps.push({ label: "the run completes", complete: true, cmds: [{ author: "runtime", update: { run: { status: "completed" } } }] });
  return steps;
}

/**
 * A facts middleware, for transcripts that look people up (τ-bench's get_user_details): a tool
 * result holding a JSON record with an e-mail becomes a known fact. The model view redacts its
 * `email` and `dob` fields (the `redact` option); the system view shows them.
 */
function personFact(call, result) {
  if (typeof result.content !== "string" || !result.content.startsWith("{")) return null;
  let record;
  try {
    record = JSON.parse(result.content);
  } catch {
    return null;
  }
  if (!record || typeof record.email !== "string") return null;
  const name = typeof record.name === "object" ? [record.name.first_name, record.name.last_name].filter(Boolean).join(" ") : record.name;
  const fact = { name, email: record.email, dob: record.dob, membership: record.membership };
  for (const k of Object.keys(fact)) if (fact[k] === undefined) delete fact[k];
  return { [`user ${call?.args?.user_id ?? record.user_id ?? result.tool_call_id}`]: fact };
}

// ---------------------------------------------------------------- store lifecycle

function newStore() {
  const store = new S.sg.StateStore({ runId: "demo", audit: onRejected });
  S.memoryKey = store.registerChannel(MEMORY);
  // The memory middleware keeps its notes in its private channel: the canary must never leave it.
  store.apply({ author: "memory", update: { memory: { canary: CANARY, note: "owner-only scratchpad of the memory middleware" } } });
  return store;
}

function bindTasks() {
  S.tasks?.free();
  S.tasks = new S.sg.AsyncTasks(S.store, {
    url: "http://in-page.invalid",
    agents: [{ name: "researcher", description: "Researches a topic in the background and reports back", graph_id: "research" }],
    transport: S.server.transport,
  });
}

function onRejected(r) {
  S.rejections.push(r);
  if (S.rejections.length > 20) S.rejections.shift();
}

function stopTimers() {
  setPlaying(false);
  clearTimeout(S.pollTimer);
  S.pollTimer = null;
}

async function loadSource(source) {
  await exclusive(() => {
    stopTimers();
    S.tasks?.free();
    S.tasks = null;
    S.store?.free();
    S.source = source;
    S.server = createAgentServer();
    S.rejections = [];
    S.store = newStore();
    bindTasks();
    S.steps = buildSteps(source.runs[source.run] ?? []);
    S.cursor = 0;
    S.stepVersions = [];
    S.completionSeq = null;
    S.viewSeq = null;
    S.scenario = null;
    S.taskCalls = 0;
  });
  status(`${source.name}: ${source.kind}, ${fmt(source.runs[source.run]?.length ?? 0)} messages${source.runs.length > 1 ? ` (run ${source.run} of ${source.runs.length})` : ""} — press Play or Step`);
  render();
}

const textCache = new Map();
async function loadBundled(file, run = 0) {
  let text = textCache.get(file);
  if (text === undefined) {
    $("progress").textContent = "fetching transcript…";
    const res = await fetch(TRANSCRIPT_DIR + file);
    if (!res.ok) throw new Error(`could not fetch ${file}: HTTP ${res.status}`);
    text = await res.text();
    textCache.set(file, text);
  }
  const parsed = S.sg.readTranscript(text, { format: "langchain" });
  const runIndex = Math.min(Math.max(0, run), parsed.runs.length - 1);
  showRunPicker(parsed.runs.length, runIndex);
  await loadSource({ name: file, kind: parsed.kind, runs: parsed.runs, run: runIndex });
}

async function loadText(name, text) {
  let parsed;
  try {
    parsed = S.sg.readTranscript(text, { format: "langchain" });
  } catch (e) {
    status(`${name}: not a transcript the readers accept (${explain(e)})`, true);
    return;
  }
  if (!parsed.runs.length || !parsed.runs[0].length) return status(`${name}: no messages`, true);
  const value = `file:${name}`;
  if (![...$("transcript").options].some((o) => o.value === value)) $("transcript").append(h("option", { value }, `file: ${name}`));
  $("transcript").value = value;
  textCache.set(`file:${name}`, text);
  showRunPicker(parsed.runs.length, 0);
  await loadSource({ name, kind: parsed.kind, runs: parsed.runs, run: 0 });
}

function showRunPicker(count, value) {
  $("run-pick").hidden = count <= 1;
  $("run-index").max = String(Math.max(0, count - 1));
  $("run-index").value = String(value);
}

/**
 * A writable store at `seq`: the log up to there replayed into a new store (the hash chain is
 * checked on the way), the private owner claiming its key again. Later events are left behind.
 */
function branchAt(seq, why) {
  const events = S.store.events({ until: seq });
  const next = S.sg.StateStore.replay(events, { channels: [MEMORY], audit: onRejected });
  S.memoryKey = next.claimOwnerKey("memory");
  S.tasks?.free();
  S.tasks = null;
  S.store.free();
  S.store = next;
  bindTasks();
  S.stepVersions = S.stepVersions.filter((v) => v <= seq);
  S.cursor = S.stepVersions.length;
  if (S.completionSeq !== null && S.completionSeq > seq) S.completionSeq = null;
  S.viewSeq = null;
  return `${why}: the log up to event ${seq} was replayed into a new store (StateStore.replay), later events left behind`;
}

/** Before a scenario writes: act on what the timeline shows, with the run still open. */
function prepareScenario({ needsOpenRun }) {
  const notes = [];
  if (S.viewSeq !== null && S.viewSeq < S.store.version) notes.push(branchAt(S.viewSeq, `branched at event ${S.viewSeq}`));
  if (S.cursor === 0) applyStep();
  const runStatus = S.store.get("run")?.status;
  if (needsOpenRun && TERMINAL_RUN.has(runStatus) && S.completionSeq !== null) {
    notes.push(branchAt(S.completionSeq - 1, `the run had ${runStatus} (it takes no more model turns), so the scenario continues from just before`));
  }
  return notes;
}

// ---------------------------------------------------------------- replay

function deliverIfQueued() {
  if (!S.store.notifications().length) return null;
  return S.store.deliverNotifications({ author: "notifier" });
}

function applyStep() {
  const step = S.steps[S.cursor];
  if (!step) return false;
  // Queued task notifications reach the model before its next turn (deepagents' pull).
  if (step.cmds[0].author === "model") deliverIfQueued();
  try {
    if (step.cmds.length === 1) S.store.apply(step.cmds[0]);
    else S.store.applyBatch(step.cmds);
    step.error = null;
  } catch (e) {
    step.error = e;
  }
  S.stepVersions.push(S.store.version);
  if (step.complete && !step.error) S.completionSeq = S.store.version;
  S.cursor += 1;
  return true;
}

function narrate() {
  const last = S.steps[S.cursor - 1];
  if (!last) return;
  if (last.error) status(`step ${S.cursor} refused at the gate — ${explain(last.error)}`, true);
  else if (S.cursor >= S.steps.length) status(`replay finished: the run completed at event ${S.completionSeq ?? S.store.version} — move the budget, travel back in time, or try a scenario`);
  else status(`step ${S.cursor}: ${last.label}`);
}

async function step() {
  if (!S.store) return false;
  const more = await exclusive(() => {
    S.viewSeq = null;
    return applyStep();
  });
  narrate();
  render({ follow: true });
  return more && S.cursor < S.steps.length;
}

function setPlaying(on) {
  S.playing = on;
  clearTimeout(S.timer);
  S.timer = null;
  const b = $("play");
  b.textContent = on ? "Pause" : "▶ Play";
  b.setAttribute("aria-pressed", String(on));
  if (on) S.timer = setTimeout(tick, 0);
}

async function tick() {
  if (!S.playing) return;
  const more = await step();
  if (!S.playing) return;
  if (more) S.timer = setTimeout(tick, PLAY_MS);
  else setPlaying(false);
}

async function toEnd() {
  setPlaying(false);
  await exclusive(() => {
    S.viewSeq = null;
    while (applyStep());
  });
  narrate();
  render({ follow: true });
}

// ---------------------------------------------------------------- scenarios

let scenarioCount = 0;

async function scenario(fn) {
  setPlaying(false);
  try {
    await exclusive(fn);
  } catch (e) {
    status(explain(e), true);
  }
  render({ follow: true });
}

function interrupt() {
  return scenario(() => {
    const notes = prepareScenario({ needsOpenRun: true });
    const n = ++scenarioCount;
    const calls = [
      { id: `call_i${n}_read`, name: "read_file", args: { path: "src/config.py" } },
      { id: `call_i${n}_tests`, name: "run_tests", args: { target: "tests/" } },
      { id: `call_i${n}_search`, name: "search_docs", args: { query: "retry policy" } },
    ];
    const provider = providerOf(S.format);
    const v1 = S.store.apply({ author: "model", update: { messages: [{ type: "ai", content: "I'll check three things in parallel.", tool_calls: calls.map((c) => ({ ...c, type: "tool_call" })) }] } }).version;
    S.store.apply({ author: `tool:${calls[0].id}`, update: { messages: [{ type: "tool", tool_call_id: calls[0].id, name: calls[0].name, content: "RETRIES = 3\nTIMEOUT_S = 30" }] } });
    const v3 = S.store.apply({ author: "user", update: { messages: [{ type: "human", content: "Stop — leave that and do something else: summarise what you found so far." }] } }).version;
    const dangling = S.store.danglingToolCalls();
    const before = S.sg.validateMessages(S.store.messages(provider), { provider });
    const reasons = Object.fromEntries(dangling.map((d) => [d.toolCallId, "interrupted"]));
    const repaired = S.store.repair({ reasons });
    const after = S.sg.validateMessages(S.store.messages(provider), { provider });
    S.scenario = {
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

function providerOf(format) {
  return format === "anthropic" || format === "gemini" ? format : "openai";
}

/** The model makes one task tool call; AsyncTasks answers it through the simulated server. */
async function taskCall(name, args, text) {
  const n = ++S.taskCalls;
  const call = { id: `call_task_${n}`, name, args };
  S.store.apply({ author: "model", update: { messages: [{ type: "ai", content: text, tool_calls: [{ ...call, type: "tool_call" }] }] } });
  const before = S.server.calls.length;
  const result = await S.tasks.handle(call);
  const calls = S.server.calls.slice(before);
  return { result, calls };
}

function newestTask(filter = () => true) {
  const ledger = Object.values(S.store.get("async_tasks") ?? {});
  return ledger.filter(filter).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))[0];
}

function startTask() {
  return scenario(async () => {
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall(
      "start_async_task",
      { description: "Survey how other agent frameworks recover from a crash in the middle of a tool batch", subagent_type: "researcher" },
      "I'll have the researcher look into this in the background.",
    );
    S.scenario = taskReport("Async task: start", "task-start", notes, result, calls, "The run is now pending on the simulated server; the page polls it (AsyncTasks.poll) and a notification is queued when it finishes.");
    status(result.content);
    schedulePoll();
  });
}

function checkTask() {
  return scenario(async () => {
    const task = newestTask();
    if (!task) return status("no task yet: start one first", true);
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall("check_async_task", { task_id: task.task_id }, "Let me check on the background task.");
    S.scenario = taskReport("Async task: check", "task-check", notes, result, calls, "A status the model saw through its own tool is not notified again: a queued notification about it is dropped.");
    status(`check_async_task → ${clip(result.content, 140)}`);
    schedulePoll();
  });
}

function cancelTask() {
  return scenario(async () => {
    const task = newestTask((t) => ["pending", "running", "waiting"].includes(t.status)) ?? newestTask();
    if (!task) return status("no task yet: start one first", true);
    const notes = prepareScenario({ needsOpenRun: true });
    const { result, calls } = await taskCall("cancel_async_task", { task_id: task.task_id }, "The user no longer needs this; cancelling the background task.");
    S.scenario = taskReport("Async task: cancel", "task-cancel", notes, result, calls, "A task that already finished keeps its real status.");
    status(`cancel_async_task → ${result.content}`);
  });
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

function schedulePoll() {
  clearTimeout(S.pollTimer);
  const active = Object.values(S.store?.get("async_tasks") ?? {}).some((t) => t.status === "pending" || t.status === "running");
  if (!active) return;
  S.pollTimer = setTimeout(async () => {
    S.pollTimer = null;
    try {
      const p = await exclusive(() => S.tasks.poll());
      if (p.notifications.length) status(`task notification queued: ${p.notifications.join(", ")} — it reaches the model at its next turn, or deliver it now`);
    } catch (e) {
      status(`poll: ${explain(e)}`, true);
    }
    render();
    schedulePoll();
  }, POLL_MS);
}

function compact() {
  return scenario(() => {
    const notes = prepareScenario({ needsOpenRun: false });
    const messages = S.store.messages();
    const cut = S.store.compactionPlan({ keep: 6 });
    const previous = S.store.get("compaction")?.cut ?? 0;
    if (cut <= previous) {
      status(`nothing to compact: the model view already starts at message ${previous}`);
      return;
    }
    const earlier = messages.slice(0, cut);
    const calls = earlier.flatMap((m) => m.tool_calls ?? []);
    const names = [...new Set(calls.map((c) => c.name))].slice(0, 6).join(", ");
    const task = S.store.get("run")?.task;
    const summary = `${task ? `The user asked: “${clip(task, 160)}”. ` : ""}In the ${cut} messages before this point the agent made ${calls.length} tool calls${names ? ` (${names})` : ""}. (Summary written by the demo page; a real agent asks a model for it.)`;
    const r = S.store.compact({ summary, cut });
    S.scenario = {
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

function deliver() {
  return scenario(() => {
    const d = deliverIfQueued();
    if (!d) return status("nothing queued");
    status(d.delivered.length ? `delivered ${d.delivered.length} notification(s) as user message(s) in event ${d.version}` : `held back: a tool call still waits for its result (${d.deferred} deferred)`);
  });
}

// ---------------------------------------------------------------- rendering

/** Renders every view of the store as the timeline shows it; `follow` scrolls to the newest message. */
function render({ follow = false } = {}) {
  if (!S.store) return;
  const live = S.viewSeq === null || S.viewSeq >= S.store.version;
  if (live) S.viewSeq = null;
  const view = live ? S.store : S.store.at(S.viewSeq);
  try {
    renderModel(view);
    if (follow && live) $("model-list").scrollTop = $("model-list").scrollHeight;
    renderSystem(view, live);
    renderPrivate(view);
    renderNotifications(view, live);
    renderChrome(view, live);
    leakCheck(view);
  } finally {
    if (!live) view.free();
  }
}

function renderChrome(view, live) {
  const version = S.store.version;
  const tl = $("timeline");
  tl.max = String(version);
  tl.value = String(view.version);
  tl.disabled = false;
  const ev = view.version > 0 ? view.events({ since: view.version - 1 })[0] : null;
  $("timeline-label").textContent = ev ? `event ${ev.sequence} / ${version} · ${ev.type} by ${ev.author}` : `event 0 / ${version} · empty store`;
  const badge = $("live-badge");
  badge.className = `badge ${live ? "live" : "past"}`;
  badge.textContent = live ? "● live" : "⟲ past view (read-only) — store.at()";
  const total = S.steps.length;
  const last = S.steps[S.cursor - 1];
  $("progress").textContent = `step ${S.cursor} / ${total}${last?.error ? ` — refused: ${last.error.code}` : ""}`;
  $("progress").title = last ? `last step: ${last.label}` : "";
  const done = S.cursor >= total;
  $("play").disabled = done && !S.playing;
  $("step").disabled = done;
  $("end").disabled = done;
  $("reset").disabled = false;
  $("transcript").disabled = false;
  const ledger = Object.values(S.store.get("async_tasks") ?? {});
  for (const id of ["sc-interrupt", "sc-start", "sc-compact"]) $(id).disabled = false;
  $("sc-check").disabled = $("sc-cancel").disabled = ledger.length === 0;
  // In a past view a scenario branches: say so before anyone clicks.
  document.querySelector(".scenarios").classList.toggle("branching", !live);
  if (!live) status(`Past view: a scenario here branches from event ${view.version} and leaves events ${view.version + 1}–${version} behind (drag the slider to the end to stay live)`);
  else if ($("scenario-status").textContent.startsWith("Past view:")) status("");
}

// Model view --------------------------------------------------------------------

/** How many tool results an encoded message carries, and whether it carries anything else. */
function shape(m, format) {
  const isTool = (p) => p?.type === "tool_result" || p?.type === "tool-result" || p?.functionResponse;
  if (format === "openai" || format === "langchain") return m.role === "tool" || m.type === "tool" ? { tools: 1, other: false } : { tools: 0, other: true };
  const parts = Array.isArray(m.content) ? m.content : Array.isArray(m.parts) ? m.parts : [];
  const tools = parts.filter(isTool).length;
  return { tools, other: tools === 0 || parts.some((p) => !isTool(p)) };
}

/**
 * Pairs the encoded messages after the prefix with the report's entries (Anthropic, Gemini and
 * the AI SDK put a turn's results into one message). Walks from the end; returns the groups in
 * order and the number of prefix messages, or null when the shapes do not line up.
 */
function pair(messages, entries, format) {
  const groups = [];
  let e = entries.length - 1;
  let m = messages.length - 1;
  for (; m >= 0 && e >= 0; m--) {
    const { tools, other } = shape(messages[m], format);
    const taken = [];
    if (tools === 0) taken.push(entries[e--]);
    else {
      if (other && entries[e]?.role === "user") taken.push(entries[e--]);
      for (let k = 0; k < tools; k++) {
        if (entries[e]?.role !== "tool") return null;
        taken.push(entries[e--]);
      }
    }
    groups.unshift({ message: messages[m], entries: taken.reverse() });
  }
  if (e >= 0) return null;
  return { groups, prefix: m + 1 };
}

function roleClass(role, lines) {
  if (role === "tool" || (lines.length && lines.every((l) => l.kind === "result"))) return "tool";
  if (role === "user" || role === "human") return "user";
  if (role === "assistant" || role === "ai" || role === "model") return "assistant";
  return "system";
}

/** Readable lines of an encoded message in any of the five formats. */
function describe(m) {
  const lines = [];
  const text = (t, kind = "text") => {
    // Terminal output keeps its control characters (spinners, \r); they are not for display.
    if (t !== undefined && t !== null && String(t).trim() !== "") lines.push({ kind, text: String(t).replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "") });
  };
  const args = (a) => (typeof a === "string" ? a : JSON.stringify(a ?? {}));
  const part = (p) => {
    if (typeof p === "string") return text(p);
    if (p.functionCall) return text(`${p.functionCall.name}(${args(p.functionCall.args)})`, "call");
    if (p.functionResponse) return text(`↳ ${p.functionResponse.name}: ${textOf(p.functionResponse.response)}`, "result");
    switch (p.type) {
      case "text": return text(p.text);
      case "tool_use": return text(`${p.name}(${args(p.input)})`, "call");
      case "tool-call": return text(`${p.toolName}(${args(p.input)})`, "call");
      case "tool_result": return text(`↳ ${p.tool_use_id}${p.is_error ? " (error)" : ""}: ${textOf(p.content)}`, "result");
      case "tool-result": return text(`↳ ${p.toolCallId}${p.output?.type === "error-text" ? " (error)" : ""}: ${textOf(p.output?.value ?? p.output)}`, "result");
      default: return p.text ? text(p.text) : text(`[${p.type ?? "part"}]`, "meta");
    }
  };
  if (m.tool_call_id) text(`↳ answers ${m.tool_call_id}${m.status === "error" ? " (error)" : ""}`, "meta");
  const content = m.content ?? m.parts;
  if (Array.isArray(content)) content.forEach(part);
  else text(content);
  for (const c of m.tool_calls ?? []) text(c.function ? `${c.function.name}(${c.function.arguments})` : `${c.name}(${args(c.args)})`, "call");
  return { role: m.role ?? m.type ?? "?", lines };
}

function body(lines, limit = 420) {
  return h("div", { class: "body" }, lines.map((l, i) => h("div", { class: `line ${l.kind}` }, clip(l.text, i === 0 ? limit : 200))));
}

function tokenBar(tokens, max) {
  return [h("span", { class: "tok" }, `${fmt(tokens)} tok`), h("span", { class: "tbar" }, h("i", { style: `width:${Math.max(2, Math.round((100 * tokens) / Math.max(1, max)))}%` }))];
}

function renderModel(view) {
  const list = $("model-list");
  const summary = $("model-summary");
  const opts = { budget: S.budget, format: S.format, startOnUser: S.startOnUser, redact: REDACT };
  if (S.previewOver) opts.maxToolResultTokens = S.previewOver;
  let mv;
  try {
    mv = view.modelView(opts);
  } catch (e) {
    summary.replaceChildren(h("div", { class: "error-box" }, explain(e)));
    list.replaceChildren(e.code === "BUDGET_TOO_SMALL" ? h("p", { class: "muted" }, "Raise the budget: the system prompt (always kept) does not fit.") : "");
    $("payload-json").textContent = "";
    list.dataset.sent = "0";
    return;
  }
  const { messages, report } = mv;
  const canon = view.messages();
  const leadingSystem = canon[0]?.role === "system";
  const kept = new Set(report.messages.map((r) => r.id));
  const canonIndex = new Map(canon.map((m, i) => [m.id, i]));
  const truncated = new Map(report.truncated.map((t) => [t.id, t]));
  const paired = pair(messages, report.messages, S.format);
  const maxTok = Math.max(1, report.systemTokens, report.stateTokens, report.summaryTokens, ...report.messages.map((r) => r.tokens));

  // Why each left-out message was left out: compacted ones precede the cut; of the rest, the
  // newest `start_on_user` ones were dropped to start on a user message, the older by budget.
  const compaction = view.get("compaction");
  const cutIndex = compaction?.first_kept_id ? canonIndex.get(compaction.first_kept_id) ?? 0 : 0;
  const reasonOf = new Map();
  const left = canon.map((m, i) => i).filter((i) => !kept.has(canon[i].id) && !(i === 0 && leadingSystem));
  const compacted = left.filter((i) => i < cutIndex);
  compacted.forEach((i) => reasonOf.set(i, "compacted"));
  const rest = left.filter((i) => i >= cutIndex);
  const count = (reason) => report.dropped.filter((d) => d.reason === reason).reduce((s, d) => s + d.count, 0);
  let sou = count("start_on_user");
  let bud = count("budget");
  for (let k = rest.length - 1; k >= 0; k--) {
    if (sou > 0) { reasonOf.set(rest[k], "start on user"); sou--; }
    else if (bud > 0) { reasonOf.set(rest[k], "budget"); bud--; }
    else reasonOf.set(rest[k], "dropped by repair");
  }

  const cards = [];
  const prefix = paired ? messages.slice(0, paired.prefix) : [];
  const prefixKinds = [];
  if (leadingSystem && report.systemTokens > 0) prefixKinds.push({ label: "system prompt", cls: "system", tokens: report.systemTokens });
  if (report.stateTokens > 0) prefixKinds.push({ label: `# Current state — ${report.sections.filter((s) => s.included).map((s) => s.name).join(", ")}`, cls: "state", tokens: report.stateTokens });
  if (report.summaryTokens > 0) prefixKinds.push({ label: "compaction summary", cls: "summary", tokens: report.summaryTokens });
  prefix.forEach((m, i) => {
    const kind = prefixKinds[i] ?? { label: "prefix", cls: "system", tokens: 0 };
    const d = describe(m);
    cards.push(h("article", { class: `msg sent ${kind.cls}` },
      h("header", {}, h("span", { class: "role" }, d.role), h("span", { class: "tag" }, kind.label), report.redacted.length && kind.cls === "state" ? h("span", { class: "tag redact" }, `redacted: ${report.redacted.join(", ")}`) : null, ...tokenBar(kind.tokens, maxTok)),
      body(d.lines, kind.cls === "system" ? 260 : 600)));
  });

  const dropped = (i) => {
    const m = canon[i];
    const d = describe(m);
    return h("article", { class: `msg dropped ${roleClass(m.role, d.lines)}` },
      h("header", {}, h("span", { class: "role" }, m.role), h("span", { class: "id" }, m.id), h("span", { class: "tag drop" }, `not sent: ${reasonOf.get(i) ?? "dropped"}`)),
      body(d.lines, 140));
  };

  let ci = leadingSystem ? 1 : 0;
  const groups = paired ? paired.groups : messages.map((message) => ({ message, entries: [] }));
  for (const g of groups) {
    const idxs = g.entries.map((e) => canonIndex.get(e.id)).filter((i) => i !== undefined);
    if (idxs.length) {
      const first = Math.min(...idxs);
      for (; ci < first; ci++) if (reasonOf.has(ci)) cards.push(dropped(ci));
      ci = Math.max(ci, Math.max(...idxs) + 1);
    }
    const d = describe(g.message);
    const tokens = g.entries.reduce((s, e) => s + e.tokens, 0);
    const synthetic = g.entries.filter((e) => !canonIndex.has(e.id));
    const trunc = g.entries.map((e) => truncated.get(e.id)).filter(Boolean);
    const tags = [];
    if (synthetic.length) tags.push(h("span", { class: "tag repair" }, `added by repair${synthetic.length > 1 ? ` ×${synthetic.length}` : ""}`));
    if (trunc.length) tags.push(h("span", { class: "tag trunc" }, `truncated → preview`));
    const ids = g.entries.map((e) => e.id).join(" + ");
    cards.push(h("article", { class: `msg sent ${roleClass(d.role, d.lines)}`, "data-ids": ids },
      h("header", {}, h("span", { class: "role" }, d.role), h("span", { class: "id", title: ids }, ids), ...tags, ...(paired ? tokenBar(tokens, maxTok) : [])),
      body(d.lines),
      trunc.map((t) => h("div", { class: "trunc-note" }, `full result ${fmt(t.tokens)} tok → preview ${fmt(t.previewTokens)} tok · the rest at ${t.artifact}`))));
  }
  for (; ci < canon.length; ci++) if (reasonOf.has(ci)) cards.push(dropped(ci));
  if (!canon.length) cards.push(h("p", { class: "muted" }, "No messages yet: press ▶ Play or Step to replay the transcript through the store, one command at a time."));
  list.replaceChildren(...cards);
  list.dataset.sent = String(messages.length);

  const over = report.used > report.budget;
  const droppedTotal = report.dropped.reduce((s, d) => s + d.count, 0);
  summary.replaceChildren(
    h("div", {}, h("b", { id: "sent-count" }, `${messages.length} message${messages.length === 1 ? "" : "s"} sent`), ` in ${S.format} format · ${fmt(report.used)} / ${fmt(report.budget)} tokens (${canon.length} in the store)`),
    h("div", { class: "meter" }, h("i", { class: over ? "over" : "", style: `width:${Math.min(100, (100 * report.used) / Math.max(1, report.budget)).toFixed(1)}%` })),
    h("div", { class: "chips" },
      report.dropped.map((d) => h("span", { class: "tag drop" }, `${d.count} not sent: ${d.reason.replace(/_/g, " ")}`)),
      report.truncated.length ? h("span", { class: "tag trunc" }, `${report.truncated.length} truncated`) : null,
      report.repairs.length ? h("span", { class: "tag repair" }, `${report.repairs.length} repaired in the selection`) : null,
      report.redacted.length ? h("span", { class: "tag redact" }, `${report.redacted.length} redacted`) : null,
      droppedTotal === 0 && !report.truncated.length && !report.repairs.length ? h("span", { class: "tag" }, "everything fits") : null),
  );
  $("payload-json").textContent = clip(JSON.stringify(messages, null, 1), 200_000);
}

// System view ---------------------------------------------------------------------

function section(title, ...content) {
  return h("div", { class: "sec" }, h("h3", {}, title), ...content);
}

function statusBadge(s) {
  return h("span", { class: `status ${s ?? ""}` }, s ?? "—");
}

function renderSystem(view, live) {
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
      : h("p", { class: "muted", style: "margin:0;font-size:12px" }, "no tasks — try “Start async task”")));

  const plan = Object.entries(system.plan ?? {});
  const todos = Array.isArray(system.todos) ? system.todos : [];
  out.push(section("Plan / todos",
    plan.length || todos.length
      ? h("ul", { class: "plain" },
          plan.map(([id, s]) => h("li", {}, statusBadge(s.status), " ", `${id}: ${s.title ?? ""}`)),
          todos.map((t) => h("li", {}, statusBadge(t.status), " ", t.content)))
      : h("p", { class: "muted", style: "margin:0;font-size:12px" }, "none in this transcript")));

  const approvals = Object.entries(system.approvals ?? {});
  if (approvals.length) out.push(section("Approvals", h("ul", { class: "plain" }, approvals.map(([id, a]) => h("li", {}, statusBadge(a.status), ` ${id} → ${a.tool_call_id}`)))));

  const provider = providerOf(S.format);
  const violations = S.sg.validateMessages(view.messages(provider), { provider });
  const dangling = view.danglingToolCalls();
  out.push(section(`Validation (${provider}) of the stored history`,
    violations.length
      ? h("ul", { class: "plain bad-line", id: "violations" }, violations.map((v) => h("li", { title: v.message }, `✗ ${v.rule} at message ${v.index}${v.toolCallId ? ` (${v.toolCallId})` : ""}`)))
      : h("div", { class: "ok-line", id: "violations" }, `✓ no violations of ${provider}'s rules`),
    dangling.length ? h("div", { class: "bad-line" }, `dangling calls: ${dangling.map((d) => `${d.name} (${d.toolCallId})`).join(", ")}`) : null));

  if (S.scenario) {
    out.push(section(`Last scenario: ${S.scenario.title}${live ? "" : " (live state)"}`, h("div", { class: "report", id: "scenario-report", "data-scenario": S.scenario.id }, h("ol", {}, S.scenario.items.map((i) => h("li", {}, i))))));
  }

  if (S.rejections.length) {
    out.push(section("Refused at the gate (audit)", h("ul", { class: "plain" }, S.rejections.slice(-4).reverse().map((r) => h("li", { class: "bad-line", title: r.message }, `${r.code} — ${r.author} → ${r.channels.join(", ")}`)))));
  }

  const events = view.events({ since: Math.max(0, view.version - 7) });
  out.push(section(`Event log (${view.version} events, hash-chained)`,
    h("ul", { class: "plain events" }, events.reverse().map((e) => h("li", { class: e.sequence === view.version && !live ? "current" : "" }, `#${e.sequence} ${e.type} · ${e.author} → ${Object.keys(e.payload).join(", ")}`)))));

  const shown = new Set(["messages", "run", "budget", "async_tasks", "plan", "todos", "approvals", "notifications"]);
  const others = Object.entries(system).filter(([k, v]) => !shown.has(k) && v !== null && v !== undefined && !(typeof v === "object" && Object.keys(v).length === 0));
  out.push(section("Other channels",
    others.length ? others.map(([k, v]) => h("div", {}, h("b", { style: "font-size:12px" }, k), h("div", { class: "json" }, clip(JSON.stringify(v), 400))))
      : h("p", { class: "muted", style: "margin:0;font-size:12px" }, "facts, files, artifacts, compaction…: all empty")));
  $("system-body").replaceChildren(...out);
}

// Private view ---------------------------------------------------------------------

function renderPrivate(view) {
  const privates = view.channels().filter((c) => c.visibility === "private");
  const n = privates.length;
  $("private-body").replaceChildren(
    h("div", { class: "vault" },
      h("div", { class: "count", id: "private-count" }, `${n} private channel${n === 1 ? "" : "s"}, contents hidden`),
      h("div", { class: "hidden" }, "readable only with the owner's key: store.private(key)"),
      h("ul", {}, privates.map((c) => h("li", {}, `“${c.name}” — owner: ${c.owner}`)))),
    h("div", { class: "leak", id: "leak-check" }),
    h("div", { class: "about" },
      h("p", {}, "The ", h("b", {}, "memory"), " middleware owns this channel. ", h("code", {}, "systemView()"), ", ", h("code", {}, "toJSON()"), ", ", h("code", {}, "exportForTransport()"), " and every error leave it out; ", h("code", {}, "modelView()"), " refuses any output containing one of its strings (", h("code", {}, "PRIVATE_LEAK"), ")."),
      h("p", {}, "Each step is a command: decode → authorise → version lock → validate → reduce → one hash-chained event. Move the ", h("b", {}, "Event log"), " slider to see any earlier state (", h("code", {}, "store.at(sequence)"), ")."),
      h("p", {}, "Transcripts are real recorded runs: ", h("a", { href: `${TRANSCRIPT_DIR}SOURCES.md`, target: "_blank", rel: "noopener" }, "sources and licences"), ". Everything runs in this tab, in WebAssembly.")),
  );
}

/** Every string of 8+ characters in the private channels (what the store's own scan covers). */
function privateStrings(view) {
  const out = [];
  const walk = (v) => {
    if (typeof v === "string") { if (v.length >= 8) out.push(v); }
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(view.private(S.memoryKey));
  return out;
}

function leakCheck(view) {
  const values = privateStrings(view);
  const panels = { "model view": $("model-panel"), "system state": $("system-panel"), notifications: document.querySelector(".notices"), "scenario bar": document.querySelector(".scenarios") };
  const where = [];
  for (const [name, el] of Object.entries(panels)) {
    const text = `${el.textContent}\n${el.innerHTML}`;
    if (values.some((v) => text.includes(v))) where.push(name);
  }
  S.leak = { ok: where.length === 0, where, values: values.length, version: view.version, checks: (S.leak?.checks ?? 0) + 1 };
  // The badge lives in the private panel; refresh it with the result just computed.
  const badge = $("leak-check");
  badge.className = `leak ${S.leak.ok ? "ok" : "bad"}`;
  badge.replaceChildren(
    h("b", {}, S.leak.ok ? "✓ no private value in the other panels" : `✗ private value found in: ${where.join(", ")}`),
    `checked ${values.length} private string${values.length === 1 ? "" : "s"} against the model view, system state, notifications and scenario bar at event ${view.version} (${S.leak.checks} checks so far)`,
  );
}

// Notifications --------------------------------------------------------------------

function renderNotifications(view, live) {
  const all = Object.values(view.get("notifications") ?? {});
  const box = $("notifications");
  if (!all.length) {
    box.replaceChildren(h("span", { class: "muted" }, "none — notifications come from the async task ledger"));
  } else {
    all.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
    box.replaceChildren(...all.map((n) => {
      // Queued until delivered; dropped when the model saw the status through its own tools.
      const state = n.delivered_at ? "delivered" : n.dropped ? "dropped" : "queued";
      return h("span", { class: `note ${state}`, "data-task": n.task_id, "data-state": state, title: n.dropped ? `not delivered: ${n.dropped}` : n.result ?? n.error ?? "" },
        statusBadge(n.status), h("span", { class: "mono" }, `task ${n.task_id}`), `· ${n.agent_name}`, h("span", { class: "state" }, n.dropped && !n.delivered_at ? `dropped: ${n.dropped}` : state));
    }));
  }
  $("deliver").disabled = !live || !all.some((n) => !n.delivered_at && !n.dropped);
}

// ---------------------------------------------------------------- controls

function budgetFromSlider(v) {
  const raw = 250 * Math.pow(64, Number(v) / 1000);
  const step = raw < 1000 ? 25 : raw < 5000 ? 50 : 250;
  return Math.round(raw / step) * step;
}
function sliderFromBudget(b) {
  return Math.round((1000 * Math.log(b / 250)) / Math.log(64));
}

function wire() {
  const select = $("transcript");
  select.replaceChildren(...TRANSCRIPTS.map((t) => h("option", { value: t.file }, t.label)));
  select.addEventListener("change", () => {
    const v = select.value;
    if (v.startsWith("file:")) loadText(v.slice(5), textCache.get(v));
    else loadBundled(v).catch((e) => status(explain(e), true));
  });
  $("run-index").addEventListener("change", async () => {
    const v = select.value;
    const text = textCache.get(v);
    if (!S.source || text === undefined) return;
    const run = Math.min(Math.max(0, Number($("run-index").value) || 0), S.source.runs.length - 1);
    $("run-index").value = String(run);
    await loadSource({ ...S.source, run });
  });
  $("file").addEventListener("change", async (ev) => {
    const f = ev.target.files?.[0];
    if (f) await loadText(f.name, await f.text());
    ev.target.value = "";
  });
  let depth = 0;
  document.addEventListener("dragenter", (e) => { e.preventDefault(); depth++; $("drop-hint").hidden = false; });
  document.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; $("drop-hint").hidden = true; } });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", async (e) => {
    e.preventDefault();
    depth = 0;
    $("drop-hint").hidden = true;
    const f = e.dataTransfer?.files?.[0];
    if (f) await loadText(f.name, await f.text());
  });

  $("play").addEventListener("click", () => setPlaying(!S.playing));
  $("step").addEventListener("click", () => { setPlaying(false); step(); });
  $("end").addEventListener("click", () => toEnd());
  $("reset").addEventListener("click", () => S.source && loadSource(S.source));
  $("timeline").addEventListener("input", (e) => {
    const v = Number(e.target.value);
    if (v < S.store.version) setPlaying(false);
    S.viewSeq = v >= S.store.version ? null : v;
    render();
  });

  const budget = $("budget");
  budget.value = String(sliderFromBudget(S.budget));
  const showBudget = () => ($("budget-label").textContent = `${fmt(S.budget)} tokens`);
  showBudget();
  budget.addEventListener("input", () => {
    S.budget = budgetFromSlider(budget.value);
    showBudget();
    render();
  });
  $("format").addEventListener("change", (e) => { S.format = e.target.value; render(); });
  $("previews").addEventListener("change", (e) => { S.previewOver = Number(e.target.value); render(); });
  $("start-on-user").addEventListener("change", (e) => { S.startOnUser = e.target.checked; render(); });

  $("sc-interrupt").addEventListener("click", interrupt);
  $("sc-start").addEventListener("click", startTask);
  $("sc-check").addEventListener("click", checkTask);
  $("sc-cancel").addEventListener("click", cancelTask);
  $("sc-compact").addEventListener("click", compact);
  $("deliver").addEventListener("click", deliver);
}

async function main() {
  try {
    S.sg = await load();
  } catch (e) {
    $("progress").textContent = "the package did not load — run `make build` first";
    status(explain(e), true);
    throw e;
  }
  wire();
  const first = params.get("transcript") ?? TRANSCRIPTS[0].file;
  $("transcript").value = first;
  await loadBundled(first, Number(params.get("run") ?? 0));
  document.body.dataset.ready = "true";
}

// Uncaught errors are shown in the scenario bar and kept for the browser tests (Firefox has no
// console hook in WebDriver classic).
const errors = [];
window.addEventListener("error", (e) => {
  errors.push(String(e.message ?? e));
  status(`error: ${e.message}`, true);
});
window.addEventListener("unhandledrejection", (e) => {
  errors.push(explain(e.reason));
  status(`error: ${explain(e.reason)}`, true);
});

// A read-only handle for the browser tests: they check that the canary really is in the store
// (so its absence from the page means something). Nothing here is rendered.
window.stategateDemo = {
  privateValues: () => (S.store ? privateStrings(S.store) : []),
  version: () => S.store?.version ?? 0,
  errors: () => [...errors],
};

main();
