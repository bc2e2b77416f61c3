/**
 * `stategate/langchain`: stategate inside LangChain v1 agents (`createAgent`) and LangGraph graphs
 * (`StateGraph` + `MessagesAnnotation`, or any state whose `messages` channel uses LangGraph's
 * `messagesStateReducer` or `messagesDeltaReducer`).
 *
 * - {@link stategateMiddleware}: a `createMiddleware` middleware. The model sees a repaired history
 *   under a token budget (the model view, in the model request only); the graph state gets the
 *   repair written back in place — each synthetic tool result right after the AI message whose call
 *   it answers, every message id kept, without re-sending the history.
 * - {@link repairUpdate} / {@link repairNode}: the same repair as a LangGraph node's return value.
 * - {@link planRepair}: the writes themselves; {@link modelView}: the model-view messages for a
 *   model call of your own.
 *
 * Why the update can be two writes. LangGraph's `messagesStateReducer` (`@langchain/langgraph`
 * 1.7.3, `src/graph/messages_reducer.ts`) replaces a message whose id exists *in place*, appends a
 * new id *after every existing message*, and removes only with `RemoveMessage` — and a message
 * removed and re-added by id in one write is replaced in place (the re-add cancels the removal).
 * So no single write can put a new tool result before a message already in state while keeping
 * that message's id: the only single write that can is `RemoveMessage(REMOVE_ALL_MESSAGES)` followed
 * by the whole history. Two writes to the channel in one step can: the first removes the messages
 * after the insertion point, the second appends the tool results and then those messages again,
 * ids unchanged. A LangGraph node gives two writes by returning a `Command` whose `update` is a
 * list of `[channel, value]` pairs (the channel's reducer runs once per write, in order); in
 * `createAgent`, a `beforeModel` hook's result becomes one write (the middleware node merges it
 * into one state object), so the middleware writes a one-write repair from `beforeModel` and a
 * two-write one from `wrapModelCall`, whose `Command` the model node returns with its own.
 */
import { convertMessages, projectMessages, repairMessages, validateMessages, StategateError, isStategateError } from "stategate";
import type { Fix, Provider, Reason, Report } from "./api.js";
import { AIMessage, BaseMessage, RemoveMessage, coerceMessageLikeToMessage } from "@langchain/core/messages";
import type { BaseMessageLike } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";

/** How dangling tool calls are answered (the options of the core's `repairMessages`). */
export interface RepairOptions {
  /**
   * The provider whose request rules the repaired history must pass (default `"openai"`, the
   * rules every LangChain chat model's converter accepts; `"anthropic"` / `"gemini"` add theirs).
   */
  provider?: Provider;
  /**
   * Why a call found without a result has none: `"missing"` (default), `"interrupted"` (the run
   * stopped at an `interrupt()` or `interruptBefore` and a new input came instead of a resume), or
   * `"rejected"`. The synthetic tool result (status `"error"`) says it; it never claims a
   * cancellation that did not happen.
   */
  reason?: Reason;
  /** Per tool call id, overriding {@link RepairOptions.reason}. */
  reasons?: Record<string, Reason>;
  /** The synthetic result's text, with `{name}`, `{id}`, `{reason}` (at most 1,024 characters). */
  text?: string;
  /** Keep tool results that answer no call (default: removed, and reported either way). */
  keepOrphans?: boolean;
}

/** The writes to a `messages` channel that turn a graph state's messages into their repair. */
export interface RepairPlan {
  /** The repaired history: what the reducer's result is after {@link RepairPlan.writes}. */
  messages: BaseMessage[];
  /**
   * The writes to the `messages` channel, in order: none (nothing to repair), one, or two (the
   * first removes the messages after the first insertion point, the second appends the inserted
   * results and those messages again, by the same ids). Messages kept in place are not in them,
   * except those whose content the repair rewrote (replaced by id, in place).
   */
  writes: (BaseMessage | RemoveMessage)[][];
  /** Every fix of the core's repair: `{kind, action, index, toolCallId}`, `index` the input message. */
  report: Fix[];
  /** Ids of the state's messages the writes remove and do not re-add (dropped duplicates, orphans, empties). */
  removed: string[];
  /** Ids removed by the first write and re-added, unchanged, by the second (the moved suffix). */
  moved: string[];
  /** Ids of the messages the repair inserted (synthetic tool results: `stategate-repair:<AI message id>:<call id>`). */
  inserted: string[];
}

/** Options of {@link modelView}: the repair's, and the core's model-view options. */
export interface ModelViewOptions extends RepairOptions {
  /** Tokens for everything sent: the system prompt and the messages (default 8,000; tool schemas are not counted). */
  budget?: number;
  /**
   * The system prompt the model call puts first: counted in the budget, not returned (LangChain's
   * model node adds it itself). The middleware passes the request's `systemMessage.text`.
   */
  system?: string;
  /** Counts a text's tokens, 0 … 1e9 (default ⌈characters / 4⌉); pass one function to keep its cache. */
  tokenizer?: (text: string) => number;
  /** Bigger tool results become a head/tail preview with an `artifact:<message id>` reference. */
  maxToolResultTokens?: number;
  /** Drop leading units before the first human message (default true, as `trimMessages`' `startOn: "human"`). */
  startOnUser?: boolean;
}

/** What {@link modelView} returns. */
export interface LangChainModelView {
  /**
   * The messages to send, as LangChain messages: the caller's own objects wherever a message is
   * sent unchanged, new ones for inserted results and previews.
   */
  messages: BaseMessage[];
  /** The core's model-view report (tokens, `dropped`, `truncated`, `repairs`; `output` indexes the core's output, whose first entry is the system prompt when `system` was given). */
  report: Report;
  /** The fixes the repair made before projection (see {@link RepairPlan.report}). */
  repairs: Fix[];
}

/** Options of {@link stategateMiddleware}. */
export interface StategateMiddlewareOptions extends Omit<ModelViewOptions, "system"> {
  /** The middleware's name (default `"StategateMiddleware"`; names must be unique in one agent). */
  name?: string;
  /** Called with each model view before the model call (its report says what was dropped, truncated, repaired). */
  onModelView?: (view: LangChainModelView) => void;
}

const REPAIR_KEYS = ["provider", "reason", "reasons", "text", "keepOrphans"];
const VIEW_KEYS = [...REPAIR_KEYS, "budget", "system", "tokenizer", "maxToolResultTokens", "startOnUser"];
const MIDDLEWARE_KEYS = [...VIEW_KEYS.filter((k) => k !== "system"), "name", "onModelView"];
const REASONS: readonly string[] = ["missing", "interrupted", "rejected"];

function invalid(message: string, details: Record<string, unknown> = {}): StategateError {
  return new StategateError("INVALID_OPTION", message, details);
}

function seen(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return `an object (${(v as object).constructor?.name ?? "no prototype"})`;
  return typeof v === "string" ? `the string ${JSON.stringify(v.slice(0, 40))}` : `${typeof v} ${String(v)}`;
}

/** Refuses what is not an options object, and keys it does not know (a typo would be silently ignored). */
function checkKeys(what: string, opts: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (opts === undefined) return {};
  if (opts === null || typeof opts !== "object" || Array.isArray(opts)) throw invalid(`${what}: options must be an object, saw ${seen(opts)}`);
  for (const key of Object.keys(opts)) {
    if (!allowed.includes(key)) throw invalid(`${what}: unknown option "${key}" (known: ${allowed.join(", ")})`, { field: key });
  }
  const o = opts as Record<string, unknown>;
  if (o.reason !== undefined && !REASONS.includes(o.reason as string)) throw invalid(`${what}: reason must be "missing", "interrupted" or "rejected", saw ${seen(o.reason)}`, { field: "reason" });
  return o;
}

/** The state's messages, checked to be LangChain messages (anything else would be guessed at). */
function checkMessages(what: string, messages: unknown, needIds: boolean): readonly BaseMessage[] {
  if (!Array.isArray(messages)) throw new StategateError("INVALID_MESSAGE", `${what}: messages must be an array of LangChain messages, saw ${seen(messages)}`);
  const ids = new Set<string>();
  messages.forEach((m, index) => {
    if (!BaseMessage.isInstance(m)) throw new StategateError("INVALID_MESSAGE", `${what}: messages[${index}] is not a LangChain BaseMessage, saw ${seen(m)}`, { index });
    if (RemoveMessage.isInstance(m)) throw new StategateError("INVALID_MESSAGE", `${what}: messages[${index}] is a RemoveMessage: pass the state's messages (the reducer's result), not an update`, { index });
    if (!needIds) return;
    if (typeof m.id !== "string" || m.id === "") {
      throw new StategateError("INVALID_MESSAGE", `${what}: messages[${index}] has no id; the messages reducer gives every message of a graph state one, so pass the state's messages`, { index });
    }
    if (ids.has(m.id)) throw new StategateError("INVALID_MESSAGE", `${what}: messages[${index}] repeats the id "${m.id}"`, { index });
    ids.add(m.id);
  });
  return messages as BaseMessage[];
}

/** A LangChain message from a stategate output message (a LangChain dict or `{lc: 1}` form). */
function toLangChain(message: unknown): BaseMessage {
  const [dict] = convertMessages([message], { to: "langchain" }) as BaseMessageLike[];
  return coerceMessageLikeToMessage(dict);
}

/**
 * The repaired history as LangChain messages: the input objects wherever the repair kept a
 * message as it was, new ones for inserted and rewritten messages. An inserted result's id is
 * `stategate-repair:<AI message id>:<call id>` (deterministic, so repairing twice gives one id).
 */
function repairHistory(messages: readonly BaseMessage[], opts: Record<string, unknown>): { messages: BaseMessage[]; report: Fix[] } {
  const provider = (opts.provider as Provider | undefined) ?? "openai";
  let reasons = opts.reasons as Record<string, Reason> | undefined;
  if (opts.reason !== undefined && opts.reason !== "missing") {
    const byCall: Record<string, Reason> = {};
    for (const v of validateMessages(messages, { provider })) {
      if (v.rule === "MISSING_TOOL_RESULT" && v.toolCallId !== undefined) byCall[v.toolCallId] = opts.reason as Reason;
    }
    reasons = { ...byCall, ...(reasons ?? {}) };
  }
  const repaired = repairMessages(messages, { provider, reasons, text: opts.text as string | undefined, keepOrphans: opts.keepOrphans as boolean | undefined });
  if (repaired.report.length === 0) return { messages: [...messages], report: [] };
  const originals = new Set<unknown>(messages);
  const out: BaseMessage[] = [];
  const used = new Set(messages.map((m) => m.id));
  let lastAi: string | undefined;
  repaired.messages.forEach((m, index) => {
    let message: BaseMessage;
    if (originals.has(m)) message = m as BaseMessage;
    else {
      message = toLangChain(m);
      if (typeof message.id !== "string" || message.id === "") {
        const callId = (message as { tool_call_id?: unknown }).tool_call_id;
        let id = typeof callId === "string" ? `stategate-repair:${lastAi ?? index}:${callId}` : `stategate-repair:${index}`;
        if (used.has(id)) id = `${id}:${index}`;
        message.id = id;
        (message.lc_kwargs as { id?: string }).id = id;
      }
    }
    used.add(message.id);
    if (AIMessage.isInstance(message)) lastAi = message.id;
    out.push(message);
  });
  return { messages: out, report: repaired.report };
}

/**
 * The writes turning `before` (a state's messages, ids unique) into `after` under the messages
 * reducer: `after`'s longest prefix that keeps `before`'s order stays in place; every other
 * message of `before` is removed, and the rest of `after` appended — in a second write when it
 * re-adds a removed id (one write would cancel the removal).
 */
function diff(before: readonly BaseMessage[], after: readonly BaseMessage[]): Pick<RepairPlan, "writes" | "removed" | "moved" | "inserted"> {
  const index = new Map(before.map((m, i) => [m.id as string, i]));
  const seenIds = new Set<string>();
  for (const m of after) {
    if (typeof m.id !== "string" || seenIds.has(m.id)) throw new StategateError("INVALID_MESSAGE", `the repaired history has a message without a unique id (${String(m.id)})`);
    seenIds.add(m.id);
  }
  let kept = 0;
  let last = -1;
  while (kept < after.length) {
    const at = index.get(after[kept].id as string);
    if (at === undefined || at <= last) break;
    last = at;
    kept++;
  }
  const keptIds = new Set(after.slice(0, kept).map((m) => m.id as string));
  const tail = after.slice(kept);
  const gone = before.filter((m) => !keptIds.has(m.id as string)).map((m) => m.id as string);
  const replaced = after.slice(0, kept).filter((m) => before[index.get(m.id as string) as number] !== m);
  const tailIds = new Set(tail.map((m) => m.id as string));
  const moved = gone.filter((id) => tailIds.has(id));
  const removed = gone.filter((id) => !tailIds.has(id));
  const inserted = tail.filter((m) => !index.has(m.id as string)).map((m) => m.id as string);
  const removes = gone.map((id) => new RemoveMessage({ id }));
  const adds = [...replaced, ...tail];
  let writes: (BaseMessage | RemoveMessage)[][];
  if (removes.length === 0 && adds.length === 0) writes = [];
  else if (moved.length === 0) writes = [[...removes, ...adds]];
  else writes = [removes, adds];
  return { writes, removed, moved, inserted };
}

/**
 * The repair of a graph state's messages as writes to its `messages` channel: dangling tool calls
 * answered right after their AI message, misplaced results moved next to their call, duplicates
 * and orphans removed, tool content made text where the provider needs it (the core's
 * `repairMessages`, see docs/validation-and-repair.md). Every message keeps its id and object;
 * only the messages after the first insertion point are re-sent. Applying `writes` in order with
 * `messagesStateReducer` (or `messagesDeltaReducer`) gives `messages`.
 *
 * `messages` must be the state's messages (LangChain `BaseMessage`s with unique ids, as the
 * reducer leaves them): anything else is refused with `INVALID_MESSAGE` naming the index; bad
 * options with `INVALID_OPTION`.
 * @example
 * const plan = planRepair(state.messages, { reason: "interrupted" });
 * // plan.writes → [[RemoveMessage("h2")], [ToolMessage(c1, "…interrupted…"), HumanMessage("h2")]]
 */
export function planRepair(messages: readonly BaseMessage[], opts?: RepairOptions): RepairPlan {
  const o = checkKeys("planRepair", opts, REPAIR_KEYS);
  const before = checkMessages("planRepair", messages, true);
  try {
    const { messages: after, report } = repairHistory(before, o);
    if (report.length === 0) return { messages: after, writes: [], report, removed: [], moved: [], inserted: [] };
    return { messages: after, report, ...diff(before, after) };
  } catch (e) {
    throw isStategateError(e) ? e : new StategateError("INVALID_MESSAGE", `planRepair: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * What a LangGraph node returns to repair its state's messages in place: `{}` when nothing needs
 * repair, `{messages: [...]}` when one write does it, else a `Command` whose `update` is two
 * `["messages", …]` writes (see {@link planRepair}). Errors as {@link planRepair}.
 * @example
 * graph.addNode("repair", (state) => repairUpdate(state.messages, { reason: "interrupted" }))
 */
export function repairUpdate(messages: readonly BaseMessage[], opts?: RepairOptions): Command | { messages: (BaseMessage | RemoveMessage)[] } | Record<string, never> {
  const plan = planRepair(messages, opts);
  if (plan.writes.length === 0) return {};
  if (plan.writes.length === 1) return { messages: plan.writes[0] };
  return new Command({ update: plan.writes.map((w) => ["messages", w] as [string, unknown]) });
}

/**
 * A LangGraph node that repairs the state's messages in place ({@link repairUpdate}); put it before
 * the node that calls the model: `.addNode("repair", repairNode()).addEdge(START, "repair")`.
 * Options are checked now (`INVALID_OPTION`).
 */
export function repairNode(opts?: RepairOptions): (state: { messages: BaseMessage[] }) => ReturnType<typeof repairUpdate> {
  const o = checkKeys("repairNode", opts, REPAIR_KEYS);
  repairMessages([], { provider: o.provider as Provider | undefined, text: o.text as string | undefined });
  return (state) => repairUpdate(state?.messages, o as RepairOptions);
}

/**
 * The model view of a history for a model call: repaired as {@link planRepair} does, then the
 * newest tool-call units that fit `budget` tokens (units kept whole, big tool results previewed;
 * the core's `projectMessages`, docs/model-view.md), as LangChain messages. The graph state is
 * not touched: trimming it would lose the history, so the view belongs in the model request.
 * Messages without ids are taken (a request's messages may come from other middleware).
 * Throws `INVALID_MESSAGE`, `INVALID_OPTION`, `BUDGET_TOO_SMALL` (the system prompt alone exceeds the budget).
 * @example
 * const { messages } = modelView(state.messages, { budget: 4000, system: SYSTEM });
 * const reply = await model.invoke([new SystemMessage(SYSTEM), ...messages]);
 */
export function modelView(messages: readonly BaseMessage[], opts?: ModelViewOptions): LangChainModelView {
  const o = checkKeys("modelView", opts, VIEW_KEYS);
  const input = checkMessages("modelView", messages, false);
  const { messages: repaired, report: repairs } = repairHistory(input, o);
  const system = o.system === "" ? undefined : (o.system as string | undefined);
  const view = projectMessages(repaired, {
    format: "langchain",
    budget: o.budget as number | undefined,
    system,
    tokenizer: o.tokenizer as ((text: string) => number) | undefined,
    maxToolResultTokens: o.maxToolResultTokens as number | undefined,
    startOnUser: o.startOnUser as boolean | undefined,
  });
  const out = view.messages as Array<{ id?: unknown }>;
  const first = system === undefined ? 0 : 1;
  const truncated = new Set(view.report.truncated.map((t) => t.id));
  const byId = new Map<string, BaseMessage>();
  const duplicate = new Set<string>();
  for (const m of repaired) {
    if (typeof m.id !== "string" || m.id === "") continue;
    if (byId.has(m.id)) duplicate.add(m.id);
    byId.set(m.id, m);
  }
  const result = out.slice(first).map((m) => {
    const id = typeof m.id === "string" ? m.id : undefined;
    const own = id !== undefined && !duplicate.has(id) && !truncated.has(id) ? byId.get(id) : undefined;
    return own ?? toLangChain(m);
  });
  return { messages: result, report: view.report, repairs };
}

/**
 * A LangChain v1 middleware (`createMiddleware`, `langchain` ≥ 1.5) for `createAgent`:
 *
 * - `beforeModel`: when the state's repair is one write of the messages reducer (results for
 *   calls at the end of the history, duplicates and orphans removed, content rewritten in
 *   place), returns it as the hook's update — `{messages: [...]}` with only those messages.
 * - `wrapModelCall`: the model gets {@link modelView} of the request's messages (repaired, under
 *   `budget`, the system prompt counted); the state is never trimmed. When the repair needs two
 *   writes (a result inserted before messages already in state — an `interrupt()` left
 *   unanswered and a new human message on the same thread), it returns a `Command` the model
 *   node applies after its own write of the reply: the messages after the insertion point and
 *   the reply are removed, then the results, those messages and the reply re-added, ids kept.
 *
 * When the model step returns no `AIMessage` (a structured response, or another middleware's
 * `Command`), the state is left unrepaired for that step; the model still saw the repaired view.
 * When the model node replaces the reply by its "Sorry, need more steps…" message (the
 * `remainingSteps` guard near the recursion limit), a two-write repair of that step re-adds the
 * model's original reply over it (the middleware sees the reply before the node replaces it).
 * Options are checked now (`INVALID_OPTION`, including unknown keys).
 * @example
 * const agent = createAgent({ model, tools, checkpointer, middleware: [stategateMiddleware({ budget: 4000, reason: "interrupted" })] });
 */
export function stategateMiddleware(opts: StategateMiddlewareOptions = {}) {
  const o = checkKeys("stategateMiddleware", opts, MIDDLEWARE_KEYS);
  const name = o.name ?? "StategateMiddleware";
  if (typeof name !== "string" || name === "") throw invalid(`stategateMiddleware: name must be a non-empty string, saw ${seen(name)}`, { field: "name" });
  const onModelView = o.onModelView;
  if (onModelView !== undefined && typeof onModelView !== "function") throw invalid(`stategateMiddleware: onModelView must be a function, saw ${seen(onModelView)}`, { field: "onModelView" });
  const repair: RepairOptions = {};
  for (const k of REPAIR_KEYS) if (o[k] !== undefined) (repair as Record<string, unknown>)[k] = o[k];
  const view: ModelViewOptions = { ...repair };
  for (const k of ["budget", "tokenizer", "maxToolResultTokens", "startOnUser"]) if (o[k] !== undefined) (view as Record<string, unknown>)[k] = o[k];
  // The core checks its own options: refuse a bad budget or text now, not at the first model call.
  modelView([], view);
  return createMiddleware({
    name,
    beforeModel: (state: { messages: BaseMessage[] }) => {
      const plan = planRepair(state.messages, repair);
      if (plan.writes.length !== 1) return undefined;
      return { messages: plan.writes[0] as BaseMessage[] };
    },
    wrapModelCall: async (request, handler) => {
      const system = request.systemMessage?.text;
      const v = modelView(request.messages, { ...view, system: system === "" ? undefined : system });
      onModelView?.(v);
      const state = request.state.messages as BaseMessage[];
      const plan = planRepair(state, repair);
      const response = await handler({ ...request, messages: v.messages });
      if (plan.writes.length === 0 || !AIMessage.isInstance(response)) return response;
      if (typeof response.id !== "string" || response.id === "") {
        const id = `stategate-reply:${globalThis.crypto.randomUUID()}`;
        response.id = id;
        (response.lc_kwargs as { id?: string }).id = id;
      }
      // The model node writes `response` first (appended after the state); these writes follow it.
      const { writes } = diff([...state, response], [...plan.messages, response]);
      return new Command({ update: writes.map((w) => ["messages", w] as [string, unknown]) });
    },
  });
}
