/**
 * `AsyncTasks` (DESIGN §7, docs/tasks.md): the async subagent task ledger of one store. The
 * ledger's rules, the tools and the poll are the core's (`src/tasks/`); the core runs each
 * operation one synchronous step at a time (`TaskSteps`), handing out its Agent Protocol
 * requests as data. This class performs them — with the global `fetch` or the caller's
 * transport, each bounded by `requestTimeoutMs`, all of one step at once — feeds each answer
 * back, and lets the core record the outcome through the store's gate. No wasm call waits:
 * the waiting happens on the caller's event loop.
 */
import type * as Wasm from "./stategate_wasm.js";
import type { PollResult, ProtocolRequest, StateStore, TaskResult, TaskToolCall, TasksConfig, ToolDefinition } from "./stategate_wasm.js";
import { stategateError, typed } from "./errors.js";

/** Answers one Agent Protocol call: resolve with the HTTP status and the parsed JSON body; reject (or throw) when the server cannot be reached. */
export type TaskTransport = (request: ProtocolRequest) => Promise<{ status: number; body: unknown }>;

/** Options of `new AsyncTasks(store, init)`: {@link TasksConfig} (the subagents, the default server, time-outs) plus a transport. */
export type AsyncTasksInit = TasksConfig & {
  /**
   * Performs one Agent Protocol call instead of the global `fetch` (a function, or an object
   * with a `send` method): resolve with the HTTP status and the parsed JSON body; reject (or
   * throw) when the server cannot be reached.
   */
  transport?: TaskTransport | { send: TaskTransport };
};

/**
 * The async subagent task ledger of one store (DESIGN §7): the five task tools for the model
 * and a background poll, talking to Agent Protocol servers. Each tool call becomes one Command
 * (the tool result plus a ledger patch, author `async_tasks`) applied to the store; the ledger
 * lives in the store's `async_tasks` channel, so it is logged, checkpointed and survives
 * compaction.
 *
 * @example
 * const tasks = new AsyncTasks(store, { url: "http://127.0.0.1:2024", agents: [{ name: "researcher", description: "Researches a topic", graph_id: "research" }] });
 * // the model called start_async_task: store its assistant message first, then
 * const { content } = await tasks.handle({ id: "call_1", name: "start_async_task", args: { description: "…", subagent_type: "researcher" } });
 */
export interface AsyncTasks {
  /**
   * The five tools for the model: `[{name, description, parameters}]` (JSON Schema), in the
   * order start, check, update, cancel, list.
   */
  tools(): ToolDefinition[];
  /** True for the names of the five task tools (`false` for anything that is not one, a non-string included). */
  isTaskTool(name: string): boolean;
  /**
   * Runs one task tool call, given as `{id, name, args}` or in any provider's tool call
   * shape. First checks that the store would accept its result (the call exists unanswered,
   * its approval is not pending or rejected, the run has not ended…) — no server call is made
   * otherwise; then the server calls; then one Command with the tool result and the ledger
   * patch, applied to the store unless `opts.apply` is false. Failures of the model's making
   * or the server's are an `"error"` tool result with the ledger unchanged. The promise
   * rejects (never throws) with `INVALID_TOOL_CALL`, `INVALID_OPTION` (not a task tool), the
   * store's refusal (`UNKNOWN_TOOL_CALL`, `ALREADY_ANSWERED`, `APPROVAL_PENDING`,
   * `APPROVAL_REJECTED`, `RUN_ENDED`, `READ_ONLY`, `STORAGE_ERROR`…), `BUSY` (the same call is
   * being handled).
   */
  handle(toolCall: TaskToolCall, opts?: { apply?: boolean }): Promise<TaskResult>;
  /**
   * Refreshes every unfinished task (deepagents' pull before each model call): due retries
   * re-run, runs past `timeout_ms` are cancelled (`timeout`), status changes are recorded and
   * notifications queued, in one Command (none when nothing changed; per task when the store
   * refuses the whole). A server that cannot be reached, or a task the store refuses, is
   * listed in `errors` and keeps its record. Rejects (never throws) when the store cannot
   * take ledger writes at all (`READ_ONLY`, busy). A `poll()` made while one is under way
   * shares it (two at once would start a due retry twice).
   */
  poll(): Promise<PollResult>;
  /**
   * Threads on the subagents' servers made for this parent (metadata `parent_thread_id`)
   * that the ledger does not track — launches whose record was lost because the store
   * refused it or the process stopped in between. Resolves with their thread ids; rejects with
   * `NETWORK_ERROR`, `SERVER_ERROR`.
   */
  untracked(): Promise<string[]>;
  /** The ledger: `{task_id: record}` (the store's `async_tasks` channel). */
  ledger(): Record<string, unknown>;
  /**
   * Releases the ledger's wasm memory (calls under way finish); later calls throw `FREED`.
   * `[Symbol.dispose]()` is the same call, where the runtime has `Symbol.dispose`.
   */
  free(): void;
}

/** The `AsyncTasks` class: `new AsyncTasks(store, init)`. */
export interface AsyncTasksConstructor {
  /**
   * Binds a ledger to `store`. Throws `INVALID_OPTION` naming the problem (no agents,
   * duplicate names, a URL with credentials, a query or no host, a header with control
   * characters, a transport that is not a function…).
   */
  new (store: StateStore, init: AsyncTasksInit): AsyncTasks;
  readonly prototype: AsyncTasks;
}

/** The wasm exports the class needs. */
type TasksWasm = Pick<typeof Wasm, "AsyncTasksCore">;

/** The caller's transport, called with `self` as `this`. */
type Custom = { send: (request: ProtocolRequest) => unknown; self: unknown };

type Item = Wasm.OutgoingRequest;

/** The status and body text of one request made with the global `fetch`. */
async function viaFetch(item: Item, timeoutMs: number): Promise<[unknown, unknown]> {
  const g = globalThis as unknown as {
    fetch?: (url: string, init: object) => Promise<{ status: unknown; text?: () => Promise<unknown> }>;
    AbortSignal?: { timeout?: (ms: number) => unknown };
  };
  const fetch = g.fetch;
  if (typeof fetch !== "function") throw new Error("no global fetch: pass a transport");
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(item.request.headers)) headers[k] = typeof v === "string" ? v : "";
  const init: Record<string, unknown> = { method: item.request.method, headers };
  // Abort the request itself on time-out (AbortSignal.timeout: Node 18+, browsers).
  try {
    const timeout = g.AbortSignal?.timeout;
    if (typeof timeout === "function") init.signal = timeout.call(g.AbortSignal, timeoutMs);
  } catch {
    // No abort signal: the timer below still bounds the wait.
  }
  if (item.body !== undefined) init.body = item.body;
  const response = await fetch.call(globalThis, item.request.url, init);
  const status = response.status;
  if (typeof response.text !== "function") throw new Error("the response has no text()");
  return [status, await response.text()];
}

/**
 * Performs one request and gives its answer to `steps` (exactly once: the transport's answer,
 * its failure, or the time-out, whichever comes first; the timer is cleared then, so a finished
 * call keeps no Node process alive). Resolves with what feeding the answer threw, if anything.
 */
function perform(steps: Wasm.TaskSteps, item: Item, custom: Custom | undefined, timeoutMs: number): Promise<unknown> {
  return new Promise((done) => {
    let settled = false;
    const settle = (feed: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      try {
        feed();
        done(undefined);
      } catch (e) {
        done(e ?? new Error("an answer could not be given"));
      }
    };
    const timer = setTimeout(() => settle(() => steps.failed(item.id, "timeout", undefined)), timeoutMs);
    if (custom) {
      let answer: unknown;
      try {
        answer = custom.send.call(custom.self, item.request);
      } catch (e) {
        settle(() => steps.failed(item.id, "threw", e));
        return;
      }
      Promise.resolve(answer).then(
        (a) => settle(() => steps.resolved(item.id, a)),
        (e) => settle(() => steps.failed(item.id, "rejected", e)),
      );
    } else {
      viaFetch(item, timeoutMs).then(
        ([status, text]) => settle(() => steps.received(item.id, status as number, text as string)),
        (e) => settle(() => steps.failed(item.id, "unreachable", e)),
      );
    }
  });
}

/**
 * Runs `steps` to the end: each round performs the requests the core made (all at once) and
 * goes on as soon as one is answered, so a slow server costs one time-out, not one per task.
 * Frees `steps` whatever happens. Rejects only with a {@link StategateError}.
 */
async function drive<T>(what: string, steps: Wasm.TaskSteps, custom: Custom | undefined, timeoutMs: number): Promise<T> {
  try {
    const pending = new Set<Promise<void>>();
    let broken: unknown;
    for (;;) {
      if (broken !== undefined) throw broken;
      const made = steps.advance();
      if (made === null) return steps.finish() as T;
      for (const item of made) {
        const p: Promise<void> = perform(steps, item, custom, timeoutMs).then((e) => {
          pending.delete(p);
          if (e !== undefined) broken ??= e;
        });
        pending.add(p);
      }
      if (pending.size === 0) throw stategateError("INVALID_OPTION", `${what}: internal: the operation waits for no request`);
      await Promise.race(pending);
    }
  } catch (e) {
    throw typed(what, e);
  } finally {
    steps.free();
  }
}

/** The `AsyncTasks` class over one loaded wasm module's exports (unguarded: the binding guards it). @internal */
export function asyncTasksClass(wasm: TasksWasm): AsyncTasksConstructor {
  class AsyncTasks {
    #core: Wasm.AsyncTasksCore;
    #custom: Custom | undefined;
    /** The poll under way, shared by every `poll()` made meanwhile. */
    #polling: Promise<PollResult> | undefined;

    constructor(store: StateStore, init: AsyncTasksInit) {
      if (typeof init !== "object" || init === null) {
        throw stategateError("INVALID_OPTION", "new AsyncTasks(store, {agents, url?, …}) needs options");
      }
      let t: unknown;
      try {
        t = (init as { transport?: unknown }).transport;
      } catch (e) {
        throw typed("new AsyncTasks", e);
      }
      // A function, or an object whose `send` method is one (called with the object as `this`).
      if (typeof t === "function") this.#custom = { send: t as Custom["send"], self: undefined };
      else if (t !== undefined) {
        let send: unknown;
        try {
          send = (t as { send?: unknown }).send;
        } catch {
          send = undefined;
        }
        if (typeof send !== "function") {
          throw stategateError("INVALID_OPTION", "transport must be a function (request) => Promise<{status, body}>, or an object with such a send method");
        }
        this.#custom = { send: send as Custom["send"], self: t };
      }
      const config: { transport?: unknown } = Object.assign({}, init);
      delete config.transport;
      this.#core = new wasm.AsyncTasksCore(store, config as unknown as TasksConfig);
    }

    tools(): ToolDefinition[] {
      return this.#core.tools();
    }

    isTaskTool(name: string): boolean {
      return this.#core.isTaskTool(name);
    }

    handle(toolCall: TaskToolCall, opts?: { apply?: boolean }): Promise<TaskResult> {
      const steps = this.#core.call(toolCall, opts);
      return drive("AsyncTasks.handle", steps, this.#custom, this.#core.requestTimeoutMs);
    }

    poll(): Promise<PollResult> {
      if (this.#polling) return this.#polling;
      const steps = this.#core.poll();
      const p = drive<PollResult>("AsyncTasks.poll", steps, this.#custom, this.#core.requestTimeoutMs).finally(() => {
        this.#polling = undefined;
      });
      this.#polling = p;
      return p;
    }

    untracked(): Promise<string[]> {
      const steps = this.#core.untracked();
      return drive("AsyncTasks.untracked", steps, this.#custom, this.#core.requestTimeoutMs);
    }

    ledger(): Record<string, unknown> {
      return this.#core.ledger();
    }

    free(): void {
      this.#core.free();
    }
  }
  const dispose = (Symbol as unknown as { dispose?: symbol }).dispose;
  if (typeof dispose === "symbol") {
    Object.defineProperty(AsyncTasks.prototype, dispose, { configurable: true, writable: true, value: AsyncTasks.prototype.free });
  }
  return AsyncTasks as unknown as AsyncTasksConstructor;
}
