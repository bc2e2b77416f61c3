/**
 * `stategate/openai-agents`: stategate inside an OpenAI Agents SDK (`@openai/agents` ≥ 0.20) run.
 *
 * - {@link StateStoreSession}: the SDK's `Session` (memory/session.d.ts of `@openai/agents-core`)
 *   backed by a {@link StateStore}. Every item the runner adds goes into the store's `messages`
 *   channel by commands, so the conversation is in the hash-chained log; `getItems` gives the
 *   items back as the SDK wrote them (`AgentInputItem`s: `id`, `type`, `status`, `callId`,
 *   `providerData` and every field stategate does not model, kept).
 * - {@link createCallModelInputFilter}: a `callModelInputFilter` (`run(agent, input,
 *   {callModelInputFilter})` or `RunConfig.callModelInputFilter`) that repairs the input before
 *   each model call — a `function_call` without its `function_call_result` (a run cut by a crash,
 *   an interruption never answered) is answered with a placeholder, so the Responses API never
 *   sees a dangling call — and, given a `budget`, projects it under that many tokens as the
 *   stategate model view does (`projectMessages`, format `"openai-agents"`).
 *
 * Values of stategate come from `"stategate"` (the package itself), types of the SDK from
 * `@openai/agents` (a peer dependency, imported for types only: this module loads no SDK code).
 */
import { StategateError, convertMessages, decodeMessages, projectMessages, repairMessages } from "stategate";
import type { Fix, Report, StateStore, Command } from "./api.js";
import type { AgentInputItem, CallModelInputFilter, CallModelInputFilterArgs, ModelInputData, Session } from "@openai/agents";

/** The item format of the SDK, as stategate names it (docs/formats.md). */
const FORMAT = "openai-agents";

/** Who writes an item into the store: the command's `author` (a label, not a credential). */
export type ItemAuthor = string | ((item: AgentInputItem) => string);

/** Options of {@link StateStoreSession}. */
export interface StateStoreSessionOptions {
  /** The store the session reads and writes (its `messages` channel). Required. */
  store: StateStore;
  /** What `getSessionId()` returns. Default: the store's `runId`. */
  sessionId?: string;
  /**
   * The author of the commands that add items: one label for all, or one per item. Default
   * ({@link defaultAuthor}): `"user"` for user messages, `"system"` for system / developer
   * messages, `"tool:<callId>"` for tool results, `"model"` for everything the model produced.
   * Consecutive items of one author are one command (one event in the log).
   */
  author?: ItemAuthor;
  /** The author of the commands `popItem` and `clearSession` write. Default `"session"`. */
  controlAuthor?: string;
}

/** Tool-result item types of the SDK (each answers a call by its `callId`). */
const RESULT_TYPES = new Set(["function_call_result", "computer_call_result", "shell_call_output", "apply_patch_call_output", "program_call_result"]);

/**
 * The default author of an item: `"user"` (a user message), `"system"` (a system or developer
 * message), `"tool:<callId>"` (a function, computer, shell, apply-patch or program call's result),
 * `"model"` (assistant messages, calls, reasoning, hosted tool calls and every other item).
 */
export function defaultAuthor(item: AgentInputItem): string {
  const o = item as { role?: unknown; type?: unknown; callId?: unknown };
  if (o.role === "user") return "user";
  if (o.role === "system" || o.role === "developer") return "system";
  if (typeof o.type === "string" && RESULT_TYPES.has(o.type)) return typeof o.callId === "string" ? `tool:${o.callId}` : "tool";
  return "model";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A short description of a value for error messages (its kind, never its content). */
function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

/** A copy of a JSON value with every object's keys sorted (arrays keep their order). */
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys(v[k]);
  return out;
}

/** A key that is equal for two JSON values exactly when they are equal (key order ignored). */
function jsonKey(v: unknown): string {
  return JSON.stringify(sortedKeys(v));
}

/**
 * An OpenAI Agents SDK `Session` whose history is a stategate {@link StateStore}'s `messages`
 * channel: pass it as `run(agent, input, {session})`.
 *
 * - `addItems(items)` decodes the items as `"openai-agents"` items (an item of another format —
 *   a Responses `function_call_output`, a Chat `role: "tool"` message — is refused with
 *   `INVALID_MESSAGE` and its `details.index`, never read as something else) and writes them with
 *   one `applyBatch`: consecutive items of one author are one command, so the log reads
 *   `user_input`, `tool_call`, `tool_result` events by `user`, `model`, `tool:<callId>`. All or
 *   nothing: a refused item (a result for a call the store never saw, a run the store marks
 *   ended, a budget exceeded — the store's rules, docs/store.md) leaves the store as it was and
 *   the error reaches the SDK's run.
 * - `getItems(limit?)` returns the items as the SDK wrote them (every field kept; key order may
 *   differ, which {@link StateStoreSession.prepareHistoryItemsForPersistenceComparison} tells the
 *   SDK to ignore), the newest `limit` in chronological order when given (none for `limit ≤ 0`,
 *   as `MemorySession`).
 * - `popItem()` removes the newest item (a `{remove: id}` command) and returns it.
 * - `clearSession()` removes every message (`{removeAll: true}`): the log keeps them.
 *
 * Where it differs from the SDK's `MemorySession`: an added item whose `id` the session already
 * holds replaces that item in place (the store's messages reducer, as LangGraph's
 * `add_messages`) rather than being appended a second time; a tool result must answer a call
 * already in the session (`UNKNOWN_TOOL_CALL`) and only once (`ALREADY_ANSWERED`).
 */
export class StateStoreSession implements Session {
  /** The store behind the session. */
  readonly store: StateStore;
  readonly #sessionId: string;
  readonly #author: ItemAuthor;
  readonly #controlAuthor: string;

  /**
   * A session over `opts.store`. Throws `INVALID_OPTION` (a {@link StategateError}) when `store`
   * is not a StateStore or an option has the wrong type.
   */
  constructor(opts: StateStoreSessionOptions) {
    if (!isObject(opts as unknown)) throw new StategateError("INVALID_OPTION", `StateStoreSession takes {store, sessionId?, author?, controlAuthor?}, got ${kind(opts)}`);
    const { store, sessionId, author, controlAuthor } = opts;
    if (!isObject(store) || typeof (store as { apply?: unknown }).apply !== "function" || typeof (store as { messages?: unknown }).messages !== "function") {
      throw new StategateError("INVALID_OPTION", `StateStoreSession: store must be a StateStore, got ${kind(store)}`, { field: "store" });
    }
    if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === "")) {
      throw new StategateError("INVALID_OPTION", `StateStoreSession: sessionId must be a non-empty string, got ${kind(sessionId)}`, { field: "sessionId" });
    }
    if (author !== undefined && typeof author !== "function" && (typeof author !== "string" || author === "")) {
      throw new StategateError("INVALID_OPTION", `StateStoreSession: author must be a non-empty string or a function of the item, got ${kind(author)}`, { field: "author" });
    }
    if (controlAuthor !== undefined && (typeof controlAuthor !== "string" || controlAuthor === "")) {
      throw new StategateError("INVALID_OPTION", `StateStoreSession: controlAuthor must be a non-empty string, got ${kind(controlAuthor)}`, { field: "controlAuthor" });
    }
    this.store = store;
    this.#sessionId = sessionId ?? store.runId;
    this.#author = author ?? defaultAuthor;
    this.#controlAuthor = controlAuthor ?? "session";
  }

  /** The session id: `opts.sessionId`, else the store's `runId`. */
  async getSessionId(): Promise<string> {
    return this.#sessionId;
  }

  /**
   * The history as SDK items: all of them, or the newest `limit` (chronological order; `[]` for
   * `limit ≤ 0`). Throws `INVALID_OPTION` for a `limit` that is not an integer.
   */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    if (limit !== undefined && !Number.isInteger(limit)) {
      throw new StategateError("INVALID_OPTION", `getItems: limit must be an integer, got ${typeof limit === "number" ? String(limit) : kind(limit)}`, { field: "limit" });
    }
    const items = this.store.messages(FORMAT) as AgentInputItem[];
    if (limit === undefined) return items;
    return limit <= 0 ? [] : items.slice(Math.max(items.length - limit, 0));
  }

  /**
   * Appends `items` (SDK `AgentInputItem`s) to the store's `messages` channel in one atomic batch
   * (see the class). An empty list writes nothing. Throws `INVALID_MESSAGE` for an item that is
   * not an `"openai-agents"` item (`details.index` = its position in `items`), `INVALID_OPTION`
   * for an author function that does not return a non-empty string, and the store's own errors.
   */
  async addItems(items: AgentInputItem[]): Promise<void> {
    if (!Array.isArray(items)) throw new StategateError("INVALID_MESSAGE", `addItems takes an array of items, got ${kind(items)}`);
    if (items.length === 0) return;
    items.forEach((item, index) => {
      if (!isObject(item)) throw new StategateError("INVALID_MESSAGE", `addItems: item ${index} must be an object, got ${kind(item)}`, { index });
    });
    // Read as the SDK's items, never detected as another format; the store takes the canonical
    // messages as they are (their origin and unmodelled fields kept for the way back).
    const canonical = decodeMessages(items, { format: FORMAT });
    const commands: Command[] = [];
    let last: string | undefined;
    items.forEach((item, index) => {
      const author = typeof this.#author === "function" ? this.#author(item) : this.#author;
      if (typeof author !== "string" || author === "") {
        throw new StategateError("INVALID_OPTION", `addItems: the author function returned ${kind(author)} for item ${index}; it must return a non-empty string`, { index, field: "author" });
      }
      if (author === last) (commands[commands.length - 1].update.messages as unknown[]).push(canonical[index]);
      else commands.push({ author, update: { messages: [canonical[index]] } });
      last = author;
    });
    this.store.applyBatch(commands);
  }

  /**
   * Removes the newest item and returns it (`undefined` when the session is empty). Throws
   * `INVALID_UPDATE` when the newest message of the store is several SDK items (a message
   * another writer put in another format: an assistant message with text and tool calls is one
   * item each), which a pop of one item would split; nothing is removed then.
   */
  async popItem(): Promise<AgentInputItem | undefined> {
    const messages = this.store.get("messages") as { id: string }[];
    const newest = messages[messages.length - 1];
    if (newest === undefined) return undefined;
    // The newest message's own items (one, for a message the session wrote).
    const own = convertMessages([newest], { to: FORMAT }) as AgentInputItem[];
    if (own.length !== 1) {
      throw new StategateError(
        "INVALID_UPDATE",
        `popItem: the newest message (id ${JSON.stringify(newest.id)}) is ${own.length} items in the SDK's format (a message written in another format); popItem removes one whole message only`,
        { channel: "messages" },
      );
    }
    this.store.apply({ author: this.#controlAuthor, update: { messages: [{ remove: newest.id }] } });
    return own[0];
  }

  /** Removes every item of the session (one `{removeAll: true}` command; none when it is empty). */
  async clearSession(): Promise<void> {
    if ((this.store.get("messages") as unknown[]).length === 0) return;
    this.store.apply({ author: this.#controlAuthor, update: { messages: [{ removeAll: true }] } });
  }

  /**
   * The SDK's hook for comparing stored and expected history (`Session` in 0.20): the items with
   * their object keys sorted, because the store writes an item's fields back in its own order.
   * The items are otherwise equal to what was added.
   */
  prepareHistoryItemsForPersistenceComparison(items: AgentInputItem[]): AgentInputItem[] {
    return items.map((item) => sortedKeys(item) as AgentInputItem);
  }
}

/** What {@link CallModelInputFilterOptions.onReport} receives after each model call's filter. */
export interface InputFilterReport {
  /** The repairs made (a placeholder result inserted, an orphan result dropped, …), in input order. */
  repairs: Fix[];
  /** With a `budget`: the model view's report (tokens used, units dropped, results previewed). */
  view?: Report;
}

/** Options of {@link createCallModelInputFilter}. */
export interface CallModelInputFilterOptions {
  /**
   * Tokens for the instructions and the input together. Given: the input is projected under it
   * (the newest tool-call units that fit, kept whole; `projectMessages`). Omitted: the input is
   * only repaired, every item kept.
   */
  budget?: number;
  /** Counts a text's tokens (e.g. a real tokenizer). Default ⌈characters / 4⌉. Only with `budget`. */
  tokenizer?: (text: string) => number;
  /** Tool results over this many tokens become a head/tail preview. Only with `budget`. */
  maxToolResultTokens?: number;
  /** Drop leading units before the first user message (default true). Only with `budget`. */
  startOnUser?: boolean;
  /** Called after each filter run with what it changed. */
  onReport?: (report: InputFilterReport) => void;
}

/**
 * A `callModelInputFilter` for `run(agent, input, {callModelInputFilter})` (or
 * `RunConfig.callModelInputFilter`), `@openai/agents` 0.20: the SDK calls it before every model
 * call with `{modelData: {input, instructions}, agent, context}` and sends what it returns.
 *
 * It repairs `input` (docs/validation-and-repair.md): a `function_call` without a result gets a
 * `function_call_result` placeholder right after its assistant turn, a misplaced result moves
 * after its call, an orphan result is dropped — the Responses API refuses a `function_call`
 * without its output ("No tool output found for function call …"). With `budget`, it projects the
 * input under that many tokens as the model view does (docs/model-view.md), the instructions
 * counted in it and returned unchanged. Items it does not change are returned as the same
 * objects (the filter sets `preserveInputIdentity`, so the SDK tracks which items reached the
 * model); items it inserts are new.
 *
 * The SDK persists the new turn's input as the filter returns it (the SDK's own rule for
 * filters): an inserted placeholder answering a call of the session's history is added to the
 * session with the new input — the store then holds the repaired history, by a command in its log.
 * Keep the budget above the newest turn: a new-input item the projection drops is not persisted.
 *
 * Throws `INVALID_OPTION` for bad options (at creation), `INVALID_MESSAGE` when the SDK's input
 * is not items, and `BUDGET_TOO_SMALL` when the projection keeps no item of a non-empty input (the
 * model would get nothing but the instructions).
 * @example
 * const result = await run(agent, "Weather in Paris?", {
 *   session: new StateStoreSession({ store }),
 *   callModelInputFilter: createCallModelInputFilter({ budget: 8_000 }),
 * });
 */
export function createCallModelInputFilter(opts: CallModelInputFilterOptions = {}): CallModelInputFilter {
  if (!isObject(opts as unknown)) throw new StategateError("INVALID_OPTION", `createCallModelInputFilter takes {budget?, tokenizer?, maxToolResultTokens?, startOnUser?, onReport?}, got ${kind(opts)}`);
  const { budget, tokenizer, maxToolResultTokens, startOnUser, onReport } = opts;
  const known = new Set(["budget", "tokenizer", "maxToolResultTokens", "startOnUser", "onReport"]);
  for (const key of Object.keys(opts)) {
    if (!known.has(key)) throw new StategateError("INVALID_OPTION", `createCallModelInputFilter: unknown option \`${key}\`; expected budget, tokenizer, maxToolResultTokens, startOnUser, onReport`, { field: key });
  }
  if (budget !== undefined && !(Number.isInteger(budget) && budget > 0)) {
    throw new StategateError("INVALID_OPTION", `createCallModelInputFilter: budget must be a positive integer (tokens), got ${typeof budget === "number" ? String(budget) : kind(budget)}`, { field: "budget" });
  }
  if (budget === undefined) {
    for (const [key, v] of Object.entries({ tokenizer, maxToolResultTokens, startOnUser })) {
      if (v !== undefined) throw new StategateError("INVALID_OPTION", `createCallModelInputFilter: \`${key}\` applies to a projection: give a budget too`, { field: key });
    }
  }
  if (tokenizer !== undefined && typeof tokenizer !== "function") throw new StategateError("INVALID_OPTION", `createCallModelInputFilter: tokenizer must be a function, got ${kind(tokenizer)}`, { field: "tokenizer" });
  if (onReport !== undefined && typeof onReport !== "function") throw new StategateError("INVALID_OPTION", `createCallModelInputFilter: onReport must be a function, got ${kind(onReport)}`, { field: "onReport" });

  const filter = async ({ modelData }: CallModelInputFilterArgs<unknown>): Promise<ModelInputData> => {
    if (!isObject(modelData) || !Array.isArray(modelData.input)) {
      throw new StategateError("INVALID_MESSAGE", `callModelInputFilter: modelData.input must be an array of items, got ${isObject(modelData) ? kind(modelData.input) : kind(modelData)}`);
    }
    const { input, instructions } = modelData;
    if (budget === undefined) {
      const { messages, report } = repairMessages(input, { provider: "openai" });
      onReport?.({ repairs: report });
      return { input: messages as AgentInputItem[], instructions };
    }
    const system = typeof instructions === "string" && instructions !== "" ? instructions : undefined;
    const view = projectMessages(input, { budget, format: FORMAT, system, tokenizer, maxToolResultTokens, startOnUser });
    let out = view.messages as unknown[];
    if (system !== undefined) {
      // The first item is the instructions, which the SDK sends as the request's own field.
      const first = out[0] as { role?: unknown; content?: unknown } | undefined;
      if (first?.role !== "system" || first.content !== system) {
        throw new StategateError("INVALID_MESSAGE", "callModelInputFilter: the model view did not start with the instructions (a stategate bug: please report it)");
      }
      out = out.slice(1);
    }
    if (out.length === 0 && input.length > 0) {
      throw new StategateError(
        "BUDGET_TOO_SMALL",
        `callModelInputFilter: a budget of ${budget} tokens keeps none of the ${input.length} input items (the instructions take ${view.report.systemTokens}); the model would get no input`,
      );
    }
    onReport?.({ repairs: view.report.repairs, view: view.report });
    return { input: sameObjects(input, out), instructions };
  };
  // stategate never mutates its input (it crosses into wasm as JSON text), so the SDK may hand
  // the filter its own items and match what comes back by identity.
  return Object.assign(filter, { preserveInputIdentity: true });
}

/**
 * `out` with every item equal to an input item (keys in any order) replaced by that input
 * object, each input used once, in order: the projection writes items anew, the SDK tracks them
 * by identity.
 */
function sameObjects(input: readonly unknown[], out: readonly unknown[]): AgentInputItem[] {
  const byKey = new Map<string, unknown[]>();
  for (const item of input) {
    const key = jsonKey(item);
    const list = byKey.get(key);
    if (list) list.push(item);
    else byKey.set(key, [item]);
  }
  return out.map((item) => (byKey.get(jsonKey(item))?.shift() ?? item) as AgentInputItem);
}
