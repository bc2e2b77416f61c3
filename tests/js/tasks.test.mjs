// The async task ledger (issue 6) driving a real Agent Protocol server: the LangGraph in-memory
// server with the echo / slow / fail / ask graphs of tests/agent-server/, started on loopback by
// scripts/agent-server.sh (which sets STATEGATE_AGENT_SERVER_URL). No fakes: every call below
// goes through the package's AsyncTasks and the global fetch (or a recording transport) to it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { StateStore, AsyncTasks } from "../../pkg/index.js";

const URL_ = process.env.STATEGATE_AGENT_SERVER_URL;
const NO_SERVER = "STATEGATE_AGENT_SERVER_URL is not set: run through `bash scripts/agent-server.sh run -- node --test tests/js/`";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const AGENTS = [
  { name: "echo", description: "Echoes its task", graph_id: "echo" },
  { name: "slow", description: "Sleeps, then answers", graph_id: "slow" },
  { name: "slowq", description: "Sleeps; follow-ups queue", graph_id: "slow", update_strategy: "enqueue" },
  { name: "fail", description: "Always fails", graph_id: "fail", retry: { max_attempts: 2, backoff_ms: 0 } },
  { name: "ask", description: "Asks a human", graph_id: "ask" },
  { name: "brief", description: "Sleeps past its timeout", graph_id: "slow", timeout_ms: 400 },
];

function setup(extra = {}) {
  assert.ok(URL_, NO_SERVER);
  const store = new StateStore({ runId: `parent-${Math.random().toString(36).slice(2)}` });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "Work on things in the background." }] } });
  const tasks = new AsyncTasks(store, { url: URL_, agents: AGENTS, ...extra });
  let n = 0;
  /** The model makes `calls` in one assistant turn; each is handled in order. */
  async function turn(...calls) {
    const tc = calls.map(([name, args]) => ({ id: `call_${++n}`, name, args }));
    store.apply({ author: "model", update: { messages: [{ type: "ai", content: "", tool_calls: tc }] } });
    const out = [];
    for (const call of tc) out.push(await tasks.handle(call));
    return out;
  }
  const one = async (name, args) => (await turn([name, args]))[0];
  const start = async (agent, description) => {
    const r = await one("start_async_task", { description, subagent_type: agent });
    const m = /^Launched async subagent\. task_id: (\S+)$/.exec(r.content);
    assert.ok(m, r.content);
    return m[1];
  };
  /** Polls until the task reaches `status` or satisfies it (the server needs ~1 s to start a run). */
  const pollUntil = async (id, status, ms = 15_000) => {
    const deadline = Date.now() + ms;
    const done = typeof status === "function" ? status : (t) => t.status === status;
    for (;;) {
      const p = await tasks.poll();
      assert.deepEqual(p.errors, []);
      if (done(tasks.ledger()[id])) return p;
      assert.ok(Date.now() < deadline, `task ${id} stayed ${JSON.stringify(tasks.ledger()[id])}, wanted ${status}`);
      await sleep(100);
    }
  };
  return { store, tasks, turn, one, start, pollUntil };
}

const server = (path, init) => fetch(URL_ + path, init).then((r) => r.json());

describe("async tasks against a real Agent Protocol server", { concurrency: true }, () => {
  test("start → check → success with the echo answer; the notification is delivered once", async () => {
    const { store, tasks, one, start, pollUntil } = setup();
    const id = await start("echo", "say hi");
    const task = tasks.ledger()[id];
    assert.match(task.status, /^(pending|running)$/, "the server's own status for a new run");
    assert.equal(task.thread_id, id);
    const thread = await server(`/threads/${id}`);
    assert.equal(thread.metadata.subagent_name, "echo");
    assert.equal(thread.metadata.parent_thread_id, store.runId);
    const found = await server("/threads/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ metadata: { parent_thread_id: store.runId } }) });
    assert.deepEqual(found.map((t) => t.thread_id), [id]);
    const p = await pollUntil(id, "success");
    assert.deepEqual(p.notifications, [`${id}:${task.run_id}:success`]);
    assert.equal(store.notifications().length, 1);
    const d = store.deliverNotifications();
    assert.equal(d.delivered.length, 1);
    const last = store.messages("langchain").at(-1);
    assert.equal(last.type, "human");
    assert.deepEqual(last.additional_kwargs.deepagents_notification, { task_id: id, agent_name: "echo", status: "success", run_id: task.run_id });
    assert.match(last.content, /<result>\necho: say hi\n<\/result>/);
    assert.equal(store.deliverNotifications().delivered.length, 0, "exactly once");
    assert.deepEqual(store.notifications(), []);
    const check = await one("check_async_task", { task_id: id });
    assert.equal(check.content, `{"status": "success", "thread_id": "${id}", "result": "echo: say hi"}`, "json.dumps spacing, as deepagents");
  });

  test("update with interrupt replaces the running run and keeps the task id", async () => {
    const { tasks, one, start, pollUntil } = setup();
    const id = await start("slow", "sleep=30");
    const first = tasks.ledger()[id].run_id;
    const r = await one("update_async_task", { task_id: id, message: "sleep=0.2 quick" });
    assert.equal(r.content, `Updated async subagent. task_id: ${id}`);
    const t = tasks.ledger()[id];
    assert.notEqual(t.run_id, first);
    assert.equal(t.task_id, id);
    await pollUntil(id, "success");
    assert.equal((await server(`/threads/${id}/runs/${first}`)).status, "interrupted");
    const check = JSON.parse((await one("check_async_task", { task_id: id })).content);
    assert.equal(check.result, "slow done: sleep=0.2 quick");
  });

  test("update with enqueue queues behind the running run; a second follow-up in one turn is refused", async () => {
    const { tasks, turn, one, start, pollUntil } = setup();
    const id = await start("slowq", "sleep=1.5");
    const first = tasks.ledger()[id].run_id;
    const before = tasks.ledger();
    const [a, b] = await turn(["update_async_task", { task_id: id, message: "sleep=0.1 next" }], ["update_async_task", { task_id: id, message: "sleep=0.1 other" }]);
    assert.equal(a.content, `Queued follow-up to async subagent without interrupting its current run. task_id: ${id}`);
    assert.equal(b.status, "error");
    assert.match(b.content, /^Not sent: an earlier `update_async_task` call in this turn already queues a follow-up/);
    assert.equal(b.command.update.async_tasks, undefined, "the refused follow-up leaves the ledger unchanged");
    assert.deepEqual(b.effects, []);
    const t = tasks.ledger()[id];
    assert.deepEqual(t.superseded_run_ids, [first]);
    assert.equal(t.status, "pending");
    assert.notDeepEqual(t, before[id]);
    await pollUntil(id, "success");
    assert.equal((await server(`/threads/${id}/runs/${first}`)).status, "success", "the first run was not interrupted");
    assert.equal(JSON.parse((await one("check_async_task", { task_id: id })).content).result, "slow done: sleep=0.1 next");
  });

  test("cancel stops a running task on the server", async () => {
    const { tasks, one, start } = setup();
    const id = await start("slow", "sleep=30");
    const run = tasks.ledger()[id].run_id;
    const r = await one("cancel_async_task", { task_id: id });
    assert.equal(r.content, `Cancelled async subagent task: ${id}`);
    assert.equal(tasks.ledger()[id].status, "cancelled");
    assert.equal((await server(`/threads/${id}/runs/${run}`)).status, "interrupted");
    const again = await one("cancel_async_task", { task_id: id });
    assert.equal(again.content, `Task ${id} already finished with status cancelled; nothing to cancel.`);
  });

  test("fail → a retry runs again → error, with the server's error and one notification", async () => {
    const { store, tasks, start, pollUntil } = setup();
    const id = await start("fail", "boom");
    const first = tasks.ledger()[id].run_id;
    await pollUntil(id, (t) => t.retry_at_ms !== undefined);
    assert.equal(tasks.ledger()[id].status, "pending");
    assert.equal(tasks.ledger()[id].error, "RuntimeError: fail graph: boom");
    await pollUntil(id, (t) => t.attempts === 2);
    const t = tasks.ledger()[id];
    assert.notEqual(t.run_id, first);
    const runs = await server(`/threads/${id}/runs`);
    assert.equal(runs.length, 2, "the server ran the task twice");
    await pollUntil(id, "error");
    const n = store.notifications();
    assert.deepEqual(n.map((x) => [x.status, x.error]), [["error", "RuntimeError: fail graph: boom"]]);
  });

  test("ask → waiting; the human resumes on the child thread → success and a notification", async () => {
    const { store, tasks, one, start, pollUntil } = setup();
    const id = await start("ask", "deploy");
    await pollUntil(id, "waiting");
    const check = JSON.parse((await one("check_async_task", { task_id: id })).content);
    assert.equal(check.status, "waiting");
    assert.deepEqual(check.interrupts.map((i) => i.value), [{ question: "Approve: deploy?" }]);
    await server(`/threads/${id}/runs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ assistant_id: "ask", command: { resume: "yes" } }) });
    await pollUntil(id, "success");
    const queue = Object.values(store.get("notifications"));
    assert.deepEqual(queue.map((n) => [n.status, n.dropped ?? null]), [["waiting", "seen through check_async_task"], ["success", null]], "the model saw the wait itself");
    assert.deepEqual(store.notifications().map((n) => [n.status, n.result]), [["success", "answer: yes"]]);
  });

  test("a run past timeout_ms is cancelled and marked timeout", async () => {
    const { store, tasks, start, pollUntil } = setup();
    const id = await start("brief", "sleep=30");
    const run = tasks.ledger()[id].run_id;
    await sleep(450);
    await pollUntil(id, "timeout");
    assert.equal((await server(`/threads/${id}/runs/${run}`)).status, "interrupted");
    assert.deepEqual(store.notifications().map((n) => n.status), ["timeout"]);
  });

  test("a task started 150 turns ago survives compaction: list, check and cancel by its id", async () => {
    const { store, tasks, one, start, pollUntil } = setup();
    const id = await start("slow", "sleep=30 research");
    await pollUntil(id, "running");
    for (let k = 0; k < 150; k++) {
      store.apply({ author: "model", update: { messages: [{ role: "user", content: `question ${k}` }, { role: "assistant", content: `answer ${k}` }] } });
    }
    store.compact({ summary: "150 questions answered; a research task runs.", cut: store.compactionPlan({ keep: 4 }) });
    const view = store.modelView({ budget: 2000, format: "openai" });
    const text = JSON.stringify(view.messages);
    assert.ok(!text.includes("Launched async subagent"), "the launch left the view");
    assert.ok(text.includes(`- task ${id} (slow): running`), "the active tasks section shows it");
    const list = await one("list_async_tasks", {});
    assert.equal(list.content, `1 tracked task(s):\n- task_id: ${id}  agent: slow  status: running`);
    assert.equal(JSON.parse((await one("check_async_task", { task_id: id })).content).status, "running");
    assert.equal((await one("cancel_async_task", { task_id: id })).content, `Cancelled async subagent task: ${id}`);
    assert.equal(tasks.ledger()[id].status, "cancelled");
  });

  test("a caller's transport object sees every call; an unreachable server is an error result and changes nothing", async () => {
    const recorder = {
      seen: [],
      async send(req) {
        this.seen.push(`${req.call} ${req.method}`);
        const r = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body === undefined ? undefined : JSON.stringify(req.body) });
        const text = await r.text();
        return { status: r.status, body: text ? JSON.parse(text) : null };
      },
    };
    const { tasks, start, one } = setup({ transport: recorder });
    const id = await start("echo", "via transport");
    assert.deepEqual(recorder.seen, ["create_thread POST", "create_run POST"], "an object's send is called as a method");
    const s2 = new StateStore();
    const t2 = new AsyncTasks(s2, { url: "http://127.0.0.1:9", agents: AGENTS });
    s2.apply({ author: "model", update: { messages: [{ role: "user", content: "go" }, { type: "ai", content: "", tool_calls: [{ id: "x", name: "start_async_task", args: { description: "d", subagent_type: "echo" } }] }] } });
    const r = await t2.handle({ id: "x", name: "start_async_task", args: { description: "d", subagent_type: "echo" } });
    assert.equal(r.status, "error");
    assert.equal(r.error.code, "NETWORK_ERROR");
    assert.match(r.content, /^Failed to launch async subagent 'echo': create_thread POST http:\/\/127\.0\.0\.1:9\/threads: /);
    assert.deepEqual(t2.ledger(), {});
    assert.equal(s2.messages().at(-1).status, "error");
    assert.equal(JSON.parse((await one("check_async_task", { task_id: id })).content).thread_id, id);
  });

  test("nothing reaches the server when the store would refuse the result (approval pending, unknown call)", async () => {
    const { store, tasks } = setup();
    const call = { id: "call_x", name: "start_async_task", args: { description: "delete the production database", subagent_type: "echo" } };
    store.apply({ author: "model", update: { messages: [{ type: "ai", content: "", tool_calls: [call] }] } });
    store.apply({ author: "hitl", update: { approvals: { a1: { tool_call_id: "call_x", status: "pending" } } } });
    const before = JSON.stringify(store.toJSON());
    await assert.rejects(tasks.handle(call), (e) => e.code === "APPROVAL_PENDING");
    await assert.rejects(tasks.handle({ ...call, id: "never_made" }), (e) => e.code === "UNKNOWN_TOOL_CALL");
    await assert.rejects(tasks.handle({ id: "", name: "start_async_task", args: {} }), (e) => e.code === "INVALID_TOOL_CALL");
    await assert.rejects(tasks.handle({ id: "c", name: "search", args: {} }), (e) => e.code === "INVALID_OPTION");
    assert.equal(JSON.stringify(store.toJSON()), before);
    assert.deepEqual(await tasks.untracked(), [], "no thread was created for this parent");
  });

  test("a launch whose record the store refused is found by untracked(); a silent server times out", async () => {
    const { store, tasks, start } = setup();
    const id = await start("echo", "tracked");
    assert.deepEqual(await tasks.untracked(), []);
    // A thread made for this parent that the ledger never recorded (e.g. the process stopped
    // between the server call and the write-ahead log).
    const lost = await server("/threads", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ metadata: { parent_thread_id: store.runId, subagent_name: "echo" } }) });
    assert.deepEqual(await tasks.untracked(), [lost.thread_id]);
    assert.ok(tasks.ledger()[id]);
    const s2 = new StateStore();
    const silent = new AsyncTasks(s2, { url: URL_, agents: AGENTS, requestTimeoutMs: 200, transport: () => new Promise(() => {}) });
    s2.apply({ author: "model", update: { messages: [{ role: "user", content: "go" }, { type: "ai", content: "", tool_calls: [{ id: "y", name: "start_async_task", args: { description: "d", subagent_type: "echo" } }] }] } });
    const r = await silent.handle({ id: "y", name: "start_async_task", args: { description: "d", subagent_type: "echo" } });
    assert.equal(r.error.code, "NETWORK_ERROR");
    assert.match(r.content, /no answer within 200 ms/);
  });

  test("OpenAI-shaped tool calls are accepted; credentials in a URL are refused", async () => {
    const { store, tasks } = setup();
    const call = { id: "call_oa", type: "function", function: { name: "list_async_tasks", arguments: "{}" } };
    store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call] }] } });
    assert.equal((await tasks.handle(call)).content, "No async subagent tasks tracked.");
    assert.throws(() => new AsyncTasks(store, { url: "http://admin:s3cr3t@127.0.0.1:1", agents: AGENTS }), (e) => e.code === "INVALID_OPTION" && !e.message.includes("s3cr3t"));
  });

  test("bad configuration and calls throw typed errors", async () => {
    assert.ok(URL_, NO_SERVER);
    const store = new StateStore();
    assert.throws(() => new AsyncTasks(store, { agents: [] }), (e) => e.code === "INVALID_OPTION" && /at least one/.test(e.message));
    assert.throws(() => new AsyncTasks(store, { url: URL_, agents: [AGENTS[0], AGENTS[0]] }), (e) => /duplicated: echo/.test(e.message));
    assert.throws(() => new AsyncTasks(store, { url: URL_, agents: AGENTS, transport: 5 }), (e) => e.code === "INVALID_OPTION");
    const tasks = new AsyncTasks(store, { url: URL_, agents: AGENTS });
    const pending = tasks.handle({ id: "c", name: "search", args: {} });
    assert.ok(pending instanceof Promise, "never throws synchronously");
    await assert.rejects(pending, (e) => e.code === "INVALID_OPTION" && /not an async task tool/.test(e.message));
    assert.deepEqual(tasks.tools().map((t) => t.name), ["start_async_task", "check_async_task", "update_async_task", "cancel_async_task", "list_async_tasks"]);
    assert.equal(store.version, 0, "nothing was written");
  });
});
