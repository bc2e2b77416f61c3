/**
 * The stategate API over the wasm core, shared by the Node and browser entry points.
 *
 * Validation and repair over a JS array never convert untouched messages (BOUNDARY.md): the
 * façade reads each message's structure into a skeleton, the core computes a plan, and the
 * result reuses the caller's own objects wherever a message did not change. JSON text is passed
 * to the core as it is.
 */
import { skeleton } from "./skeleton.js";
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
  /** Stable code, e.g. `"INVALID_MESSAGE"`, `"UNKNOWN_ROLE"`, `"INVALID_OPTION"`. */
  code: string;
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

function check(messages: unknown): void {
  if (typeof messages !== "string" && !Array.isArray(messages)) {
    const e = new Error("INVALID_MESSAGE: messages must be an array or its JSON text") as StategateError;
    e.name = "StategateError";
    e.code = "INVALID_MESSAGE";
    e.details = {};
    throw e;
  }
}

/** Binds the API to a loaded wasm module. */
export function makeApi(wasm: typeof Wasm): Api {
  return {
    validateMessages(messages, opts) {
      check(messages);
      if (typeof messages !== "string") {
        const sk = skeleton(messages);
        if (sk !== undefined) return wasm.validateSkeleton(sk, opts?.provider as string);
      }
      return wasm.validateJson(messages, opts?.provider as string);
    },
    repairMessages<T>(messages: readonly T[] | string, opts: RepairOptions = {}) {
      check(messages);
      if (typeof messages !== "string") {
        const sk = skeleton(messages);
        if (sk !== undefined) return wasm.repairSkeleton(messages as unknown[], sk, opts) as RepairResult<T>;
      }
      return wasm.repairJson(messages, opts) as RepairResult<T>;
    },
    convertMessages(messages, opts) {
      check(messages);
      return wasm.convertMessages(messages, opts?.to as string);
    },
    decodeMessages(messages) {
      check(messages);
      return wasm.decodeMessages(messages);
    },
    readTranscript(text, opts = {}) {
      return wasm.readTranscript(text, opts.format);
    },
    StateStore: wasm.StateStore,
    verifyLog(events, opts) {
      return wasm.verifyLog(events as StoreEvent[] | string, opts);
    },
    IndexedDbLog: wasm.IndexedDbLog,
    AsyncTasks: wasm.AsyncTasks,
    subagentInput: (parent, opts) => wasm.subagentInput(parent, opts),
    subagentResult: (child, toolCallId, opts) => wasm.subagentResult(child, toolCallId, opts),
    projectMessages(messages, opts) {
      check(messages);
      return wasm.projectMessages(messages, opts);
    },
  };
}

/** @internal The skeleton text of `messages` (exposed for the consistency tests). */
export { skeleton };
