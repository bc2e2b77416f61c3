// The page's state, in four small objects: `core` (the package, the live StateStore, its
// private owner key, the task ledger and the simulated server), `tape` (the replay: source,
// steps, cursor), `ui` (what the model view is asked for, and which event the timeline shows)
// and `scen` (what the scenarios remember). Also the constants, the one queue every change goes
// through (`exclusive`), and the store's lifecycle: a new store, or a branch at a past event.
import { randomId } from "./dom.js";
import { createAgentServer } from "./agent-sim.js";

export const TRANSCRIPTS = [
  { file: "claudecode-coverage-test-fix.jsonl", label: "Claude Code: add a function + test" },
  { file: "openhands-basic-gui-mode.json", label: "OpenHands: build a Vue todo app" },
  { file: "sweagent-marshmallow-1867-fc.traj", label: "SWE-agent: marshmallow #1867" },
  { file: "taubench-gpt4o-airline-historical.json", label: "τ-bench: airline support, 200 runs" },
];
export const TRANSCRIPT_DIR = "../tests/fixtures/transcripts/";
export const MEMORY = { name: "memory", reducer: "replace", visibility: "private", owner: "memory" };
export const REDACT = ["email", "dob"]; // fields the model view shows as [redacted] in the state sections
export const PLAY_MS = 420;
export const POLL_MS = 450;
export const TERMINAL_RUN = new Set(["completed", "failed", "cancelled"]);
export const params = new URLSearchParams(location.search);
export const CANARY = params.get("canary") || `CANARY-PRIVATE-${randomId()}`;

/** The package and the live store. */
export const core = {
  sg: null, // the API returned by load()
  store: null, // the live StateStore
  memoryKey: null, // the memory middleware's owner key
  tasks: null, // AsyncTasks over `store`
  server: null, // the simulated Agent Protocol server (agent-sim.js)
  rejections: [], // the gate's audit of refused commands, newest last (at most 20)
};

/** The transcript being replayed. */
export const tape = {
  source: null, // {name, kind, runs, run, messages} (messages: the run in canonical form)
  steps: [],
  cursor: 0, // next step
  stepVersions: [], // store version after each applied step
  completionSeq: null, // the event that completed the run
  playing: false,
  timer: null,
};

/** What the page shows. */
export const ui = {
  viewSeq: null, // null = live; else a past sequence shown read-only
  budget: 2000,
  format: "openai",
  previewOver: 500,
  startOnUser: true,
};

/** What the scenarios remember. */
export const scen = {
  last: null, // the last scenario's report {title, id, items}
  count: 0, // interrupts so far (their call ids)
  taskCalls: 0, // task tool calls so far (their call ids)
  pollTimer: null,
};

let chain = Promise.resolve();
/** Runs `fn` after every earlier change (replay steps, scenarios, polls never interleave). */
export function exclusive(fn) {
  const run = chain.then(fn);
  chain = run.catch(() => {});
  return run;
}

function onRejected(r) {
  core.rejections.push(r);
  if (core.rejections.length > 20) core.rejections.shift();
}

function bindTasks() {
  core.tasks?.free();
  core.tasks = new core.sg.AsyncTasks(core.store, {
    url: "http://in-page.invalid",
    agents: [{ name: "researcher", description: "Researches a topic in the background and reports back", graph_id: "research" }],
    transport: core.server.transport,
  });
}

/** A fresh store for `source` (a new simulated server too); the replay starts again at step 0. */
export function resetStore(source, steps) {
  core.tasks?.free();
  core.tasks = null;
  core.store?.free();
  core.server = createAgentServer();
  core.rejections = [];
  const store = new core.sg.StateStore({ runId: "demo", audit: onRejected });
  core.memoryKey = store.registerChannel(MEMORY);
  // The memory middleware keeps its notes in its private channel: the canary must never leave it.
  store.apply({ author: "memory", update: { memory: { canary: CANARY, note: "owner-only scratchpad of the memory middleware" } } });
  core.store = store;
  bindTasks();
  Object.assign(tape, { source, steps, cursor: 0, stepVersions: [], completionSeq: null });
  ui.viewSeq = null;
  scen.last = null;
  scen.taskCalls = 0;
}

/**
 * A writable store at `seq`: the log up to there replayed into a new store (the hash chain is
 * checked on the way), the private owner claiming its key again. Later events are left behind.
 */
export function branchAt(seq, why) {
  const events = core.store.events({ until: seq });
  const next = core.sg.StateStore.replay(events, { channels: [MEMORY], audit: onRejected });
  core.memoryKey = next.claimOwnerKey("memory");
  core.tasks?.free();
  core.tasks = null;
  core.store.free();
  core.store = next;
  bindTasks();
  tape.stepVersions = tape.stepVersions.filter((v) => v <= seq);
  tape.cursor = tape.stepVersions.length;
  if (tape.completionSeq !== null && tape.completionSeq > seq) tape.completionSeq = null;
  ui.viewSeq = null;
  return `${why}: the log up to event ${seq} was replayed into a new store (StateStore.replay), later events left behind`;
}
