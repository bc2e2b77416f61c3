/**
 * The stategate API over the wasm core: the one binding every `stategate` entry point shares
 * (Node ESM, CommonJS, browsers, workers, workerd) — each entry only loads the one wasm file its
 * own way ({@link loadSync} from bytes or a compiled module, {@link load} by URL) and re-exports
 * this. The message gate's functions are `messages-api.ts`'s, which the `stategate/messages`
 * entries bind to their smaller module; the store, model views, the log, tasks, subagents,
 * streams and transcripts are added here. Every call's failure is a {@link StategateError}.
 */
import * as glue from "./stategate_wasm.js";
import type * as Wasm from "./stategate_wasm.js";
import { describe, guardClass, guarded, stategateError } from "./errors.js";
import { wasmLoader, type Glue, type WasmSource } from "./loader.js";
import { bindMessages, check, type MessagesApi, type MessagesInput } from "./messages-api.js";
import type {
  Violation,
  Fix,
  Message,
  MessageReport,
  Role,
  Provider,
  Format,
  Reason,
  StateStore as CoreStateStore,
  StoreEvent,
  LogCheck,
  ModelViewOptions,
  ModelView as CoreModelView,
  SubagentInputOptions,
  SubagentResultOptions,
  Command,
  ErrorCode,
  ErrorDetails,
  RepairOptions,
  EncodedTranscript,
  StreamFormat,
  StreamResult as CoreStreamResult,
  StreamReader as CoreStreamReader,
  StoreInit,
  RestoreInit,
  FollowOptions,
} from "./stategate_wasm.js";
import type { MessageOf, PlainOf } from "./formats.js";
import { indexedDbLogClass, type IndexedDbLog as IndexedDbLogInstance, type IndexedDbLogConstructor } from "./indexeddb-log.js";
import { asyncTasksClass, type AsyncTasks as TasksInstance, type AsyncTasksConstructor } from "./tasks.js";

export { StategateError, isStategateError, stategateError } from "./errors.js";
export type { WasmSource } from "./loader.js";
export type { MessagesApi, MessagesInput, ValidateOptions, RepairResult } from "./messages-api.js";
export type { AsyncTasksInit, AsyncTasksConstructor, TaskTransport } from "./tasks.js";
export type { IndexedDbLogConstructor, LoadedIndexedDbLog } from "./indexeddb-log.js";

/** The per-format message types stategate emits (see `formats.ts`). */
export type * from "./formats.js";

/** The types generated from the Rust core (tsify and wasm-bindgen), re-exported as they are. */

export type {
  StreamReport,
  StreamFormat,
  StreamEnd,
  UnansweredCall,
  PendingApproval,
  Violation,
  Fix,
  Message,
  Provider,
  Format,
  Reason,
  StoreInit,
  FollowOptions,
  ChainKeyOption,
  Ingested,
  StoreRepairOptions,
  OnPendingApproval,
  Decide,
  ApprovalRecord,
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
  ModelViewOptions,
  Report,
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
  Action,
  BreakReason,
  BrokenLink,
  Content,
  EncodedTranscript,
  ErrorDetails,
  EventFilter,
  Failure,
  FixKind,
  InvalidToolCall,
  MessageReport,
  PollFailure,
  ProjectOptions,
  RepairOptions,
  Rule,
  SectionReport,
  StoreCallbacks,
  StoreOptions,
  TasksConfig,
  ToolCall,
  ToolStatus,
  Usage,
} from "./stategate_wasm.js";

/**
 * The model view (`store.modelView`, {@link Api.projectMessages}): `messages` in format `F` and
 * the report. Both functions infer `F` from `opts.format`, `"openai"` when it is absent (the
 * core's default); a bare `ModelView` is a view in any format.
 */
export interface ModelView<F extends Format = Format> extends Omit<CoreModelView, "messages"> {
  /** The messages to send, in format `F`. */
  messages: MessageOf<F>[];
}

/** Options of a model view whose messages come in format `F` (`opts.format`; `"openai"` when absent). */
export type ModelViewOptionsOf<F extends Format> = ModelViewOptions & { format?: F };

/** Options of `new StreamReader` and {@link Api.readStream}: the stream's format and the messages' format. */
export interface StreamOptions<S extends StreamFormat = StreamFormat, T extends Format | undefined = Format | undefined> {
  /** The stream's format. */
  format: S;
  /** The format the messages are encoded in; default `"ui"` for `"ui-stream"`, `"langchain"` for `"langgraph-messages"`. */
  to?: T;
}

/** The format a stream's messages come in: `to`, else the stream format's default. */
export type StreamTarget<S extends StreamFormat, T extends Format | undefined> = [T] extends [Format]
  ? T
  : S extends "ui-stream"
    ? "ui" | Exclude<T, undefined>
    : "langchain" | Exclude<T, undefined>;

/** What {@link Api.readStream} and `StreamReader.end()` return: `messages` in format `F`. */
export interface StreamResult<F extends Format = Format> extends Omit<CoreStreamResult, "messages"> {
  /** The assembled messages, in format `F`. */
  messages: MessageOf<F>[];
}

/**
 * A state store (DESIGN §3): the core class with precise message types — `messages()` canonical
 * {@link Message}s, `messages(format)` that format's, `modelView({format})` a {@link ModelView}
 * in it, `get("messages")` `Message[]` and any other channel `unknown` (check it before use).
 */
export interface StateStore extends Omit<CoreStateStore, "get" | "messages" | "modelView" | "at"> {
  /** The stored messages, canonical (the `messages` channel always exists). */
  get(channel: "messages"): Message[];
  /** The value of a non-private channel (its shape is the channel's: check it). Throws `UNKNOWN_CHANNEL`, `PRIVATE_CHANNEL`. */
  get(channel: string): unknown;
  /** The messages, encoded in `format`, or canonical {@link Message}s when absent. Throws `INVALID_OPTION`. */
  messages<F extends Format | undefined = undefined>(format?: F): MessageOf<F>[];
  /** The model view (DESIGN §6) in `opts.format` (default `"openai"`). Throws `BUDGET_TOO_SMALL`, `PRIVATE_LEAK`, `INVALID_OPTION`. */
  modelView<F extends Format = "openai">(opts: ModelViewOptionsOf<F>): ModelView<F>;
  /** A read-only view of the store right after event `sequence`; its changes throw `READ_ONLY`. */
  at(sequence: number): StateStore;
}

/** The `StateStore` class: `new StateStore(init?)`, `StateStore.replay`, `StateStore.restore`. */
export interface StateStoreConstructor {
  /** A store with the default schema plus `init.channels`. Throws `INVALID_OPTION`, `CHANNEL_EXISTS`. */
  new (init?: StoreInit): StateStore;
  readonly prototype: StateStore;
  /** Rebuilds a store from a whole log, checking every link and hash. Throws `TAMPERED_LOG`. */
  replay(events: StoreEvent[] | string, init?: RestoreInit): StateStore;
  /** Restores a store from checkpoint bytes and the events after it. Throws `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`, `TAMPERED_LOG`. */
  restore(checkpoint: Uint8Array, tail?: StoreEvent[] | string, init?: RestoreInit): StateStore;
  /**
   * A follower of a run that lives elsewhere (docs/follow.md): a read-only store from the run's
   * `exportForTransport()` snapshot (the object or its JSON text), changed only by
   * `ingest(transportEvents)`; commands throw `READ_ONLY`. `followRun` / `followEventSource` keep
   * one up to date over a transport. Throws `CORRUPT_CHECKPOINT`, `UNSUPPORTED_FORMAT_VERSION`,
   * `INVALID_OPTION`.
   */
  follow(snapshot: Record<string, unknown> | string, opts?: FollowOptions): StateStore;
}

/** An incremental stream reader whose messages come in format `F` unless `messages(to)` says otherwise. */
export interface StreamReader<F extends Format = Format> extends Omit<CoreStreamReader, "messages" | "end"> {
  /** The messages so far, in `to` (default: the reader's format `F`). */
  messages<T extends Format | undefined = undefined>(to?: T): MessageOf<[T] extends [Format] ? T : F | Exclude<T, undefined>>[];
  /** Ends the stream: `{messages, report}`. The reader cannot be used after. */
  end(): StreamResult<F>;
}

/** The `StreamReader` class: `new StreamReader({format, to?})`. Throws `INVALID_OPTION`. */
export interface StreamReaderConstructor {
  new <S extends StreamFormat, T extends Format | undefined = undefined>(opts: StreamOptions<S, T>): StreamReader<StreamTarget<S, T>>;
  readonly prototype: StreamReader;
}

/** A transcript read by {@link readTranscript} (generated from Rust). */
export type Transcript = EncodedTranscript;

/** The public functions, bound to one instance of the wasm module: the message gate's, and the rest. */
export interface Api extends MessagesApi {
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
  readStream<S extends StreamFormat, T extends Format | undefined = undefined>(chunks: readonly unknown[], opts: StreamOptions<S, T>): StreamResult<StreamTarget<S, T>>;
  /**
   * The incremental stream reader: `new StreamReader({format, to?})`, `push(chunk)` (returns
   * nothing; a refused chunk throws, and so does every later `push` / `end`), `messages(to?)` (so
   * far), `end()` → `{messages, report}` as {@link Api.readStream}.
   */
  StreamReader: StreamReaderConstructor;
  /**
   * The state store class (DESIGN §3): `new StateStore({runId?, channels?, clock?, onEvents?, audit?})`. Call
   * `store.free()` when done with it, or let the garbage collector release it.
   */
  StateStore: StateStoreConstructor;
  /**
   * Checks a log's hash chain (events or their JSON Lines) from the genesis, or from
   * `opts.after` (the sequence and hash of the event before the first given): `{ok: true}`, or
   * the first broken link `{ok: false, index, sequence, reason: "hash" | "prev_hash" |
   * "sequence" | "run_id" | "event_id" | "salted" | "unreadable" | "redacted"}`. Options, both optional: `after` (`{sequence, hash}`:
   * a log that does not start at sequence 1), `chainKey` (the run's key, bytes: checks a keyed
   * chain's HMAC-SHA-256 hashes; without it a keyed log breaks at its first event, and with it an
   * unkeyed one does). An unkeyed chain finds accidental damage and edits that did not recompute
   * every later hash (anchor `lastHash` elsewhere to catch the rest); a keyed one also finds
   * edits by whoever lacks the key. Events prepared for transport (`redacted`) are broken links.
   * Throws `INVALID_OPTION` for bad options (a `chainKey` that is not a `Uint8Array` of at least
   * 16 bytes).
   */
  verifyLog(events: readonly StoreEvent[] | string, opts?: { after?: { sequence: number; hash: string }; chainKey?: Uint8Array }): LogCheck;
  /** The IndexedDB persistence adapter (browsers and workers; `open` rejects elsewhere). */
  IndexedDbLog: IndexedDbLogConstructor;
  /**
   * The async subagent task ledger of a store (DESIGN §7): `new AsyncTasks(store, {agents,
   * url?, transport?})`; `tools()` for the model, `await handle(toolCall)` per task tool call,
   * `await poll()` before each model call, then `store.deliverNotifications()`.
   */
  AsyncTasks: AsyncTasksConstructor;
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
  projectMessages<F extends Format = "openai">(messages: MessagesInput, opts: ModelViewOptionsOf<F>): ModelView<F>;
}

/** The guarded classes of each loaded wasm module (guarded once, however often makeApi runs). */
const guardedModules = new WeakMap<object, { StateStore: typeof Wasm.StateStore; AsyncTasks: AsyncTasksConstructor; IndexedDbLog: IndexedDbLogConstructor; StreamReader: typeof Wasm.StreamReader }>();

/**
 * Binds the API to a loaded wasm module (its exports). Throws `INVALID_OPTION` for anything
 * else. The package binds itself already: use the named exports, or the API {@link load} returns.
 * (It leaves the error codes {@link isStategateError} knows to the package's own loading: a
 * module passed here cannot change them.)
 */
export function makeApi(wasm: typeof Wasm): Api {
  try {
    if (!Array.isArray(wasm.errorCodes())) throw new TypeError("errorCodes() gives no list");
    if (typeof wasm.StateStore !== "function" || typeof wasm.StateStore.prototype !== "object") throw new TypeError("no StateStore class");
    return bind(wasm);
  } catch (e) {
    throw stategateError("INVALID_OPTION", `makeApi takes the loaded wasm module (its exports): ${describe(e)}`);
  }
}

/**
 * A JSON value (as `JSON.parse` makes them: plain objects, arrays, strings, numbers, booleans,
 * null) copied whole, keys in the same order; a `__proto__` key stays an own property.
 */
function copyJson(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = copyJson(v[i]);
    return a;
  }
  const o: Record<string, unknown> = {};
  for (const k in v) {
    const x = copyJson((v as Record<string, unknown>)[k]);
    if (k === "__proto__") Object.defineProperty(o, k, { value: x, enumerable: true, writable: true, configurable: true });
    else o[k] = x;
  }
  return o;
}

/**
 * `store.modelView(opts)` over the core's `modelViewDelta`: the core sends, per output message,
 * the slot it is kept in and only the messages that are new or changed since this store's last
 * view (`src/project/view_cache.rs`); the others are copied from the slots kept here, so an
 * unchanged message is neither encoded, written as JSON nor parsed again. The report's
 * per-message entries come as numbers and one list of ids. Every call returns fresh objects
 * (docs/model-view.md), equal to a projection from scratch.
 */
function modelViewOf(wasm: typeof Wasm) {
  /** Per store: the epoch of its last view and its messages by slot. */
  const views = new WeakMap<object, { epoch: number; slots: unknown[] }>();
  let layout: { fresh: number; roles: Role[] } | undefined;
  return function modelView(this: Wasm.StateStore, opts: ModelViewOptions): CoreModelView {
    const { fresh, roles } = (layout ??= wasm.modelViewLayout());
    let view = views.get(this);
    if (!view) views.set(this, (view = { epoch: 0, slots: [] }));
    const [slots, entries, json, epoch] = wasm.modelViewDelta(this, opts, view.epoch);
    const answer = JSON.parse(json) as { fresh: unknown[]; report: CoreModelView["report"]; ids: string[] };
    const messages = new Array<unknown>(slots.length);
    let k = 0;
    for (let j = 0; j < slots.length; j++) {
      const s = slots[j];
      if (s >= fresh) {
        const m = answer.fresh[k++];
        view.slots[s - fresh] = m;
        messages[j] = copyJson(m);
      } else messages[j] = copyJson(view.slots[s]);
    }
    view.epoch = epoch;
    const { report, ids } = answer;
    const reported: MessageReport[] = new Array(entries.length / 4);
    for (let i = 0, e = 0, n = 0; i < reported.length; i++, e += 4) {
      const entry: MessageReport = { id: ids[n++], role: roles[entries[e]], tokens: entries[e + 1], output: entries[e + 2] };
      if (entries[e + 3] === 1) entry.toolCallId = ids[n++];
      reported[i] = entry;
    }
    report.messages = reported;
    return { messages, report };
  };
}

/** The API over `wasm`'s exports; `before` runs before every call (the loaded check). */
function bind(wasm: typeof Wasm, before?: () => void): Api {
  let classes = guardedModules.get(wasm);
  if (!classes) {
    // `store.modelView` rebuilds each view from the messages of the last one (guarded below with
    // every other method of the class).
    Object.defineProperty(wasm.StateStore.prototype, "modelView", { configurable: true, writable: true, value: modelViewOf(wasm) });
    classes = {
      StateStore: guardClass(wasm.StateStore, [], before),
      AsyncTasks: guardClass(asyncTasksClass(wasm) as AsyncTasksConstructor & { name: string }, ["handle", "poll", "untracked"], before),
      IndexedDbLog: guardClass(indexedDbLogClass(wasm) as IndexedDbLogConstructor & { name: string }, ["open", "destroy", "append", "load", "saveCheckpoint"], before),
      StreamReader: guardClass(wasm.StreamReader, [], before),
    };
    guardedModules.set(wasm, classes);
  }
  const isStore = (v: unknown, what: string) => {
    if (!(v instanceof wasm.StateStore)) throw stategateError("INVALID_OPTION", `${what} must be a StateStore`);
  };
  const g = <A extends unknown[], R>(what: string, f: (...args: A) => R) => guarded(what, f, before);
  return {
    ...bindMessages(wasm, before),
    readTranscript: g("readTranscript", (text, opts = {}) => wasm.readTranscript(text, opts.format)),
    readStream: g("readStream", (chunks, opts) => {
      if (!Array.isArray(chunks)) throw stategateError("INVALID_MESSAGE", "chunks must be an array");
      return wasm.readStream(chunks, opts as Wasm.StreamOptions);
    }) as Api["readStream"],
    // The same classes, typed with their precise message types (types only).
    StreamReader: classes.StreamReader as unknown as StreamReaderConstructor,
    StateStore: classes.StateStore as unknown as StateStoreConstructor,
    verifyLog: g("verifyLog", (events, opts) => wasm.verifyLog(events as StoreEvent[] | string, opts)),
    IndexedDbLog: classes.IndexedDbLog,
    AsyncTasks: classes.AsyncTasks,
    subagentInput: g("subagentInput", (parent, opts) => {
      isStore(parent, "parent");
      return wasm.subagentInput(parent, opts) as unknown as StateStore;
    }),
    subagentResult: g("subagentResult", (child, toolCallId, opts) => {
      isStore(child, "child");
      return wasm.subagentResult(child, toolCallId, opts);
    }),
    projectMessages: g("projectMessages", (messages, opts) => {
      check(messages);
      return wasm.projectMessages(messages, opts);
    }) as Api["projectMessages"],
  };
}


/** The package's own API and its loading: bound to its one glue module, checked to be loaded on every call. */
const loader = wasmLoader({
  glue: glue as unknown as Glue,
  file: () => new URL("./stategate_wasm_bg.wasm", import.meta.url),
  entry: "stategate",
  exports: ["errorCodes", "statestore_new"],
  bind: (before) => bind(glue, before),
  ready: () => {
    const sha256 = hostSha256();
    if (sha256) glue.useHostSha256(sha256);
  },
});
const api: Api = loader.api;

/**
 * The runtime's own synchronous SHA-256 (`node:crypto`, in Node, Deno and Bun, reached through
 * `process.getBuiltinModule` so no browser bundle meets the import), which the module uses for the
 * log's hashes of 256 bytes or more: on CPUs with SHA instructions several times faster than its
 * own (issue 17, row 4). The module checks it against known digests before using it; browsers,
 * whose Web Crypto is asynchronous only, keep the module's own. `undefined` where there is none
 * or looking for it throws.
 */
function hostSha256(): ((bytes: Uint8Array) => string) | undefined {
  type Crypto = {
    hash?: (algorithm: string, data: Uint8Array, encoding: "latin1") => string;
    createHash(algorithm: string): { update(data: Uint8Array): { digest(encoding: "latin1"): string } };
  };
  // A runtime whose lookup throws (a sandbox, a polyfilled `process`) keeps the module's own.
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => Crypto | undefined } }).process;
    const crypto = process?.getBuiltinModule?.("node:crypto");
    if (!crypto) return undefined;
    const hash = crypto.hash;
    return typeof hash === "function"
      ? (bytes) => hash("sha256", bytes, "latin1")
      : (bytes) => crypto.createHash("sha256").update(bytes).digest("latin1");
  } catch {
    return undefined;
  }
}

/**
 * Loads the wasm module (once: later calls return the same API at once) and returns the API —
 * the same functions as the package's named exports, which work from then on. `source`
 * defaults to `stategate_wasm_bg.wasm` next to the package's glue, found through
 * `new URL("…", import.meta.url)` (Vite and webpack bundle it). With a bundler that does not
 * follow that pattern (esbuild), pass the file's URL: `import wasmUrl from "stategate/wasm"`
 * with `--loader:.wasm=file`, then `await load(wasmUrl)`. Rejects with `NOT_LOADED` saying what
 * was fetched and why it failed (a later call tries again); a module that is not this entry's is
 * refused before it is instantiated. Loads may overlap: each fetches and compiles its own source,
 * and the first module ready is the one instantiated (the others then give its API).
 * @example
 * import { load, validateMessages } from "stategate/web";
 * await load();
 * validateMessages(history, { provider: "openai" });
 */
export const load: (source?: WasmSource | Promise<WasmSource>) => Promise<Api> = loader.load;

/**
 * Loads the wasm module synchronously from its bytes or a compiled `WebAssembly.Module` (the
 * Node, CommonJS and workerd entry points do this at import) and returns the API. Throws
 * `NOT_LOADED` when the bytes are not the package's module, or while a `load()` instantiates it
 * (await that instead). A second call returns the API.
 */
export const loadSync: (module: ArrayBuffer | ArrayBufferView | object) => Api = loader.loadSync;

/** See {@link Api.validateMessages}. */
export const validateMessages = api.validateMessages;
/** See {@link Api.repairMessages}. */
export const repairMessages = api.repairMessages;
/** See {@link Api.convertMessages}. */
export const convertMessages = api.convertMessages;
/** See {@link Api.decodeMessages}. */
export const decodeMessages = api.decodeMessages;
/** See {@link Api.providerOf}. */
export const providerOf = api.providerOf;
/** See {@link Api.readTranscript}. */
export const readTranscript = api.readTranscript;
/** See {@link Api.readStream}. */
export const readStream = api.readStream;
/** See {@link Api.StreamReader}. */
export const StreamReader = api.StreamReader;
/** See {@link Api.StateStore}. */
export const StateStore = api.StateStore;
/** See {@link Api.AsyncTasks}. */
export const AsyncTasks = api.AsyncTasks;
/** An async task ledger instance. */
export type AsyncTasks = TasksInstance;
/** See {@link Api.IndexedDbLog}. */
export const IndexedDbLog = api.IndexedDbLog;
/** An IndexedDB log instance. */
export type IndexedDbLog = IndexedDbLogInstance;
/** See {@link Api.subagentInput}. */
export const subagentInput = api.subagentInput;
/** See {@link Api.subagentResult}. */
export const subagentResult = api.subagentResult;
/** See {@link Api.projectMessages}. */
export const projectMessages = api.projectMessages;
/** See {@link Api.verifyLog}. */
export const verifyLog = api.verifyLog;
