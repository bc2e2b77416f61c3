// The replay: a recorded transcript read by the package (readTranscript, as LangChain dicts,
// then decodeMessages into the store's canonical messages, which is all this module reads),
// turned into steps (one command, or one superstep per assistant turn with its tool results),
// applied to the store one at a time, played on a timer or to the end.
import { $, h, fmt, clip, status, explain } from "./dom.js";
import { core, tape, ui, scen, TRANSCRIPT_DIR, PLAY_MS, exclusive, resetStore } from "./state.js";
import { render } from "./render.js";

// ---------------------------------------------------------------- transcripts → steps

/** The text of a canonical message's content (its text parts joined). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((p) => p?.type === "text").map((p) => p.text).join("");
  return "";
}

function authorOf(m) {
  switch (m.role) {
    case "user": return "user";
    case "assistant": return "model";
    case "system": return "system-prompt";
    case "tool": return `tool:${m.tool_call_id}`;
    default: return m.role ?? "unknown";
  }
}

function shortText(m) {
  const t = textOf(m.content).replace(/\s+/g, " ").trim();
  return t.length > 48 ? `${t.slice(0, 48)}…` : t;
}

/**
 * One step per canonical message, or per assistant turn with its tool results (a superstep
 * applied with applyBatch: each result is its own command, event and version). The first step
 * starts the run; the last one completes it.
 */
function buildSteps(run) {
  const steps = [{ label: "the run starts", cmds: [{ author: "runtime", update: { run: { status: "running" }, budget: { limits: { max_turns: 1000, max_tool_calls: 5000 } } } }] }];
  let task = false;
  for (let i = 0; i < run.length; ) {
    const m = run[i];
    if (m.role === "assistant" && m.tool_calls?.length) {
      const cmds = [{ author: "model", update: { messages: [m] } }];
      let j = i + 1;
      while (j < run.length && run[j].role === "tool") {
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
      if (m.role === "user" && !task) {
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
  const text = textOf(result.content);
  if (!text.startsWith("{")) return null;
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    return null;
  }
  if (!record || typeof record.email !== "string") return null;
  const name = typeof record.name === "object" ? [record.name.first_name, record.name.last_name].filter(Boolean).join(" ") : record.name;
  const fact = { name, email: record.email, dob: record.dob, membership: record.membership };
  for (const k of Object.keys(fact)) if (fact[k] === undefined) delete fact[k];
  return { [`user ${call?.args?.user_id ?? record.user_id ?? result.tool_call_id}`]: fact };
}

// ---------------------------------------------------------------- loading

export function stopTimers() {
  setPlaying(false);
  clearTimeout(scen.pollTimer);
  scen.pollTimer = null;
}

/** Starts `source` (`{name, kind, runs, run}`) over in a new store. */
export async function loadSource(source) {
  const messages = core.sg.decodeMessages(source.runs[source.run] ?? []);
  await exclusive(() => {
    stopTimers();
    resetStore({ ...source, messages }, buildSteps(messages));
  });
  const runs = source.runs.length;
  status(`${source.name}: ${source.kind}, ${fmt(messages.length)} messages${runs > 1 ? ` (run ${source.run} of ${runs})` : ""} — press Play or Step`);
  render();
}

/** Transcript texts by option value (`file` or `file:name`). */
export const textCache = new Map();

export async function loadBundled(file, run = 0) {
  let text = textCache.get(file);
  if (text === undefined) {
    $("progress").textContent = "fetching transcript…";
    const res = await fetch(TRANSCRIPT_DIR + file);
    if (!res.ok) throw new Error(`could not fetch ${file}: HTTP ${res.status}`);
    text = await res.text();
    textCache.set(file, text);
  }
  const parsed = core.sg.readTranscript(text, { format: "langchain" });
  const runIndex = Math.min(Math.max(0, run), parsed.runs.length - 1);
  showRunPicker(parsed.runs.length, runIndex);
  await loadSource({ name: file, kind: parsed.kind, runs: parsed.runs, run: runIndex });
}

export async function loadText(name, text) {
  let parsed;
  try {
    parsed = core.sg.readTranscript(text, { format: "langchain" });
  } catch (e) {
    status(`${name}: not a transcript the readers accept (${explain(e)})`, true);
    return;
  }
  if (!parsed.runs.length || !parsed.runs[0].length) return status(`${name}: no messages`, true);
  const value = `file:${name}`;
  if (![...$("transcript").options].some((o) => o.value === value)) $("transcript").append(h("option", { value }, `file: ${name}`));
  $("transcript").value = value;
  textCache.set(value, text);
  showRunPicker(parsed.runs.length, 0);
  await loadSource({ name, kind: parsed.kind, runs: parsed.runs, run: 0 });
}

function showRunPicker(count, value) {
  $("run-pick").hidden = count <= 1;
  $("run-index").max = String(Math.max(0, count - 1));
  $("run-index").value = String(value);
}

// ---------------------------------------------------------------- stepping

export function deliverIfQueued() {
  if (!core.store.notifications().length) return null;
  return core.store.deliverNotifications({ author: "notifier" });
}

/** Applies the next step; false when there is none. */
export function applyStep() {
  const step = tape.steps[tape.cursor];
  if (!step) return false;
  // Queued task notifications reach the model before its next turn (deepagents' pull).
  if (step.cmds[0].author === "model") deliverIfQueued();
  try {
    if (step.cmds.length === 1) core.store.apply(step.cmds[0]);
    else core.store.applyBatch(step.cmds);
    step.error = null;
  } catch (e) {
    step.error = e;
  }
  tape.stepVersions.push(core.store.version);
  if (step.complete && !step.error) tape.completionSeq = core.store.version;
  tape.cursor += 1;
  return true;
}

function narrate() {
  const last = tape.steps[tape.cursor - 1];
  if (!last) return;
  if (last.error) status(`step ${tape.cursor} refused at the gate — ${explain(last.error)}`, true);
  else if (tape.cursor >= tape.steps.length) status(`replay finished: the run completed at event ${tape.completionSeq ?? core.store.version} — move the budget, travel back in time, or try a scenario`);
  else status(`step ${tape.cursor}: ${last.label}`);
}

/** One step, live; true while more steps remain. */
export async function step() {
  if (!core.store) return false;
  const more = await exclusive(() => {
    ui.viewSeq = null;
    return applyStep();
  });
  narrate();
  render({ follow: true });
  return more && tape.cursor < tape.steps.length;
}

export function setPlaying(on) {
  tape.playing = on;
  clearTimeout(tape.timer);
  tape.timer = null;
  const b = $("play");
  b.textContent = on ? "Pause" : "▶ Play";
  b.setAttribute("aria-pressed", String(on));
  if (on) tape.timer = setTimeout(tick, 0);
}

async function tick() {
  if (!tape.playing) return;
  const more = await step();
  if (!tape.playing) return;
  if (more) tape.timer = setTimeout(tick, PLAY_MS);
  else setPlaying(false);
}

export async function toEnd() {
  setPlaying(false);
  await exclusive(() => {
    ui.viewSeq = null;
    while (applyStep());
  });
  narrate();
  render({ follow: true });
}
