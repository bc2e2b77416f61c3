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
  ErrorDetails,
  RepairOptions,
  EncodedTranscript,
  StreamOptions,
  StreamResult,
  StreamReader,
} from "./node/stategate_wasm.js";

/** The types generated from the Rust core (tsify and wasm-bindgen), re-exported as they are. */
export type {
  StreamOptions,
  StreamResult,
  StreamReport,
  StreamFormat,
  StreamEnd,
  UnansweredCall,
  PendingApproval,
  StreamReader,
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

/** What {@link repairMessages} returns. */
export interface RepairResult<T = unknown> {
  /** The repaired history: untouched input messages are the same objects. */
  messages: T[];
  /** Every fix, in input order: kind, action, input index, tool call id. */
  report: Fix[];
}

/** A transcript read by {@link readTranscript} (generated from Rust). */
export type Transcript = EncodedTranscript;

/** The error every stategate call throws: a JS `Error` with a stable `code` and `details`. */
export interface StategateError extends Error {
  /** Stable code, e.g. `"INVALID_MESSAGE"`, `"UNKNOWN_ROLE"`, `"INVALID_OPTION"` (generated from Rust's `ErrorCode`). */
  code: ErrorCode;
  /**
   * Where it happened: `index` (input message), `field`, `channel` (state channel), `command`
   * (index in a batch), `authors` (both writers of a `CONCURRENT_WRITE`). Never state values.
   */
  details: ErrorDetails;
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
  /**
   * Converts messages into `to`: each read by its keys (a message that matches no format
   * exactly is refused, never guessed), or all read as `from` when given.
   */
  convertMessages(messages: MessagesInput, opts: { to: Format; from?: Format }): unknown[];
  /** Decodes messages into canonical {@link Message}s: each detected, or all read as `opts.format`. */
  decodeMessages(messages: MessagesInput, opts?: { format?: Format }): Message[];
  /**
   * The provider whose rules a format's output must pass: `"anthropic"` and `"gemini"` have
   * their own, every other format is held to OpenAI's. Throws `INVALID_OPTION` for an unknown format.
   * @example providerOf("ai-sdk") // "openai"
   */
  providerOf(format: Format): Provider;
  /** Reads a recorded transcript file's text; runs are encoded in `format` (default `"openai"`). */
  readTranscript(text: string, opts?: { format?: Format }): Transcript;
  /**
   * Reads a whole recorded stream: an AI SDK 6 UIMessageChunk stream (`format: "ui-stream"`,
   * assembled as the AI SDK's `readUIMessageStream` does) or a LangGraph `streamMode:
   * "messages"` recording (`"langgraph-messages"`, chunks of one message id concatenated as
   * `@langchain/core`'s `AIMessageChunk.concat` does). Returns `{messages, report}`: the messages
   * in `opts.to` (default `"ui"` / `"langchain"`), the report's `dangling` calls, `pendingApprovals`,
   * `openParts`, `end` (`"finish" | "abort" | "error" | "cut" | "unmarked"`) and `reasons` (pass it to
   * {@link Api.repairMessages} to answer the dangling calls). Throws `INVALID_MESSAGE` with
   * `details.index` = the refused chunk, `TOO_LARGE`, `INVALID_OPTION`.
   */
  readStream(chunks: readonly unknown[], opts: StreamOptions): StreamResult;
  /**
   * The incremental stream reader: `new StreamReader({format, to?})`, `push(chunk)` (returns
   * nothing; a refused chunk throws, and so does every later `push` / `end`), `messages(to?)` (so
   * far), `end()` → `{messages, report}` as {@link Api.readStream}.
   */
  StreamReader: typeof StreamReader;
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
 * errors are built by the binding with the same shape). Never throws itself.
 */
export function stategateError(code: ErrorCode, message: string, details: StategateError["details"] = {}): StategateError {
  const e = new Error(`${describe(code)}: ${describe(message)}`) as StategateError;
  e.name = "StategateError";
  e.code = typeof code === "string" ? code : "INVALID_OPTION";
  e.details = details !== null && typeof details === "object" ? details : {};
  return e;
}

/** The codes of the loaded core (`errorCodes()`), once a module is bound. */
let knownCodes: ReadonlySet<string> | undefined;

/**
 * True for an error thrown by stategate: an `Error` named `StategateError` whose `code` is one of
 * the core's {@link ErrorCode}s and whose `details` is an object. Never throws.
 */
export function isStategateError(e: unknown): e is StategateError {
  try {
    if (!(e instanceof Error) || e.name !== "StategateError") return false;
    const { code, details } = e as StategateError;
    return typeof code === "string" && (knownCodes === undefined || knownCodes.has(code)) && typeof details === "object" && details !== null;
  } catch {
    return false;
  }
}

/** What a thrown value says, without anything that could throw again. */
function describe(e: unknown): string {
  try {
    if (typeof e === "string") return e;
    if (e instanceof Error) {
      const m = e.message;
      return typeof m === "string" ? m : "an error without a message";
    }
    return String(e);
  } catch {
    return "a value that cannot be described";
  }
}

/** `e` as a {@link StategateError}: itself when it is one, else `INVALID_OPTION` naming `what`. */
function typed(what: string, e: unknown): StategateError {
  return isStategateError(e) ? e : stategateError("INVALID_OPTION", `${what}: ${describe(e)}`);
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
      throw typed(what, e);
    }
  };
}

/** Objects whose `free()` was called (so a later call is `FREED`, not a raw wasm-bindgen error). */
const freed = new WeakSet<object>();

/**
 * Every method, getter and static function of a class, guarded as {@link guarded}; a call on an
 * object after its `free()` (or `[Symbol.dispose]()`) is `FREED`; the methods named in `async`
 * return a rejected Promise instead of throwing. Returns the class behind a Proxy whose
 * constructor is guarded too (`new AsyncTasks({})` is a typed error); instances, `instanceof` and
 * statics are the class's own. @internal (used by the entry points)
 */
export function guardClass<C extends { prototype: object; name: string }>(cls: C, async: readonly string[] = []): C {
  const name = cls.name;
  const isInstance = (v: unknown): v is object => typeof v === "object" && v !== null && v instanceof (cls as unknown as new () => object);
  // `receiver`: the methods of instances check that `this` is one (a method called on an object
  // of another wasm class would read that object's memory as its own).
  const wrapAll = (target: Record<string, unknown>, skip: string[], receiver: boolean) => {
    for (const key of Object.getOwnPropertyNames(target)) {
      const d = Object.getOwnPropertyDescriptor(target, key);
      // `__`-prefixed members are wasm-bindgen's own plumbing (free() calls them).
      if (skip.includes(key) || key.startsWith("__") || !d || !d.configurable) continue;
      const what = `${name}.${key}`;
      const settle = async.includes(key) ? (e: StategateError) => Promise.reject(e) : (e: StategateError) => { throw e; };
      const wrap = (f: (...a: unknown[]) => unknown) =>
        function (this: unknown, ...a: unknown[]) {
          if (receiver && !isInstance(this)) return settle(stategateError("INVALID_OPTION", `${what}: called on something that is not a ${name}`));
          if (receiver && freed.has(this as object)) return settle(stategateError("FREED", `${what}: this object was freed with free(); create a new one`));
          try {
            return f.apply(this, a);
          } catch (e) {
            return settle(typed(what, e));
          }
        };
      if (typeof d.value === "function") Object.defineProperty(target, key, { ...d, value: wrap(d.value as (...a: unknown[]) => unknown) });
      else if (typeof d.get === "function") Object.defineProperty(target, key, { ...d, get: wrap(d.get) });
    }
  };
  const proto = cls.prototype as Record<string | symbol, unknown>;
  const free = proto.free as ((this: object) => void) | undefined;
  wrapAll(proto as Record<string, unknown>, ["constructor", "free"], true);
  wrapAll(cls as unknown as Record<string, unknown>, ["length", "name", "prototype"], false);
  if (typeof free === "function") {
    const once = function (this: unknown) {
      if (!isInstance(this)) {
        throw stategateError("INVALID_OPTION", `${name}.free: called on something that is not a ${name}`);
      }
      if (freed.has(this)) return;
      // Marked first: wasm-bindgen detaches the object before Rust may refuse (freed from inside
      // one of its own callbacks), and a detached object is gone either way.
      freed.add(this);
      try {
        free.call(this);
      } catch (e) {
        // Refused by wasm-bindgen while the object is in use (freed from inside one of its own
        // callbacks): it is detached all the same (its memory is not reclaimed).
        throw isStategateError(e) ? e : stategateError("BUSY", `${name}.free: the ${name} is in the middle of a call (freed from inside its own callback); it can no longer be used: ${describe(e)}`);
      }
    };
    Object.defineProperty(proto, "free", { configurable: true, writable: true, value: once });
    const dispose = (Symbol as unknown as { dispose?: symbol }).dispose;
    if (typeof dispose === "symbol" && dispose in proto) Object.defineProperty(proto, dispose, { configurable: true, writable: true, value: once });
  }
  return new Proxy(cls, {
    apply() {
      throw stategateError("INVALID_OPTION", `${name} is a class: call it with new`);
    },
    construct(target, args, newTarget) {
      try {
        return Reflect.construct(target as unknown as new (...a: unknown[]) => object, args, newTarget);
      } catch (e) {
        throw typed(`new ${name}`, e);
      }
    },
  });
}

/** The guarded classes of each loaded wasm module (guarded once, however often makeApi runs). */
const guardedModules = new WeakMap<object, { StateStore: typeof Wasm.StateStore; AsyncTasks: typeof Wasm.AsyncTasks; IndexedDbLog: typeof Wasm.IndexedDbLog; StreamReader: typeof Wasm.StreamReader }>();

function check(messages: unknown): void {
  let array: boolean;
  try {
    array = Array.isArray(messages); // throws for a revoked Proxy
  } catch (e) {
    throw stategateError("INVALID_MESSAGE", `messages cannot be read: ${describe(e)}`);
  }
  if (typeof messages !== "string" && !array) throw stategateError("INVALID_MESSAGE", "messages must be an array or its JSON text");
}

/** Binds the API to a loaded wasm module. */
export function makeApi(wasm: typeof Wasm): Api {
  let codes: string[];
  try {
    codes = wasm.errorCodes();
    if (typeof wasm.StateStore !== "function") throw new TypeError("no StateStore export");
  } catch (e) {
    throw stategateError("INVALID_OPTION", `makeApi takes the loaded wasm module (its exports): ${describe(e)}`);
  }
  knownCodes ??= new Set(codes);
  let classes = guardedModules.get(wasm);
  if (!classes) {
    classes = {
      StateStore: guardClass(wasm.StateStore),
      AsyncTasks: guardClass(wasm.AsyncTasks, ["handle", "poll", "untracked"]),
      IndexedDbLog: guardClass(wasm.IndexedDbLog, ["open", "destroy", "append", "load", "saveCheckpoint"]),
      StreamReader: guardClass(wasm.StreamReader),
    };
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
      return wasm.convertMessages(messages, opts?.to as string, opts?.from);
    }),
    decodeMessages: guarded("decodeMessages", (messages, opts) => {
      check(messages);
      return wasm.decodeMessages(messages, opts?.format);
    }),
    providerOf: guarded("providerOf", (format) => wasm.providerOf(format) as Provider),
    readTranscript: guarded("readTranscript", (text, opts = {}) => wasm.readTranscript(text, opts.format)),
    readStream: guarded("readStream", (chunks, opts) => {
      if (!Array.isArray(chunks)) throw stategateError("INVALID_MESSAGE", "chunks must be an array");
      return wasm.readStream(chunks, opts);
    }),
    StreamReader: classes.StreamReader,
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

