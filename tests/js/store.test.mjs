// Boundary tests of the JS `StateStore` (release package, pkg/): commands, batches (supersteps),
// conflicts, message ids, the run / approval machines, private channels and atomicity.
//
// Every failing call must throw a real `Error` with a stable `.code` and `.details`, and leave
// `version`, every channel and `events()` exactly as they were. Private channel values must never
// appear in `systemView()`, `toJSON()`, `messages()`, or in the message / details of any error
// (events are local to the store and are not checked for privacy).
//
// Run: node --test tests/js/store.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { StateStore } from "../../pkg/index.js";

// ---------------------------------------------------------------------------------------------
// Helpers

/** Runs `fn`, which must throw an `Error` whose `code` is `code` (or one of `code` if an array). */
function expectCode(fn, code, what = "") {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  const codes = Array.isArray(code) ? code : [code];
  assert.ok(err !== undefined, `${what}: expected ${codes.join("|")}, but the call did not throw`);
  assert.ok(err instanceof Error, `${what}: thrown value is not an Error: ${String(err)}`);
  assert.ok(codes.includes(err.code), `${what}: expected ${codes.join("|")}, got ${err.code}: ${err.message}`);
  assert.equal(typeof err.details, "object", `${what}: error has no details object`);
  assert.notEqual(err.details, null, `${what}: error details is null`);
  return err;
}

/** Everything observable of a store (except private channels), as one string. */
const snapshot = (store) =>
  JSON.stringify({ version: store.version, view: store.systemView(), events: store.events(), json: store.toJSON() });

/** OpenAI-format tool call. */
const call = (id, name, args = {}) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

function startRun(store) {
  store.apply({ author: "app", update: { run: { status: "running" } } });
}

const DEFAULT_CHANNELS = [
  "messages",
  "async_tasks",
  "notifications",
  "todos",
  "files",
  "run",
  "plan",
  "facts",
  "unresolved_questions",
  "approvals",
  "budget",
  "artifacts",
  "last_error",
  "compaction",
  "structured_response",
  "active_agent",
];

// ---------------------------------------------------------------------------------------------
// The cases

test("three parallel tool calls: merge writes {a},{b},{c} and three tool results in one applyBatch are all applied", () => {
  const store = new StateStore({ runId: "run-parallel" });
  store.registerChannel({ name: "found", reducer: "merge" }); // onConflict defaults to "error"
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "look up a, b and c", id: "u1" }] } });
  store.apply({
    author: "model",
    update: { messages: [{ role: "assistant", content: "", id: "m1", tool_calls: [call("c1", "lookup", { k: "a" }), call("c2", "lookup", { k: "b" }), call("c3", "lookup", { k: "c" })] }] },
  });
  const v0 = store.version;
  assert.equal(v0, 3);

  const batch = ["a", "b", "c"].map((k, i) => ({
    author: `tool:c${i + 1}`,
    update: { found: { [k]: true }, messages: [{ role: "tool", tool_call_id: `c${i + 1}`, content: `result ${k}` }] },
  }));
  const { version, ids } = store.applyBatch(batch);

  assert.equal(version, v0 + 3, "one version per command");
  assert.equal(store.version, v0 + 3);
  assert.deepEqual(store.get("found"), { a: true, b: true, c: true });
  const messages = store.get("messages");
  assert.deepEqual(
    messages.map((m) => [m.role, m.tool_call_id ?? null, m.content]),
    [
      ["user", null, "look up a, b and c"],
      ["assistant", null, ""],
      ["tool", "c1", "result a"],
      ["tool", "c2", "result b"],
      ["tool", "c3", "result c"],
    ],
  );
  assert.deepEqual(messages[1].tool_calls.map((c) => [c.id, c.name, c.args]), [["c1", "lookup", { k: "a" }], ["c2", "lookup", { k: "b" }], ["c3", "lookup", { k: "c" }]]);
  assert.equal(ids.length, 3);
  for (let i = 0; i < 3; i++) {
    assert.equal(ids[i].length, 1, `command ${i} wrote one message`);
    assert.equal(ids[i][0], messages[2 + i].id);
  }
  assert.equal(new Set(messages.map((m) => m.id)).size, 5, "every message has a distinct id");
});

test("merge channel: the same key from two commands of one batch conflicts (onConflict error), the later wins with callOrder", () => {
  const store = new StateStore({ runId: "run-merge" });
  store.registerChannel({ name: "strict", reducer: "merge" });
  store.registerChannel({ name: "lenient", reducer: "merge", onConflict: "callOrder" });
  store.apply({ author: "app", update: { strict: { k: 0 }, lenient: { k: 0 } } });
  const before = snapshot(store);

  const e = expectCode(
    () => store.applyBatch([{ author: "alice", update: { strict: { k: 1 } } }, { author: "bob", update: { strict: { k: 2 } } }]),
    "CONCURRENT_WRITE",
  );
  assert.match(e.message, /alice/);
  assert.match(e.message, /bob/);
  assert.deepEqual([...e.details.authors].sort(), ["alice", "bob"]);
  assert.equal(e.details.channel, "strict");
  assert.equal(snapshot(store), before);

  const r = store.applyBatch([{ author: "alice", update: { lenient: { k: 1, x: "a" } } }, { author: "bob", update: { lenient: { k: 2, y: "b" } } }]);
  assert.equal(r.version, 3);
  assert.deepEqual(store.get("lenient"), { k: 2, x: "a", y: "b" });
  assert.deepEqual(store.get("strict"), { k: 0 });
});

test("replace channel: two writes in one batch → CONCURRENT_WRITE naming both authors, nothing changed", () => {
  const store = new StateStore({ runId: "run-replace" });
  store.registerChannel({ name: "mode", reducer: "replace", type: "string" });
  store.apply({ author: "app", update: { todos: [{ content: "first", status: "pending" }], mode: "plan", last_error: null } });
  const before = snapshot(store);
  const v = store.version;

  for (const [channel, a, b] of [
    ["todos", [{ content: "from alice", status: "pending" }], [{ content: "from bob", status: "in_progress" }]],
    ["mode", "act", "review"],
    ["last_error", "boom from alice", "boom from bob"],
  ]) {
    const e = expectCode(
      () => store.applyBatch([{ author: "alice", update: { [channel]: a } }, { author: "bob", update: { [channel]: b } }]),
      "CONCURRENT_WRITE",
      channel,
    );
    assert.match(e.message, /alice/, channel);
    assert.match(e.message, /bob/, channel);
    assert.deepEqual([...e.details.authors].sort(), ["alice", "bob"], channel);
    assert.equal(e.details.channel, channel);
    assert.equal(store.version, v);
    assert.equal(snapshot(store), before, `${channel}: state changed by a failed batch`);
  }
  assert.deepEqual(store.get("todos"), [{ content: "first", status: "pending" }]);
  assert.equal(store.get("mode"), "plan");

  // Different replace channels in one batch, and one channel in consecutive commands, are fine.
  const r = store.applyBatch([{ author: "alice", update: { mode: "act" } }, { author: "bob", update: { todos: [{ content: "second", status: "in_progress" }] } }]);
  assert.equal(r.version, v + 2);
  store.apply({ author: "bob", update: { mode: "review" } });
  assert.equal(store.get("mode"), "review");
  assert.deepEqual(store.get("todos"), [{ content: "second", status: "in_progress" }]);
});

test("files: different paths in one batch are both kept; the same path twice conflicts; null deletes", () => {
  const store = new StateStore({ runId: "run-files" });
  const r = store.applyBatch([
    { author: "writer-1", update: { files: { "/src/a.txt": "alpha" } } },
    { author: "writer-2", update: { files: { "/src/b.txt": "beta" } } },
  ]);
  assert.equal(r.version, 2);
  assert.deepEqual(store.get("files"), { "/src/a.txt": "alpha", "/src/b.txt": "beta" });
  const before = snapshot(store);

  const e = expectCode(
    () =>
      store.applyBatch([
        { author: "writer-1", update: { files: { "/src/a.txt": "alpha 2" } } },
        { author: "writer-2", update: { files: { "/src/c.txt": "gamma", "/src/a.txt": "alpha 3" } } },
      ]),
    "CONCURRENT_WRITE",
  );
  assert.match(e.message, /writer-1/);
  assert.match(e.message, /writer-2/);
  assert.deepEqual([...e.details.authors].sort(), ["writer-1", "writer-2"]);
  assert.equal(e.details.channel, "files");
  assert.equal(snapshot(store), before);
  assert.deepEqual(store.get("files"), { "/src/a.txt": "alpha", "/src/b.txt": "beta" });

  // Sequential writes to one path: the later wins; null deletes the path.
  store.apply({ author: "writer-1", update: { files: { "/src/a.txt": "alpha 2" } } });
  store.apply({ author: "writer-2", update: { files: { "/src/b.txt": null } } });
  assert.deepEqual(store.get("files"), { "/src/a.txt": "alpha 2" });
});

test("message ids are assigned at intake, returned in `ids`, deterministic, and usable by replace/remove", () => {
  const commands = [
    { author: "user", update: { messages: [{ role: "user", content: "hello" }] } },
    { author: "model", update: { messages: [{ type: "ai", content: "hi there" }, { type: "human", content: "again" }, { type: "ai", content: "with an id", id: "given-1" }] } },
    { author: "user", update: { messages: { role: "user", content: "a single item, not an array" } } },
  ];
  const run = () => {
    const store = new StateStore({ runId: "run-ids" });
    startRun(store);
    const results = commands.map((c) => store.apply(c));
    return { store, results };
  };
  const { store, results } = run();
  const [r1, r2, r3] = results;
  assert.equal(r1.ids.length, 1);
  assert.equal(r2.ids.length, 3);
  assert.equal(r3.ids.length, 1);
  const all = [...r1.ids, ...r2.ids, ...r3.ids];
  for (const id of all) assert.ok(typeof id === "string" && id.length > 0, `bad id ${JSON.stringify(id)}`);
  assert.equal(new Set(all).size, 5, "ids are distinct");
  assert.equal(r2.ids[2], "given-1", "a given id is kept");

  const messages = store.get("messages");
  assert.deepEqual(
    messages.map((m) => [m.id, m.role, m.content]),
    [
      [r1.ids[0], "user", "hello"],
      [r2.ids[0], "assistant", "hi there"],
      [r2.ids[1], "user", "again"],
      ["given-1", "assistant", "with an id"],
      [r3.ids[0], "user", "a single item, not an array"],
    ],
  );
  assert.deepEqual(store.messages(), messages, "messages() without a format is canonical");
  assert.deepEqual(store.messages("langchain").map((m) => [m.type, m.id]), messages.map((m) => [m.role === "user" ? "human" : "ai", m.id]));

  // Deterministic: the same commands on a new store with the same runId give the same ids.
  const again = run();
  assert.deepEqual(again.results.map((r) => r.ids), results.map((r) => r.ids));
  assert.deepEqual(again.store.get("messages"), messages);

  // The generated id is the message's identity: replace and remove use it.
  const v = store.version;
  const r4 = store.apply({ author: "user", update: { messages: [{ replace: { role: "user", content: "hello (edited)", id: r1.ids[0] } }] } });
  assert.deepEqual(r4, { version: v + 1, ids: [r1.ids[0]] });
  store.apply({ author: "user", update: { messages: [{ remove: r2.ids[1] }] } });
  assert.deepEqual(
    store.get("messages").map((m) => [m.id, m.content]),
    [
      [r1.ids[0], "hello (edited)"],
      [r2.ids[0], "hi there"],
      ["given-1", "with an id"],
      [r3.ids[0], "a single item, not an array"],
    ],
  );
});

test("one update may mix message formats: a plain {role, content} message next to LangChain dicts", () => {
  // "a message in any format" per op; LangGraph's own reducer coerces {role, content} next to
  // {type, content} message-likes in one update.
  const store = new StateStore({ runId: "run-mixed" });
  startRun(store);
  const r = store.apply({
    author: "model",
    update: { messages: [{ role: "assistant", content: "hi there" }, { type: "human", content: "again" }, { role: "user", content: "plain user" }, { type: "ai", content: "with an id", id: "given-1" }] },
  });
  assert.equal(r.ids.length, 4);
  assert.deepEqual(
    store.get("messages").map((m) => [m.role, m.content]),
    [["assistant", "hi there"], ["user", "again"], ["user", "plain user"], ["assistant", "with an id"]],
  );
});

test("messages: add_messages semantics — same id replaces in place, remove then re-add in one update replaces in place, removeAll", () => {
  const store = new StateStore({ runId: "run-add-messages" });
  startRun(store);
  store.apply({ author: "app", update: { messages: [{ type: "human", content: "A", id: "a" }, { type: "ai", content: "B", id: "b" }, { type: "human", content: "C", id: "c" }] } });
  const rows = () => store.get("messages").map((m) => [m.id, m.role, m.content]);

  store.apply({ author: "app", update: { messages: [{ type: "ai", content: "B2", id: "b" }] } });
  assert.deepEqual(rows(), [["a", "user", "A"], ["b", "assistant", "B2"], ["c", "user", "C"]]);

  store.apply({ author: "app", update: { messages: [{ remove: "b" }, { type: "human", content: "B3", id: "b" }] } });
  assert.deepEqual(rows(), [["a", "user", "A"], ["b", "user", "B3"], ["c", "user", "C"]], "remove then re-add: in place");

  store.apply({ author: "app", update: { messages: [{ type: "ai", content: "D", id: "d" }, { type: "remove", id: "a" }] } });
  assert.deepEqual(rows(), [["b", "user", "B3"], ["c", "user", "C"], ["d", "assistant", "D"]], "LangChain {type: remove, id}");

  store.apply({ author: "app", update: { messages: [{ type: "human", content: "gone", id: "e" }, { removeAll: true }, { type: "human", content: "F", id: "f" }] } });
  assert.deepEqual(rows(), [["f", "user", "F"]], "removeAll clears everything before it in the update");

  store.apply({ author: "app", update: { messages: [{ type: "ai", content: "G", id: "g" }] } });
  store.apply({ author: "app", update: { messages: [{ type: "remove", id: "__remove_all__" }, { type: "ai", content: "H", id: "h" }] } });
  assert.deepEqual(rows(), [["h", "assistant", "H"]], "LangChain REMOVE_ALL_MESSAGES");

  const r = store.apply({ author: "app", update: { messages: [{ replace: { type: "ai", content: "H2", id: "h" } }] } });
  assert.deepEqual(r.ids, ["h"]);
  assert.deepEqual(rows(), [["h", "assistant", "H2"]], "{replace} never appends");
});

test("{replace} or {remove} of an unknown id → UNKNOWN_MESSAGE_ID, nothing changed", () => {
  const store = new StateStore({ runId: "run-unknown-id" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "keep me", id: "k1" }] } });
  const before = snapshot(store);
  const cases = [
    [{ replace: { role: "user", content: "nope", id: "missing" } }],
    [{ remove: "missing" }],
    [{ type: "remove", id: "missing" }],
    // an append before the bad op must not survive either
    [{ role: "user", content: "appended first", id: "new-1" }, { replace: { role: "assistant", content: "x", id: "missing" } }],
  ];
  for (const ops of cases) {
    expectCode(() => store.apply({ author: "user", update: { messages: ops } }), "UNKNOWN_MESSAGE_ID", JSON.stringify(ops));
    assert.equal(snapshot(store), before, JSON.stringify(ops));
  }
  assert.deepEqual(store.get("messages").map((m) => [m.id, m.content]), [["k1", "keep me"]]);
});

test("VERSION_CONFLICT: two writers with the same expectedVersion, only the first is applied", () => {
  const store = new StateStore({ runId: "run-occ" });
  startRun(store);
  const v = store.version;
  const first = store.apply({ author: "writer-a", expectedVersion: v, update: { facts: { owner: "a" }, messages: [{ role: "user", content: "from a" }] } });
  assert.equal(first.version, v + 1);
  const before = snapshot(store);
  const e = expectCode(
    () => store.apply({ author: "writer-b", expectedVersion: v, update: { facts: { owner: "b", extra: true }, messages: [{ role: "user", content: "from b" }] } }),
    "VERSION_CONFLICT",
  );
  assert.ok(e.message.length > 0);
  assert.equal(store.version, v + 1);
  assert.deepEqual(store.get("facts"), { owner: "a" });
  assert.deepEqual(store.get("messages").map((m) => m.content), ["from a"]);
  assert.equal(snapshot(store), before);

  // The loser re-reads and retries with the current version.
  const retry = store.apply({ author: "writer-b", expectedVersion: store.version, update: { facts: { owner: "b" } } });
  assert.equal(retry.version, v + 2);
  assert.deepEqual(store.get("facts"), { owner: "b" });

  // applyBatch: a stale expectedVersion anywhere in the batch fails the whole batch.
  const before2 = snapshot(store);
  expectCode(
    () => store.applyBatch([{ author: "x", update: { facts: { x: 1 } } }, { author: "y", expectedVersion: v, update: { facts: { y: 1 } } }]),
    "VERSION_CONFLICT",
  );
  assert.equal(snapshot(store), before2);
});

test("a completed run refuses a tool result (RUN_ENDED) and cannot be restarted", () => {
  const store = new StateStore({ runId: "run-ended" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "what's the weather?" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", tool_calls: [call("w1", "get_weather", { city: "Paris" })] }] } });
  store.apply({ author: "app", update: { run: { status: "completed" } } });
  assert.equal(store.get("run").status, "completed");
  const before = snapshot(store);

  expectCode(() => store.apply({ author: "tool:w1", update: { messages: [{ role: "tool", tool_call_id: "w1", content: "sunny" }] } }), "RUN_ENDED", "tool result");
  assert.equal(snapshot(store), before);
  expectCode(() => store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "late answer" }] } }), "RUN_ENDED", "assistant message");
  assert.equal(snapshot(store), before);
  expectCode(() => store.apply({ author: "app", update: { run: { status: "running" } } }), "INVALID_TRANSITION", "completed → running");
  assert.equal(snapshot(store), before);
  assert.equal(store.get("messages").length, 2);
});

test("run status machine: allowed and refused transitions", () => {
  const store = new StateStore({ runId: "run-machine" });
  assert.deepEqual(store.get("run"), { status: "created" });
  const set = (status) => store.apply({ author: "app", update: { run: { status } } });
  for (const bad of ["completed", "paused", "waiting_tool"]) {
    expectCode(() => set(bad), "INVALID_TRANSITION", `created → ${bad}`);
  }
  assert.equal(store.version, 0);
  for (const ok of ["running", "waiting_tool", "running", "paused", "running", "failed"]) {
    set(ok);
    assert.equal(store.get("run").status, ok);
  }
  for (const bad of ["running", "cancelled", "completed"]) {
    expectCode(() => set(bad), "INVALID_TRANSITION", `failed → ${bad}`);
  }
  assert.equal(store.version, 6);
  const other = new StateStore({ runId: "run-machine-2" });
  other.apply({ author: "app", update: { run: { status: "running" } } });
  other.apply({ author: "app", update: { run: { status: "paused" } } });
  expectCode(() => other.apply({ author: "app", update: { run: { status: "completed" } } }), "INVALID_TRANSITION", "paused → completed");
  other.apply({ author: "app", update: { run: { status: "cancelled" } } });
  assert.equal(other.get("run").status, "cancelled");
});

test("waiting_approval → running is refused while an approval is pending, allowed once it is decided", () => {
  const store = new StateStore({ runId: "run-approval" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "delete the temp files" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", tool_calls: [call("d1", "delete_files", { glob: "/tmp/*" })] }] } });
  store.apply({ author: "guard", update: { approvals: { a1: { tool_call_id: "d1", status: "pending" } } } });

  // No result for a call whose approval is pending.
  let before = snapshot(store);
  expectCode(() => store.apply({ author: "tool:d1", update: { messages: [{ role: "tool", tool_call_id: "d1", content: "deleted" }] } }), "APPROVAL_PENDING", "tool result while pending");
  assert.equal(snapshot(store), before);

  store.apply({ author: "app", update: { run: { status: "waiting_approval" } } });
  before = snapshot(store);
  const e = expectCode(() => store.apply({ author: "app", update: { run: { status: "running" } } }), ["APPROVAL_PENDING", "INVALID_TRANSITION"], "resume while pending");
  assert.ok(e.message.length > 0);
  assert.equal(snapshot(store), before);
  assert.equal(store.get("run").status, "waiting_approval");

  store.apply({ author: "human", update: { approvals: { a1: { status: "approved" } } } });
  assert.equal(store.get("approvals").a1.status, "approved");
  assert.equal(store.get("approvals").a1.tool_call_id, "d1", "merged by approval id: earlier fields kept");
  store.apply({ author: "app", update: { run: { status: "running" } } });
  assert.equal(store.get("run").status, "running");
  store.apply({ author: "tool:d1", update: { messages: [{ role: "tool", tool_call_id: "d1", content: "deleted 3 files" }] } });
  assert.deepEqual(store.get("messages").map((m) => m.role), ["user", "assistant", "tool"]);

  // A decision is final.
  before = snapshot(store);
  expectCode(() => store.apply({ author: "human", update: { approvals: { a1: { status: "pending" } } } }), "INVALID_TRANSITION", "approved → pending");
  expectCode(() => store.apply({ author: "human", update: { approvals: { a1: { status: "rejected" } } } }), "INVALID_TRANSITION", "approved → rejected");
  assert.equal(snapshot(store), before);
});

test("tool results: unknown call → UNKNOWN_TOOL_CALL, second result → ALREADY_ANSWERED", () => {
  const store = new StateStore({ runId: "run-tool-results" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "go" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", tool_calls: [call("t1", "ls")] }] } });
  let before = snapshot(store);
  expectCode(() => store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "t9", content: "?" }] } }), "UNKNOWN_TOOL_CALL");
  assert.equal(snapshot(store), before);
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "t1", content: "a.txt b.txt" }] } });
  before = snapshot(store);
  expectCode(() => store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "t1", content: "again" }] } }), "ALREADY_ANSWERED");
  // two results for one call in one batch
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", tool_calls: [call("t2", "ls")] }] } });
  before = snapshot(store);
  expectCode(
    () =>
      store.applyBatch([
        { author: "tool-a", update: { messages: [{ role: "tool", tool_call_id: "t2", content: "one" }] } },
        { author: "tool-b", update: { messages: [{ role: "tool", tool_call_id: "t2", content: "two" }] } },
      ]),
    ["ALREADY_ANSWERED", "CONCURRENT_WRITE"],
    "two results in one batch",
  );
  assert.equal(snapshot(store), before);
  assert.deepEqual(store.get("messages").filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]), [["t1", "a.txt b.txt"]]);
});

test("private channel: the value never appears in systemView, toJSON, messages, nor in errors of failed writes", () => {
  const SECRET = "s3cr3t-Ow1-7f1c-value";
  const store = new StateStore({ runId: "run-private" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "plan the trip" }] } });
  const key = store.registerChannel({ name: "scratchpad", reducer: "replace", visibility: "private", owner: "planner", type: "string" });
  assert.equal(typeof key, "string");
  assert.ok(key.length > 0);
  store.apply({ author: "planner", update: { scratchpad: SECRET } });
  assert.deepEqual(store.private(key), { scratchpad: SECRET });

  // A second private channel of the same owner (with its key); another owner gets another key.
  const key2 = store.registerChannel({ name: "notes", reducer: "append", visibility: "private", owner: "planner" }, key);
  assert.equal(key2, key);
  store.apply({ author: "planner", update: { notes: [`note about ${SECRET}`] } });
  const criticKey = store.registerChannel({ name: "critique", reducer: "replace", visibility: "private", owner: "critic" });
  assert.notEqual(criticKey, key);
  store.apply({ author: "critic", update: { critique: "critic-only-thought" } });
  assert.deepEqual(store.private(key), { scratchpad: SECRET, notes: [`note about ${SECRET}`] });
  assert.deepEqual(store.private(criticKey), { critique: "critic-only-thought" });

  const leaks = (text, ...secrets) => secrets.some((s) => text.includes(s));
  const checkViews = () => {
    const view = store.systemView();
    assert.ok(!("scratchpad" in view) && !("notes" in view) && !("critique" in view), `private channel in systemView: ${Object.keys(view)}`);
    for (const ch of DEFAULT_CHANNELS) assert.ok(ch in view, `systemView lacks ${ch}`);
    assert.ok(!leaks(JSON.stringify(view), SECRET, "critic-only-thought"), "secret in systemView()");
    assert.ok(!leaks(JSON.stringify(store.toJSON()), SECRET, "critic-only-thought"), "secret in toJSON()");
    assert.ok(!leaks(JSON.stringify(store), SECRET, "critic-only-thought"), "secret in JSON.stringify(store)");
    for (const f of [undefined, "langchain", "openai", "anthropic", "ai-sdk", "gemini", "responses", "openai-agents"]) {
      assert.ok(!leaks(JSON.stringify(store.messages(f)), SECRET), `secret in messages(${f})`);
    }
  };
  checkViews();

  // Reading it by name is refused without revealing it.
  const ge = expectCode(() => store.get("scratchpad"), "PRIVATE_CHANNEL", "get(private)");
  assert.ok(!leaks(ge.message + JSON.stringify(ge.details), SECRET));
  // A wrong key does not reveal it (an error, or nothing of planner's).
  try {
    const other = store.private("not-a-key");
    assert.ok(!leaks(JSON.stringify(other), SECRET), "private(wrong key) leaked");
  } catch (e) {
    assert.ok(e instanceof Error && typeof e.code === "string");
    assert.ok(!leaks(e.message + JSON.stringify(e.details), SECRET));
  }

  // Failed writes: neither the stored value nor the attempted one appears in the error.
  const before = snapshot(store);
  const failing = [
    ["non-owner write", ["NOT_OWNER", "NOT_AUTHORIZED", "PRIVATE_CHANNEL"], () => store.apply({ author: "coder", update: { scratchpad: "attempt-A-9d2e" } }), "attempt-A-9d2e"],
    ["wrong type", "INVALID_UPDATE", () => store.apply({ author: "planner", update: { scratchpad: { nested: "attempt-B-41aa" } } }), "attempt-B-41aa"],
    [
      "two writes in one batch",
      "CONCURRENT_WRITE",
      () => store.applyBatch([{ author: "planner", update: { scratchpad: "attempt-C-1111" } }, { author: "planner", update: { scratchpad: "attempt-D-2222" } }]),
      "attempt-C-1111",
      "attempt-D-2222",
    ],
    ["stale version", "VERSION_CONFLICT", () => store.apply({ author: "planner", expectedVersion: 0, update: { scratchpad: "attempt-E-3333" } }), "attempt-E-3333"],
    ["other channel fails", "UNKNOWN_MESSAGE_ID", () => store.apply({ author: "planner", update: { scratchpad: "attempt-F-4444", messages: [{ remove: "nope" }] } }), "attempt-F-4444"],
    ["unknown channel next to it", "UNKNOWN_CHANNEL", () => store.apply({ author: "planner", update: { scratchpad: "attempt-G-5555", nope: 1 } }), "attempt-G-5555"],
    ["batch, second command fails", "UNKNOWN_CHANNEL", () => store.applyBatch([{ author: "planner", update: { scratchpad: "attempt-H-6666" } }, { author: "x", update: { nope: 1 } }]), "attempt-H-6666"],
  ];
  for (const [what, code, fn, ...attempted] of failing) {
    const e = expectCode(fn, code, what);
    const text = `${e.message}\n${JSON.stringify(e.details)}\n${e.stack ?? ""}`;
    assert.ok(!leaks(text, SECRET, "critic-only-thought", ...attempted), `${what}: the error reveals a private value: ${text}`);
    assert.equal(snapshot(store), before, `${what}: state changed`);
    assert.deepEqual(store.private(key), { scratchpad: SECRET, notes: [`note about ${SECRET}`] }, what);
  }
  checkViews();
});

test("a failed command leaves version, systemView and events identical; the store stays usable", () => {
  const store = new StateStore({ runId: "run-atomic" });
  store.registerChannel({ name: "count", reducer: "counter", type: "integer" });
  store.registerChannel({ name: "review", reducer: "append", writers: ["reviewer"] });
  startRun(store);
  store.apply({
    author: "setup",
    update: {
      messages: [{ role: "user", content: "start", id: "u1" }],
      facts: { city: "Paris" },
      files: { "/a.md": "# A" },
      budget: { limits: { max_tokens: 100 } },
      count: 1,
    },
  });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", id: "m1", tool_calls: [call("k1", "search")] }], budget: { used: { tokens: 60 } } } });
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "k1", content: "found" }] } });
  const v = store.version;
  const before = snapshot(store);
  const openaiBefore = JSON.stringify(store.messages("openai"));

  const failures = [
    ["unknown channel", "UNKNOWN_CHANNEL", () => store.apply({ author: "x", update: { facts: { y: 2 }, nope: 1 } }), (e) => assert.equal(e.details.channel, "nope")],
    ["messages not an op", ["INVALID_UPDATE", "INVALID_MESSAGE"], () => store.apply({ author: "x", update: { messages: 42 } })],
    ["unknown id after a good append", "UNKNOWN_MESSAGE_ID", () => store.apply({ author: "x", update: { facts: { y: 2 }, messages: [{ role: "user", content: "ok" }, { remove: "nope" }] } })],
    ["integer channel gets 1.5", "INVALID_UPDATE", () => store.apply({ author: "x", update: { count: 1.5 } }), (e) => assert.equal(e.details.channel, "count")],
    ["writer not allowed", "NOT_AUTHORIZED", () => store.apply({ author: "intruder", update: { review: ["lgtm"] } }), (e) => assert.equal(e.details.channel, "review")],
    ["invalid transition", "INVALID_TRANSITION", () => store.apply({ author: "app", update: { run: { status: "created" } } })],
    ["budget exceeded", "BUDGET_EXCEEDED", () => store.apply({ author: "model", update: { budget: { used: { tokens: 50 } }, facts: { y: 2 } } })],
    ["unknown tool call", "UNKNOWN_TOOL_CALL", () => store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "zz", content: "?" }] } })],
    ["already answered", "ALREADY_ANSWERED", () => store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "k1", content: "again" }] } })],
    ["stale expectedVersion", "VERSION_CONFLICT", () => store.apply({ author: "x", expectedVersion: v - 1, update: { facts: { y: 2 } } })],
    [
      "batch: third command fails",
      "UNKNOWN_CHANNEL",
      () =>
        store.applyBatch([
          { author: "a", update: { facts: { y: 2 }, messages: [{ role: "user", content: "one" }] } },
          { author: "b", update: { files: { "/b.md": "# B" }, count: 5 } },
          { author: "c", update: { nope: true } },
        ]),
      (e) => assert.equal(e.details.command, 2),
    ],
    [
      "batch: conflict between first and third command",
      "CONCURRENT_WRITE",
      () =>
        store.applyBatch([
          { author: "a", update: { files: { "/a.md": "# A2" } } },
          { author: "b", update: { messages: [{ role: "user", content: "two" }] } },
          { author: "c", update: { files: { "/a.md": "# A3" } } },
        ]),
      (e) => assert.deepEqual([...e.details.authors].sort(), ["a", "c"]),
    ],
  ];
  for (const [what, code, fn, extra] of failures) {
    const e = expectCode(fn, code, what);
    assert.ok(typeof e.message === "string" && e.message.length > 0, what);
    extra?.(e);
    assert.equal(store.version, v, `${what}: version changed`);
    assert.equal(snapshot(store), before, `${what}: state or events changed`);
    assert.equal(JSON.stringify(store.messages("openai")), openaiBefore, what);
  }
  // Values are exactly what they were.
  assert.deepEqual(store.get("facts"), { city: "Paris" });
  assert.deepEqual(store.get("files"), { "/a.md": "# A" });
  assert.equal(store.get("count"), 1);
  assert.equal(store.get("budget").used.tokens, 60);
  assert.equal(store.get("messages").length, 3);

  // Still usable: the next good command is applied with the next version.
  const r = store.applyBatch([
    { author: "a", expectedVersion: v, update: { facts: { y: 2 }, messages: [{ role: "user", content: "one" }] } },
    { author: "reviewer", update: { review: ["lgtm"], count: 5, budget: { used: { tokens: 40 } } } },
  ]);
  assert.equal(r.version, v + 2);
  assert.equal(store.version, v + 2);
  assert.deepEqual(store.get("facts"), { city: "Paris", y: 2 });
  assert.deepEqual(store.get("review"), ["lgtm"]);
  assert.equal(store.get("count"), 6);
  assert.equal(store.get("budget").used.tokens, 100, "reaching the limit exactly is allowed");
  assert.deepEqual(store.get("messages").map((m) => m.content).at(-1), "one");
  assert.equal(r.ids[0].length, 1);
  assert.equal(r.ids[1].length, 0);
});

test("reducers of user channels: append, union, counter, merge (null deletes), replace; types checked", () => {
  const store = new StateStore({
    runId: "run-reducers",
    channels: [
      { name: "log", reducer: "append" },
      { name: "tags", reducer: "union", type: "string" },
      { name: "steps", reducer: "counter", type: "integer" },
      { name: "kv", reducer: "merge", type: "number" },
      { name: "phase", reducer: "replace", type: "string" },
    ],
  });
  assert.deepEqual(store.get("log"), []);
  assert.deepEqual(store.get("tags"), []);
  assert.equal(store.get("steps"), 0);
  assert.deepEqual(store.get("kv"), {});

  store.apply({ author: "a", update: { log: ["x"], tags: ["red", "blue"], steps: 2, kv: { a: 1, b: 2 }, phase: "plan" } });
  store.apply({ author: "b", update: { log: ["y", "z"], tags: ["blue", "green"], steps: 3, kv: { b: null, c: 3 }, phase: "act" } });
  assert.deepEqual(store.get("log"), ["x", "y", "z"]);
  assert.deepEqual(store.get("tags"), ["red", "blue", "green"]);
  assert.equal(store.get("steps"), 5);
  assert.deepEqual(store.get("kv"), { a: 1, c: 3 });
  assert.equal(store.get("phase"), "act");

  // Commutative reducers do not conflict inside a batch.
  store.applyBatch([{ author: "a", update: { log: ["p"], tags: ["red"], steps: 1 } }, { author: "b", update: { log: ["q"], tags: ["black"], steps: 1 } }]);
  assert.deepEqual(store.get("log"), ["x", "y", "z", "p", "q"]);
  assert.deepEqual(store.get("tags"), ["red", "blue", "green", "black"]);
  assert.equal(store.get("steps"), 7);

  const before = snapshot(store);
  for (const [update, what] of [
    [{ tags: [1] }, "union of strings gets a number"],
    [{ steps: 0.5 }, "integer counter gets 0.5"],
    [{ kv: { d: "four" } }, "merge of numbers gets a string"],
    [{ phase: 3 }, "string replace gets a number"],
  ]) {
    const e = expectCode(() => store.apply({ author: "a", update }), "INVALID_UPDATE", what);
    assert.equal(e.details.channel, Object.keys(update)[0], what);
    assert.equal(snapshot(store), before, what);
  }
  expectCode(() => store.get("nope"), "UNKNOWN_CHANNEL", "get(unknown)");
});

test("budget: used counters add up; going over a limit is BUDGET_EXCEEDED", () => {
  const store = new StateStore({ runId: "run-budget" });
  store.apply({ author: "app", update: { budget: { limits: { max_tokens: 100, max_tool_calls: 2 } } } });
  store.apply({ author: "model", update: { budget: { used: { tokens: 10 } } } });
  store.apply({ author: "model", update: { budget: { used: { tokens: 30, tool_calls: 2 } } } });
  const budget = store.get("budget");
  assert.equal(budget.used.tokens, 40);
  assert.equal(budget.used.tool_calls, 2);
  assert.equal(budget.limits.max_tokens, 100);
  const before = snapshot(store);
  expectCode(() => store.apply({ author: "model", update: { budget: { used: { tokens: 61 } } } }), "BUDGET_EXCEEDED", "tokens");
  expectCode(() => store.apply({ author: "model", update: { budget: { used: { tool_calls: 1 } } } }), "BUDGET_EXCEEDED", "tool calls");
  assert.equal(snapshot(store), before);
  store.apply({ author: "model", update: { budget: { used: { tokens: 60 } } } });
  assert.equal(store.get("budget").used.tokens, 100);
});

test("toJSON, systemView and events: shape, versions, authors, correlation ids, clock", () => {
  let now = 1_700_000_000_000;
  const store = new StateStore({ runId: "run-json", clock: () => (now += 1000) });
  assert.equal(store.version, 0);
  const view0 = store.systemView();
  assert.deepEqual(Object.keys(view0).sort(), [...DEFAULT_CHANNELS].sort());
  assert.deepEqual(view0.messages, []);
  assert.deepEqual(view0.run, { status: "created" });
  assert.deepEqual(store.toJSON(), { runId: "run-json", version: 0, channels: view0 });

  store.apply({ author: "app", update: { run: { status: "running" } }, correlationId: "turn-1" });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }], facts: { lang: "en" } }, correlationId: "turn-1", causationId: "evt-0" });
  assert.equal(store.version, 2);
  const json = store.toJSON();
  assert.equal(json.runId, "run-json");
  assert.equal(json.version, 2);
  assert.deepEqual(json.channels, store.systemView());
  assert.deepEqual(JSON.parse(JSON.stringify(store)), JSON.parse(JSON.stringify(json)));
  assert.deepEqual(json.channels.facts, { lang: "en" });

  const events = store.events();
  assert.ok(events.length >= 2, `expected at least one event per command, got ${events.length}`);
  for (let i = 1; i < events.length; i++) assert.ok(events[i].sequence > events[i - 1].sequence, "sequence increases");
  assert.ok(events.some((e) => e.author === "app" && e.correlation_id === "turn-1"), "the app's command is in the log");
  const last = events.at(-1);
  assert.equal(last.author, "user");
  assert.equal(last.correlation_id, "turn-1");
  assert.equal(last.causation_id, "evt-0");
  assert.equal(typeof last.type, "string");
  assert.ok(last.payload !== undefined);
  const created = events.map((e) => (typeof e.created_at === "number" ? e.created_at : Date.parse(e.created_at)));
  for (const t of created) assert.ok(t > 1_700_000_000_000 && t <= now, `created_at ${t} does not come from the clock`);
  store.free();
});

test("messages(format) encodes the stored conversation for each provider", () => {
  const store = new StateStore({ runId: "run-formats" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "weather in Paris?", id: "u1" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", id: "a1", tool_calls: [call("w1", "get_weather", { city: "Paris" })] }] } });
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "w1", content: "sunny", id: "t1" }] } });
  store.apply({ author: "model", update: { messages: [{ type: "ai", content: "It is sunny.", id: "a2" }] } });

  const openai = store.messages("openai");
  assert.deepEqual(openai.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  assert.equal(openai[1].tool_calls[0].id, "w1");
  assert.equal(openai[1].tool_calls[0].function.name, "get_weather");
  assert.deepEqual(JSON.parse(openai[1].tool_calls[0].function.arguments), { city: "Paris" });
  assert.equal(openai[2].tool_call_id, "w1");
  assert.equal(openai[3].content, "It is sunny.");

  const lc = store.messages("langchain");
  assert.deepEqual(lc.map((m) => [m.type, m.id]), [["human", "u1"], ["ai", "a1"], ["tool", "t1"], ["ai", "a2"]]);
  assert.deepEqual(lc[1].tool_calls.map((c) => [c.id, c.name, c.args]), [["w1", "get_weather", { city: "Paris" }]]);

  const anthropic = store.messages("anthropic");
  const blocks = anthropic.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
  assert.ok(blocks.some((b) => b.type === "tool_use" && b.id === "w1" && b.name === "get_weather"));
  assert.ok(blocks.some((b) => b.type === "tool_result" && b.tool_use_id === "w1"));
  for (const f of ["ai-sdk", "gemini"]) assert.ok(store.messages(f).length >= 3, f);
  expectCode(() => store.messages("xml"), "INVALID_OPTION", "unknown format");
});

test("repair(): a dangling call gets its result right after the call, as one command", () => {
  const store = new StateStore({ runId: "run-repair" });
  startRun(store);
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "look at both", id: "u1" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "", id: "a1", tool_calls: [call("c1", "read_file"), call("c2", "grep")] }] } });
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c2", content: "match", id: "t2" }] } });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "never mind", id: "u2" }] } });
  const v = store.version;
  const { version, report } = store.repair();
  assert.equal(version, v + 1);
  assert.equal(store.version, v + 1);
  assert.deepEqual(report.map((f) => [f.kind, f.toolCallId]), [["missing_result", "c1"]]);
  const messages = store.get("messages");
  assert.deepEqual(
    messages.map((m) => [m.role, m.tool_call_id ?? m.id]),
    [["user", "u1"], ["assistant", "a1"], ["tool", "c1"], ["tool", "c2"], ["user", "u2"]],
  );
  assert.ok(typeof messages[2].id === "string" && messages[2].id.length > 0, "the inserted result has an id");
  assert.equal(messages[3].id, "t2", "the real result keeps its id");
  assert.deepEqual(store.repair().report, [], "nothing left to repair");
});
