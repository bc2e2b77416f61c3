/**
 * The stategate API over the wasm core, shared by the Node and browser entry points.
 *
 * The façade interprets no message itself: arrays cross into the core as their JSON text (one
 * bounded path: cycles, depth, throwing getters and Proxies become typed errors, never a trap)
 * and JSON text as it is, so both forms give one answer. Repair hands back the caller's own
 * objects wherever a message did not change. Every call's failure is a {@link StategateError}.
 */
import type * as Wasm from "./node/stategate_wasm.js";
import type {
  Violation,
  Fix,
  Message,
  Provider,
  Format,
  Reason,
  StateStore,
  StoreEvent,
  LogCheck,
  IndexedDbLog,
  ModelViewOptions,
  ModelView,
  AsyncTasks,
  SubagentInputOptions,
  SubagentResultOptions,
  Command,
  ErrorCode,
} from "./node/stategate_wasm.js";

/** The types generated from the Rust core (tsify and wasm-bindgen), re-exported as they are. */
export type {
  Violation,
  Fix,
  Message,
  Provider,
  Format,
  Reason,
  StateStore,
  StoreInit,
  StoreRepairOptions,
  StoreEvent,
  EventType,
  Command,
  Applied,
  BatchApplied,
  Repaired,
  ChannelSpec,
  Reducer,
  Visibility,
  ValueType,
  OnConflict,
  EventQuery,
  RestoreInit,
  Rejection,
  LogCheck,
  DanglingCall,
  IndexedDbLog,
  ModelViewOptions,
  ModelView,
  Report,
  AsyncTasks,
  AsyncTasksInit,
  SubagentSpec,
  Mode,
  UpdateStrategy,
  Retry,
  TaskToolCall,
  TaskResult,
  PollResult,
  TaskNotification,
  Delivered,
  ToolDefinition,
  EffectRecord,
  ProtocolRequest,
  SubagentInputOptions,
  SubagentResultOptions,
  TaskStatus,
  RunStatus,
  StepStatus,
  ApprovalStatus,
  Role,
  ContentPart,
  Dropped,
  Truncated,
  TranscriptKind,
  ErrorCode,
} from "./node/stategate_wasm.js";

/** Messages as an array of objects in any supported format(s), or that array's JSON text. */
export type MessagesInput = readonly unknown[] | string;

/** Options of {@link validateMessages}. */
export interface ValidateOptions {
  /** The provider whose request rules apply. */
  provider: Provider;
}

/** Options of {@link repairMessages}. */
export interface RepairOptions {
  /** Provider whose text-only rules apply to tool results. Default `"openai"`. */
  provider?: Provider;
  /** Why particular calls have no result, by call id, e.g. `{c1: "rejected"}`. Default `"missing"`. */
  reasons?: Record<string, Reason>;
  /** Keep results that answer no call (default: dropped). Always reported. */
  keepOrphans?: boolean;
  /** Placeholder text; `{name}`, `{id}`, `{reason}` are substituted. */
  text?: string;
}

/** What {@link repairMessages} returns. */
export interface RepairResult<T = unknown> {
  /** The repaired history: untouched input messages are the same objects. */
  messages: T[];
  /** Every fix, in input order: kind, action, input index, tool call id. */
  report: Fix[];
}

/** A transcript read by {@link readTranscript}. */
export interface Transcript {
  /** `"openai-chat" | "swe-agent" | "tau-bench" | "claude-code" | "open-hands"`. */
  kind: string;
  /** The runs (tau-bench files hold many; others one), each encoded in the requested format. */
  runs: unknown[][];
}

/** The error every stategate call throws: a JS `Error` with a stable `code` and `details`. */
export interface StategateError extends Error {
  /** Stable code, e.g. `"INVALID_MESSAGE"`, `"UNKNOWN_ROLE"`, `"INVALID_OPTION"` (generated from Rust's `ErrorCode`). */
  code: ErrorCode;
  /**
   * Where it happened: `index` (input message), `field`, `channel` (state channel), `command`
   * (index in a batch), `authors` (both writers of a `CONCURRENT_WRITE`). Never state values.
   */
  details: { index?: number; field?: string; channel?: string; command?: number; authors?: string[] };
}

/** The public functions, bound to one instance of the wasm module. */
export interface Api {
  /**
   * Every violation of the provider's rules, each with a stable rule id, the input index and the
   * tool call id. Throws {@link StategateError} for input that is not messages.
   * @example validateMessages([{role: "user", content: "hi"}], {provider: "openai"}) // []
   */
  validateMessages(messages: MessagesInput, opts: ValidateOptions): Violation[];
  /**
   * Repairs dangling, misplaced, duplicate and orphan tool results and empty content (DESIGN §5).
   * The output passes {@link Api.validateMessages} for `opts.provider`; repairing it again
   * changes nothing; a real result is never dropped.
   */
  repairMessages<T = unknown>(messages: readonly T[] | string, opts?: RepairOptions): RepairResult<T>;
  /** Converts messages from any supported format(s) into `to`. */
  convertMessages(messages: MessagesInput, opts: { to: Format }): unknown[];
  /** Decodes messages into canonical {@link Message}s. */
  decodeMessages(messages: MessagesInput): Message[];
  /** Reads a recorded transcript file's text; runs are encoded in `format` (default `"openai"`). */
  readTranscript(text: string, opts?: { format?: Format }): Transcript;
  /**
   * The state store class (DESIGN §3): `new StateStore({runId?, channels?, clock?, onEvents?, audit?})`. Call
   * `store.free()` when done with it, or let the garbage collector release it.
   */
  StateStore: typeof StateStore;
  /**
   * Checks a log's hash chain (events or their JSON Lines) from the genesis, or from
   * `opts.after` (the sequence and hash of the event before the first given): `{ok: true}`, or
   * the first broken link `{ok: false, index, sequence, reason: "hash" | "prev_hash" |
   * "sequence" | "run_id" | "unreadable"}`. The chain is unkeyed: it finds accidental damage and
   * edits that did not recompute every later hash; anchor `lastHash` elsewhere to catch the rest.
   */
  verifyLog(events: readonly StoreEvent[] | string, opts?: { after: { sequence: number; hash: string } }): LogCheck;
  /** The IndexedDB persistence adapter (browsers and workers; `open` rejects elsewhere). */
  IndexedDbLog: typeof IndexedDbLog;
  /**
   * The async subagent task ledger of a store (DESIGN §7): `new AsyncTasks(store, {agents,
   * url?, transport?})`; `tools()` for the model, `await handle(toolCall)` per task tool call,
   * `await poll()` before each model call, then `store.deliverNotifications()`.
   */
  AsyncTasks: typeof AsyncTasks;
  /**
   * A sync subagent's starting state as a new store (DESIGN §8): shared channels only (never
   * private ones, the task ledger, todos, the structured response), then the description —
   * `mode: "fork"` puts the parent's model view first. Throws `INVALID_OPTION`.
   */
  subagentInput(parent: StateStore, opts: SubagentInputOptions): StateStore;
  /**
   * The Command writing a finished subagent back to its parent: one tool result with its final
   * answer, plus only the inherited channels it changed. Apply with `parent.apply` (or
   * `applyBatch` for parallel subagents: conflicting writes throw `CONCURRENT_WRITE`).
   */
  subagentResult(child: StateStore, toolCallId: string, opts?: SubagentResultOptions): Command;
  /**
   * The model view of a plain message array under a token budget (DESIGN §6): units kept whole,
   * repaired, big tool results previewed, in `opts.format`. No state sections (use
   * `store.modelView` for those). Throws `BUDGET_TOO_SMALL`, `INVALID_OPTION`.
   */
  projectMessages(messages: MessagesInput, opts: ModelViewOptions): ModelView;
}

/**
 * A {@link StategateError}: the one constructor of errors raised on the JS side (the core's own
 * errors are built by the binding with the same shape).
 */
export function stategateError(code: ErrorCode, message: string, details: StategateError["details"] = {}): StategateError {
  const e = new Error(`${code}: ${message}`) as StategateError;
  e.name = "StategateError";
  e.code = code;
  e.details = details;
  return e;
}

/** True for an error thrown by stategate (it has a string `code` and `details`). */
export function isStategateError(e: unknown): e is StategateError {
  return e instanceof Error && e.name === "StategateError" && typeof (e as StategateError).code === "string";
}

function describe(e: unknown): string {
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return "a value that cannot be described was thrown";
  }
}

/**
 * Runs a call into the core; anything thrown that is not already a {@link StategateError} —
 * wasm-bindgen's own checks of its arguments (a plain object where a `StateStore` belongs),
 * a call after `free()`, an engine error — becomes one with a code, so every failure is typed.
 */
function guarded<A extends unknown[], R>(what: string, f: (...args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    try {
      return f(...args);
    } catch (e) {
      if (isStategateError(e)) throw e;
      throw stategateError("INVALID_OPTION", `${what}: ${describe(e)}`);
    }
  };
}

/** Objects whose `free()` was called (so a later call is `FREED`, not a raw wasm-bindgen error). */
const freed = new WeakSet<object>();

/**
 * Every method, getter and static function of a wasm class, guarded as {@link guarded}; a call on
 * an object after its `free()` is `FREED`. Returns the class behind a Proxy whose constructor is
 * guarded too (`new AsyncTasks({})` is a typed error); instances, `instanceof` and statics are the
 * class's own.
 */
function guardClass<C extends { prototype: object; name: string }>(cls: C): C {
  const name = cls.name;
  const wrapAll = (target: Record<string, unknown>, skip: string[], prefix: string) => {
    for (const key of Object.getOwnPropertyNames(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key);
      // `__`-prefixed members are wasm-bindgen's own plumbing (free() calls them).
      if (skip.includes(key) || key.startsWith("__") || !d || !d.configurable) continue;
      const wrap = (f: (...a: unknown[]) => unknown) =>
        function (this: object, ...a: unknown[]) {
          if (freed.has(this)) throw stategateError("FREED", `${prefix}${key}: this object was freed with free(); create a new one`);
          try {
            return f.apply(this, a);
          } catch (e) {
            if (isStategateError(e)) throw e;
            throw stategateError("INVALID_OPTION", `${prefix}${key}: ${describe(e)}`);
          }
        };
      if (typeof d.value === "function") Object.defineProperty(target, key, { ...d, value: wrap(d.value as (...a: unknown[]) => unknown) });
      else if (typeof d.get === "function") Object.defineProperty(target, key, { ...d, get: wrap(d.get) });
    }
  };
  const proto = cls.prototype as Record<string, unknown>;
  const free = proto.free as ((this: object) => void) | undefined;
  wrapAll(proto, ["constructor", "free"], `${name}.`);
  wrapAll(cls as unknown as Record<string, unknown>, ["length", "name", "prototype"], `${name}.`);
  if (typeof free === "function") {
    Object.defineProperty(proto, "free", {
      configurable: true,
      writable: true,
      value: function (this: object) {
        if (freed.has(this)) return;
        freed.add(this);
        free.call(this);
      },
    });
  }
  return new Proxy(cls, {
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target as unknown as new (...a: unknown[]) => object, args, newTarget);
      } catch (e) {
        if (isStategateError(e)) throw e;
        throw stategateError("INVALID_OPTION", `new ${name}: ${describe(e)}`);
      }
    },
  });
}

/** The guarded classes of each loaded wasm module (guarded once, however often makeApi runs). */
const guardedModules = new WeakMap<object, { StateStore: typeof Wasm.StateStore; AsyncTasks: typeof Wasm.AsyncTasks; IndexedDbLog: typeof Wasm.IndexedDbLog }>();

function check(messages: unknown): void {
  if (typeof messages !== "string" && !Array.isArray(messages)) throw stategateError("INVALID_MESSAGE", "messages must be an array or its JSON text");
}

/** Binds the API to a loaded wasm module. */
export function makeApi(wasm: typeof Wasm): Api {
  let classes = guardedModules.get(wasm);
  if (!classes) {
    classes = { StateStore: guardClass(wasm.StateStore), AsyncTasks: guardClass(wasm.AsyncTasks), IndexedDbLog: guardClass(wasm.IndexedDbLog) };
    guardedModules.set(wasm, classes);
  }
  const isStore = (v: unknown, what: string) => {
    if (!(v instanceof wasm.StateStore)) throw stategateError("INVALID_OPTION", `${what} must be a StateStore`);
  };
  return {
    validateMessages: guarded("validateMessages", (messages, opts) => {
      check(messages);
      return wasm.validateJson(messages, opts?.provider as string);
    }),
    repairMessages: guarded("repairMessages", <T>(messages: readonly T[] | string, opts: RepairOptions = {}) => {
      check(messages);
      return wasm.repairJson(messages, opts) as RepairResult<T>;
    }) as Api["repairMessages"],
    convertMessages: guarded("convertMessages", (messages, opts) => {
      check(messages);
      return wasm.convertMessages(messages, opts?.to as string);
    }),
    decodeMessages: guarded("decodeMessages", (messages) => {
      check(messages);
      return wasm.decodeMessages(messages);
    }),
    readTranscript: guarded("readTranscript", (text, opts = {}) => wasm.readTranscript(text, opts.format)),
    StateStore: classes.StateStore,
    verifyLog: guarded("verifyLog", (events, opts) => wasm.verifyLog(events as StoreEvent[] | string, opts)),
    IndexedDbLog: classes.IndexedDbLog,
    AsyncTasks: classes.AsyncTasks,
    subagentInput: guarded("subagentInput", (parent, opts) => {
      isStore(parent, "parent");
      return wasm.subagentInput(parent, opts);
    }),
    subagentResult: guarded("subagentResult", (child, toolCallId, opts) => {
      isStore(child, "child");
      return wasm.subagentResult(child, toolCallId, opts);
    }),
    projectMessages: guarded("projectMessages", (messages, opts) => {
      check(messages);
      return wasm.projectMessages(messages, opts);
    }),
  };
}

