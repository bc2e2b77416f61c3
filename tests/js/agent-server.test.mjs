// Checks, against a real Agent Protocol server (the LangGraph in-memory server serving the graphs of
// tests/agent-server/), the server semantics that the async task ledger relies on: run and thread
// statuses for success, error, waiting on interrupt() and cancel, resume, metadata search, and the
// multitask strategies "interrupt" and "enqueue". Facts: shared/AGENT_PROTOCOL_SERVER.md.
// Run through scripts/agent-server.sh, which starts the server and sets STATEGATE_AGENT_SERVER_URL:
//   bash scripts/agent-server.sh run -- node --test tests/js/
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";

const BASE = process.env.STATEGATE_AGENT_SERVER_URL;
const NO_SERVER =
  "STATEGATE_AGENT_SERVER_URL is not set: these tests need a running Agent Protocol server. " +
  "Run them through `bash scripts/agent-server.sh run -- node --test tests/js/`.";

const TERMINAL = new Set(["success", "error", "interrupted", "timeout"]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One JSON call; asserts the HTTP status and returns the parsed body ("" when empty).
async function call(method, path, body, expectStatus = 200) {
  assert.ok(BASE, NO_SERVER);
  const response = await fetch(BASE + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const expected = Array.isArray(expectStatus) ? expectStatus : [expectStatus];
  assert.ok(expected.includes(response.status), `${method} ${path}: HTTP ${response.status}, wanted ${expected.join(" or ")}: ${text}`);
  return text === "" ? "" : JSON.parse(text);
}

// Polls `read` until `done(value)` holds; fails with the last value after `timeoutMs`.
async function waitFor(what, read, done, { timeoutMs = 10_000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
    await sleep(intervalMs);
  }
}

const userInput = (text) => ({ messages: [{ role: "user", content: text }] });
const createThread = (metadata = {}) => call("POST", "/threads", { metadata });
const getThread = (tid) => call("GET", `/threads/${tid}`);
const getState = (tid) => call("GET", `/threads/${tid}/state`);
const getRun = (tid, rid) => call("GET", `/threads/${tid}/runs/${rid}`);
async function createRun(tid, graph, text, extra = {}) {
  const run = await call("POST", `/threads/${tid}/runs`, { assistant_id: graph, input: userInput(text), ...extra });
  assert.equal(run.thread_id, tid);
  assert.match(run.status, /^(pending|running)$/);
  return run;
}
const runReaches = (tid, rid, wanted, options) =>
  waitFor(`run ${rid} status ${wanted}`, () => getRun(tid, rid), (run) => run.status === wanted, options);
async function runFinishes(tid, rid, options) {
  return waitFor(`run ${rid} to finish`, () => getRun(tid, rid), (run) => TERMINAL.has(run.status), options);
}
// Run and thread statuses are not updated together: after a cancel the run reads "interrupted"
// while the thread still reads "busy" for ~50 ms; after a normal end the thread can read
// idle/interrupted while the run still reads "running". So wait for the thread too.
const threadSettles = (tid, options) =>
  waitFor(`thread ${tid} to leave busy`, () => getThread(tid), (thread) => thread.status !== "busy", options);
const messagesOf = (state) => state.values.messages.map((m) => [m.type, m.content]);
const lastMessage = (state) => state.values.messages.at(-1);

test("STATEGATE_AGENT_SERVER_URL names a running server", async () => {
  assert.ok(BASE, NO_SERVER);
  assert.deepEqual((await call("GET", "/ok")).ok, true);
});

describe("Agent Protocol server semantics the ledger relies on", { concurrency: true }, () => {
  test("echo: run success, state ends with the ai reply, thread idle", { timeout: 20_000 }, async () => {
    const parent = randomUUID();
    const thread = await createThread({ parent_thread_id: parent, subagent_name: "echoer" });
    assert.equal(thread.status, "idle");
    assert.deepEqual(thread.metadata, { parent_thread_id: parent, subagent_name: "echoer" });

    const run = await createRun(thread.thread_id, "echo", "hi");
    assert.equal((await runFinishes(thread.thread_id, run.run_id)).status, "success");

    const state = await getState(thread.thread_id);
    assert.deepEqual(messagesOf(state), [["human", "hi"], ["ai", "echo: hi"]]);
    assert.equal(lastMessage(state).type, "ai");
    assert.equal(lastMessage(state).content, "echo: hi");
    assert.deepEqual(state.next, []);
    assert.deepEqual(state.interrupts, []);

    const after = await threadSettles(thread.thread_id);
    assert.equal(after.status, "idle");
    assert.deepEqual(after.interrupts, {});
    assert.equal(after.error, null);
    // The server adds graph_id and assistant_id to the thread's metadata; ours stays.
    assert.equal(after.metadata.parent_thread_id, parent);
    assert.equal(after.metadata.subagent_name, "echoer");
    assert.equal(after.metadata.graph_id, "echo");
  });

  test("threads/search by metadata parent_thread_id finds exactly that thread", { timeout: 20_000 }, async () => {
    const parent = randomUUID();
    const mine = await createThread({ parent_thread_id: parent, subagent_name: "searcher" });
    const other = await createThread({ parent_thread_id: randomUUID(), subagent_name: "searcher" });
    const run = await createRun(mine.thread_id, "echo", "hi");
    assert.equal((await runFinishes(mine.thread_id, run.run_id)).status, "success");
    await threadSettles(mine.thread_id);

    const found = await call("POST", "/threads/search", { metadata: { parent_thread_id: parent }, limit: 100 });
    assert.deepEqual(found.map((t) => t.thread_id), [mine.thread_id]);
    assert.equal(found[0].metadata.subagent_name, "searcher");
    assert.equal(found[0].status, "idle");

    const bySubagent = await call("POST", "/threads/search", { metadata: { parent_thread_id: parent, subagent_name: "searcher" } });
    assert.deepEqual(bySubagent.map((t) => t.thread_id), [mine.thread_id]);
    const none = await call("POST", "/threads/search", { metadata: { parent_thread_id: parent, subagent_name: "other" } });
    assert.deepEqual(none, []);
    assert.notEqual(other.thread_id, mine.thread_id);
  });

  test("fail: run error, thread error with the exception", { timeout: 20_000 }, async () => {
    const thread = await createThread({ parent_thread_id: randomUUID(), subagent_name: "failer" });
    const run = await createRun(thread.thread_id, "fail", "boom");
    assert.equal((await runFinishes(thread.thread_id, run.run_id)).status, "error");

    const after = await threadSettles(thread.thread_id);
    assert.equal(after.status, "error");
    assert.deepEqual(after.error, { error: "RuntimeError", message: "fail graph: boom" });
    assert.deepEqual(after.interrupts, {});
  });

  test("ask: run success, thread interrupted with interrupts; resume answers", { timeout: 20_000 }, async () => {
    const thread = await createThread({ parent_thread_id: randomUUID(), subagent_name: "asker" });
    const run = await createRun(thread.thread_id, "ask", "deploy");
    // Waiting on interrupt() ends the RUN in success; the THREAD shows the wait.
    assert.equal((await runFinishes(thread.thread_id, run.run_id)).status, "success");

    const waiting = await threadSettles(thread.thread_id);
    assert.equal(waiting.status, "interrupted");
    assert.equal(waiting.error, null);
    const pending = Object.values(waiting.interrupts).flat();
    assert.equal(pending.length, 1, JSON.stringify(waiting.interrupts));
    assert.deepEqual(pending[0].value, { question: "Approve: deploy?" });
    assert.equal(typeof pending[0].id, "string");
    const waitingState = await getState(thread.thread_id);
    assert.deepEqual(waitingState.next, ["ask"]);
    assert.deepEqual(waitingState.interrupts.map((i) => i.value), [{ question: "Approve: deploy?" }]);

    const resumed = await call("POST", `/threads/${thread.thread_id}/runs`, { assistant_id: "ask", command: { resume: "yes" } });
    assert.notEqual(resumed.run_id, run.run_id);
    assert.equal((await runFinishes(thread.thread_id, resumed.run_id)).status, "success");

    const state = await getState(thread.thread_id);
    assert.deepEqual(messagesOf(state), [["human", "deploy"], ["ai", "answer: yes"]]);
    assert.equal(lastMessage(state).content, "answer: yes");
    const after = await threadSettles(thread.thread_id);
    assert.equal(after.status, "idle");
    assert.deepEqual(after.interrupts, {});
  });

  test("slow cancelled: run interrupted, thread interrupted with empty interrupts", { timeout: 20_000 }, async () => {
    const thread = await createThread({ parent_thread_id: randomUUID(), subagent_name: "sleeper" });
    const run = await createRun(thread.thread_id, "slow", "sleep=30");
    await runReaches(thread.thread_id, run.run_id, "running");
    assert.equal((await getThread(thread.thread_id)).status, "busy");

    const started = Date.now();
    assert.equal(await call("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`, undefined, 202), "");
    const cancelled = await runFinishes(thread.thread_id, run.run_id, { timeoutMs: 5_000 });
    assert.equal(cancelled.status, "interrupted");
    assert.ok(Date.now() - started < 5_000);

    // Cancelled, not waiting: told apart from ask's wait by the empty interrupts.
    const after = await threadSettles(thread.thread_id);
    assert.equal(after.status, "interrupted");
    assert.deepEqual(after.interrupts, {});
    assert.equal(after.error?.error, "UserInterrupt");
    const state = await getState(thread.thread_id);
    assert.deepEqual(state.interrupts, []);
    assert.deepEqual(messagesOf(state), [["human", "sleep=30"]]);

    // A finished run cannot be cancelled again.
    await call("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`, undefined, 404);
  });

  test('multitask_strategy "interrupt": the running run is interrupted, the new one runs', { timeout: 20_000 }, async () => {
    const thread = await createThread({ parent_thread_id: randomUUID(), subagent_name: "interrupter" });
    const first = await createRun(thread.thread_id, "slow", "sleep=30");
    await runReaches(thread.thread_id, first.run_id, "running");

    const second = await createRun(thread.thread_id, "slow", "sleep=0.2 second", { multitask_strategy: "interrupt" });
    assert.equal(second.multitask_strategy, "interrupt");
    assert.equal((await runFinishes(thread.thread_id, first.run_id, { timeoutMs: 3_000 })).status, "interrupted");
    assert.equal((await runFinishes(thread.thread_id, second.run_id)).status, "success");

    const state = await getState(thread.thread_id);
    // The interrupted run's input stays in the history; only the second run replied.
    assert.deepEqual(messagesOf(state), [["human", "sleep=30"], ["human", "sleep=0.2 second"], ["ai", "slow done: sleep=0.2 second"]]);
    assert.equal((await threadSettles(thread.thread_id)).status, "idle");
  });

  test('multitask_strategy "enqueue": the new run stays pending while the first runs', { timeout: 20_000 }, async () => {
    const thread = await createThread({ parent_thread_id: randomUUID(), subagent_name: "queuer" });
    const first = await createRun(thread.thread_id, "slow", "sleep=1.5");
    await runReaches(thread.thread_id, first.run_id, "running");

    const second = await createRun(thread.thread_id, "echo", "queued", { multitask_strategy: "enqueue" });
    assert.equal(second.status, "pending");
    // Read the second run before the first: if the first is still running afterwards, the
    // second was pending while the first ran.
    let observed = 0;
    for (;;) {
      const secondNow = await getRun(thread.thread_id, second.run_id);
      const firstNow = await getRun(thread.thread_id, first.run_id);
      if (firstNow.status !== "running") {
        assert.equal(firstNow.status, "success");
        break;
      }
      assert.equal(secondNow.status, "pending", "the enqueued run started while the first was running");
      observed += 1;
      await sleep(100);
    }
    assert.ok(observed >= 3, `saw the first run running only ${observed} times`);

    assert.equal((await runFinishes(thread.thread_id, second.run_id)).status, "success");
    const state = await getState(thread.thread_id);
    assert.deepEqual(messagesOf(state), [["human", "sleep=1.5"], ["ai", "slow done: sleep=1.5"], ["human", "queued"], ["ai", "echo: queued"]]);
  });
});
