// Compile-time check of the published types: a consumer as a user would write it.
import { repairMessages, validateMessages, convertMessages, readTranscript, type Violation, type Fix, type RepairResult } from "../../pkg/index.js";

const history = [{ role: "user", content: "hi" }];
const violations: Violation[] = validateMessages(history, { provider: "anthropic" });
const rule: string = violations[0]?.rule ?? "";
const repaired: RepairResult<{ role: string; content: string }> = repairMessages(history, { provider: "openai", reasons: { c1: "rejected" } });
const fixes: Fix[] = repaired.report;
const kind: string | undefined = fixes[0]?.kind;
const converted: unknown[] = convertMessages(history, { to: "ai-sdk" });
const runs: unknown[][] = readTranscript("[]").runs;
// @ts-expect-error: an unknown provider is a type error
validateMessages(history, { provider: "mistral" });
// @ts-expect-error: an unknown format is a type error
convertMessages(history, { to: "xml" });
export { rule, kind, converted, runs };

// The state store, as a user would type it.
import { StateStore, type Command, type Applied, type StoreEvent, type ChannelSpec, type StategateError } from "../../pkg/index.js";
const spec: ChannelSpec = { name: "notes", reducer: "append", type: "string" };
const store: StateStore = new StateStore({ runId: "r1", channels: [spec], clock: () => 0 });
const command: Command = { author: "user", update: { messages: [{ role: "user", content: "hi" }] } };
const applied: Applied = store.apply(command);
const ids: string[] = applied.ids;
const version: number = store.version;
const events: StoreEvent[] = store.events();
const key: string | undefined = store.registerChannel({ name: "mem", reducer: "merge", visibility: "private", owner: "memory" });
try {
  store.applyBatch([{ author: "a", expectedVersion: 0, update: { notes: ["x"] } }]);
} catch (e) {
  const code: string = (e as StategateError).code;
  void code;
}
// @ts-expect-error: a command needs an author
store.apply({ update: {} });
// @ts-expect-error: an unknown reducer is a type error
store.registerChannel({ name: "x", reducer: "sum" });
export { ids, version, events, key };

// History and persistence.
import { FileLog } from "../../pkg/file-log.js";
import { verifyLog, type LogCheck, type StoreEvent as Ev, type DanglingCall, type IndexedDbLog } from "../../pkg/index.js";
const log = FileLog.open("/tmp/stategate-consumer-typecheck");
const live = new StateStore({ onEvents: (events: Ev[]) => log.append(events), audit: (r) => void r.code });
const bytes: Uint8Array = live.checkpoint();
const restored: StateStore = StateStore.restore(bytes, log.load().events);
const check: LogCheck = verifyLog(restored.events({ since: 0, type: "tool_result" }));
// verifyLog's options are both optional: a keyed chain's key alone, or with an anchor.
const chainKey = new Uint8Array(32);
const keyed: LogCheck = verifyLog(restored.eventsJsonl(), { chainKey });
const anchored: LogCheck = verifyLog(restored.events({ since: 1 }), { after: { sequence: 1, hash: restored.lastHash }, chainKey });
// @ts-expect-error: a chain key is bytes, not a string
verifyLog(restored.eventsJsonl(), { chainKey: "secret" });
const dangling: DanglingCall[] = restored.danglingToolCalls();
const past: StateStore = restored.at(0);
const replayed: StateStore = StateStore.replay(restored.eventsJsonl());
let idb: IndexedDbLog | undefined;
// @ts-expect-error: a checkpoint is bytes, not text
StateStore.restore("not bytes");
export { check, keyed, anchored, dangling, past, replayed, idb };

// The model view.
import { projectMessages, type ModelView, type ModelViewOptions, type Report } from "../../pkg/index.js";
const viewOpts: ModelViewOptions = { budget: 8_000, format: "anthropic", maxToolResultTokens: 500, tokenizer: (t: string) => t.length };
const view: ModelView = restored.modelView(viewOpts);
const report: Report = projectMessages(history, { budget: 2_000 }).report;
const cut: number = restored.compactionPlan({ keep: 10 });
restored.compact({ summary: "so far…", cut });
// @ts-expect-error: an unknown format is a type error
projectMessages(history, { budget: 100, format: "xml" });
export { view, report };

// Live followers (issue 18): the follower store and its changes, typed.
import { followRun, followEventSource, type Follower, type FollowChange, type FollowSource } from "../../pkg/index.js";
import { SseHub } from "../../pkg/sse.js";
const source: FollowSource = async function* (since) {
  if (since === null) yield { snapshot: store.exportForTransport() };
  yield { events: store.transportEvents({ since: since ?? store.version }) };
};
const follower: Follower = followRun(source, { retries: 3, retryDelayMs: 100, storeOptions: { clock: () => 0 } });
const followerVersion: number | null = follower.version;
const followerStore: StateStore | null = follower.store;
async function firstChange(f: Follower): Promise<FollowChange | undefined> {
  for await (const change of f.changes()) return change;
  return undefined;
}
const browserFollower: Follower = followEventSource(new URL("http://127.0.0.1:8080/events"), { maxQueued: 100 });
const hub: SseHub = new SseHub(store, { heartbeatMs: 0 });
const connected: number = hub.clients;
// @ts-expect-error: a source is a function of since
followRun([{ snapshot: {} }]);
// @ts-expect-error: an unknown option is a type error (and INVALID_OPTION naming it at run time)
followRun(source, { retry: 3 });
export { followerVersion, followerStore, firstChange, browserFollower, connected };
