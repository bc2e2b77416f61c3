// An Agent Protocol server simulated inside the page, for the async-task scenario: threads and
// runs in memory, served through the `transport` option of `AsyncTasks` instead of `fetch`.
// A run is `pending` when created, `running` from the first status request on, and `success`
// after `finishAfter` status requests; its thread state then ends with an AI message holding the
// answer. Only the calls AsyncTasks makes are implemented; anything else answers 404.

/**
 * @param {{ finishAfter?: number, answer?: (instruction: string) => string }} [opts]
 * @returns {{ transport: (req: import("../pkg/web.js").ProtocolRequest) => Promise<{status: number, body: unknown}>,
 *            runs: () => Array<{run_id: string, thread_id: string, status: string, ticks: number}>,
 *            calls: string[] }}
 */
export function createAgentServer({ finishAfter = 4, answer = defaultAnswer } = {}) {
  const threads = new Map();
  const calls = [];
  let next = 0;
  const id = (prefix) => `${prefix}-${(++next).toString(36).padStart(4, "0")}`;
  const now = () => new Date().toISOString();
  const ok = (body) => ({ status: 200, body });
  const notFound = (what) => ({ status: 404, body: { detail: `${what} not found` } });

  // One status request moves a run one tick forward (a worker picking it up, then working).
  function tick(thread, run) {
    if (run.status !== "pending" && run.status !== "running") return;
    run.ticks += 1;
    if (run.ticks >= finishAfter) {
      run.status = "success";
      thread.status = "idle";
      thread.values.messages.push({ type: "ai", content: answer(run.instruction), id: id("msg") });
    } else {
      run.status = "running";
    }
    run.updated_at = now();
  }

  async function transport(req) {
    calls.push(`${req.method} ${req.call}`);
    const url = new URL(req.url);
    const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== "threads") return notFound("route");
    const thread = parts[1] && parts[1] !== "search" ? threads.get(parts[1]) : undefined;
    const run = thread && parts[2] === "runs" && parts[3] ? thread.runs.find((r) => r.run_id === parts[3]) : undefined;
    switch (req.call) {
      case "create_thread": {
        const t = { thread_id: id("thread"), created_at: now(), metadata: req.body?.metadata ?? {}, status: "idle", runs: [], values: { messages: [] } };
        threads.set(t.thread_id, t);
        return ok(view(t));
      }
      case "create_run": {
        if (!thread) return notFound("thread");
        const messages = req.body?.input?.messages ?? [];
        thread.values.messages.push(...messages);
        const last = messages.at(-1);
        const r = {
          run_id: id("run"), thread_id: thread.thread_id, assistant_id: req.body?.assistant_id, status: "pending",
          ticks: 0, instruction: typeof last?.content === "string" ? last.content : "", created_at: now(), updated_at: now(),
        };
        thread.runs.push(r);
        thread.status = "busy";
        return ok(runView(r));
      }
      case "get_run":
        if (!run) return notFound("run");
        tick(thread, run);
        return ok(runView(run));
      case "list_runs":
        if (!thread) return notFound("thread");
        return ok(thread.runs.slice(-1).reverse().map(runView));
      case "get_thread":
        return thread ? ok(view(thread)) : notFound("thread");
      case "get_thread_state":
        return thread ? ok({ values: { messages: thread.values.messages }, next: [], tasks: [] }) : notFound("thread");
      case "cancel_run":
        if (!run || (run.status !== "pending" && run.status !== "running")) return notFound("active run");
        run.status = "interrupted";
        thread.status = "idle";
        return ok({});
      case "search_threads": {
        const want = req.body?.metadata ?? {};
        const found = [...threads.values()].filter((t) => Object.entries(want).every(([k, v]) => t.metadata[k] === v));
        return ok(found.map(view));
      }
      default:
        return notFound(req.call);
    }
  }

  const view = (t) => ({ thread_id: t.thread_id, created_at: t.created_at, metadata: t.metadata, status: t.status, interrupts: {}, error: null });
  const runView = (r) => ({ run_id: r.run_id, thread_id: r.thread_id, assistant_id: r.assistant_id, status: r.status, created_at: r.created_at, updated_at: r.updated_at });
  const runs = () => [...threads.values()].flatMap((t) => t.runs.map((r) => ({ ...runView(r), ticks: r.ticks })));
  return { transport, runs, calls };
}

function defaultAnswer(instruction) {
  const words = instruction.replace(/\s+/g, " ").trim().split(" ");
  const topic = words.length > 12 ? `${words.slice(0, 12).join(" ")}…` : words.join(" ");
  return `Research done on “${topic}”: three sources agree; the main risk is stale caches, the fix is to invalidate on write. (Answer from the simulated subagent.)`;
}
