/**
 * `stategate/ai-sdk`: a {@link StateStore} inside a Vercel AI SDK 6 agent loop.
 *
 * - {@link stategateAgent} — spread into `generateText` / `streamText`: `messages` (the store's
 *   history), `prepareStep` (each step's prompt is the store's model view under a token budget,
 *   its dangling tool calls answered first) and `onStepFinish` (each step's new messages, their
 *   authors and the step's usage recorded in the store, once).
 * - {@link stepPrompt} — the `{system, messages}` of one step, for a `prepareStep` of your own.
 * - {@link toUIMessages} / {@link fromUIMessages} — the store as `useChat` state and back.
 *
 * The AI SDK contract this follows (ai 6.0, `generateText` / `streamText` in `ai/dist`): a
 * `prepareStep` result's `messages` replace the step's whole message list and its `system`
 * replaces the call's `system`, for that step only (the next step starts again from the call's
 * messages plus the response messages so far); `step.response.messages` holds every response
 * message of the call so far (cumulative), not only the step's; errors thrown by `onStepFinish`
 * are caught and dropped by the AI SDK (`notify`), so a refused recording is kept and thrown by
 * the next `prepareStep` (see {@link StategateAgent.assertRecorded}).
 *
 * Values from the package come through `"stategate"` itself; `ai` is imported for types only
 * (the adapter needs no `ai` code at run time).
 */
import { StategateError, decodeMessages, providerOf } from "stategate";
import type { Applied, Command, Message, ModelView, ModelViewOptions, OnPendingApproval, Reason, StateStore } from "./api.js";
import type { LanguageModelUsage, ModelMessage, StepResult, SystemModelMessage, UIMessage } from "ai";

/** Who the store records as the author of each kind of message (labels checked against channel `writers`). */
export interface Authors {
  /** Assistant messages (model output). Default `"model"`. */
  model?: string;
  /** Tool results, from the tool's name and the call id. Default `` `tool:${toolName}` `` (the call id goes in the command's `correlationId`). */
  tool?: (toolName: string, toolCallId: string) => string;
  /** User messages passed to `generateText` beyond the store's history. Default `"user"`. */
  user?: string;
  /** System messages passed to `generateText` beyond the store's history. Default `"system"`. */
  system?: string;
  /** The command answering dangling tool calls before a step. Default `"repair"`. */
  repair?: string;
  /** Approval decisions (`tool-approval-response` parts) passed to `generateText`. Default `"user"`: a person decided. */
  approval?: string;
}

/**
 * Options of {@link stategateAgent} and {@link stepPrompt}: the model view's options (the same
 * as `store.modelView`, without `format`: the AI SDK takes `"ai-sdk"` `ModelMessage`s) plus how
 * the store records.
 */
export interface AgentOptions extends Omit<ModelViewOptions, "format"> {
  /**
   * Why the store's dangling tool calls have no result, by call id (`"missing"` by default,
   * `"interrupted"`, `"rejected"`): the text of the synthetic results ({@link RepairOptions}).
   */
  reasons?: Record<string, Reason>;
  /**
   * What answers a call whose approval was still pending when a new user message came: an error
   * result saying the approval was not given (`"interrupt"`, default), its denial (`"deny"`), or
   * a refusal to call the model (`"error"`: `prepareStep` throws `APPROVAL_PENDING`).
   */
  onPendingApproval?: OnPendingApproval;
  /**
   * Whether the synthetic results answering dangling tool calls are written into the store (one
   * `repair` command before the step, so the store and its log hold what the model was told).
   * Default `true`. With `false` the store keeps the calls unanswered; the model view answers
   * them in what it sends either way (a provider never sees a call without its result).
   */
  recordRepairs?: boolean;
  /** The authors of what the adapter records. */
  authors?: Authors;
  /** Called with each step's model view (its `report`: tokens, dropped, truncated, repairs). */
  onView?: (view: ModelView, stepNumber: number) => void;
}

/** One step's prompt, as a `prepareStep` returns it, with the model view it came from. */
export interface StepPrompt {
  /** The model view's leading system messages (rules, the history's system message, "# Current state"); `[]` when it has none. */
  system: SystemModelMessage[];
  /** The rest of the model view: the budgeted, repaired history as AI SDK `ModelMessage`s. */
  messages: ModelMessage[];
  /** The model view itself (`report`: budget, used, dropped, truncated, repairs, …). */
  view: ModelView;
}

/**
 * What {@link stategateAgent} returns: spread it into `generateText` / `streamText` (or pass the
 * members you want).
 */
export interface StategateAgent {
  /**
   * The store's history as AI SDK `ModelMessage`s (its leading system messages left out: they
   * reach the model through `prepareStep`'s `system`). Read when the agent is spread, so
   * `generateText({...agent})` gets the history as it is then. Every step's prompt comes from
   * `prepareStep`; these are what the AI SDK hands tools (`execute`'s `messages`) and step 0's
   * `prepareStep`. Throws a recording failure not yet thrown (see {@link assertRecorded}).
   */
  readonly messages: ModelMessage[];
  /**
   * The AI SDK `prepareStep`: returns `{system, messages}` from {@link stepPrompt}. At step 0,
   * messages given to `generateText` beyond the store's history (`messages: [...agent.messages,
   * newUserMessage]`) are recorded first; messages that are not the store's history are refused
   * (`INVALID_OPTION`, nothing recorded). Throws the previous step's recording failure, and
   * `INVALID_OPTION` when the previous step was not recorded (`onStepFinish` not passed).
   */
  prepareStep: (options: PrepareStepOptions) => Promise<{ system: SystemModelMessage[]; messages: ModelMessage[] }>;
  /**
   * The AI SDK `onStepFinish`: records the step's new response messages (those after the ones
   * already recorded in this call: `response.messages` is cumulative), assistant messages by
   * `authors.model`, each tool result by `authors.tool` with the call id as `correlationId`, and
   * the step's `usage` on its assistant message (the store's budget counts it as tokens), as one
   * superstep (`store.applyBatch`): all or nothing. Steps of one call after the first are written
   * with the first assistant message's id plus `#k`, so `toUIMessages` shows one assistant
   * message per call, as `useChat` does. A refusal (e.g. `BUDGET_EXCEEDED`, `RUN_ENDED`) is kept
   * and thrown by the next `prepareStep`, `messages` or {@link assertRecorded} (the AI SDK drops
   * errors thrown by `onStepFinish`); the promise it returns never rejects.
   */
  onStepFinish: (step: StepResult<any>) => Promise<void>;
  /**
   * Throws the recording failure of the last call, if one is not yet thrown (then clears it).
   * Call it after `generateText` returns when its last step must be in the store: a refusal of
   * the last step has no next `prepareStep` to surface it.
   */
  assertRecorded(): void;
}

/**
 * What the adapter's `prepareStep` reads of the AI SDK's `prepareStep` options (the AI SDK
 * passes more: `steps`, `model`, `experimental_context`). Typed this narrowly, the function is
 * a `PrepareStepFunction` for any tool set, and its result can be spread into your own:
 * `prepareStep: async (o) => ({ ...(await agent.prepareStep(o)), activeTools: ["weather"] })`.
 */
export interface PrepareStepOptions {
  /** The step about to run (0 first). */
  stepNumber: number;
  /** The messages the AI SDK would send: the call's messages, then the response messages so far. */
  messages: ModelMessage[];
}

/** What {@link fromUIMessages} did. */
export interface UIMessagesApplied {
  /** The command that wrote the changes, or `null` when the store already held the `useChat` state (no command, no event). */
  applied: Applied | null;
  /** Ids of the messages added (a new user message, a tool result a client-side tool produced, …). */
  added: string[];
  /** Ids of stored messages replaced by the `useChat` version (an edited message, a real result over a placeholder). */
  replaced: string[];
  /** Ids of stored messages removed (only with `mirror`). */
  removed: string[];
  /** How many of the `useChat` state's messages the store already held as they are. */
  unchanged: number;
}

/** Options of {@link fromUIMessages}. */
export interface FromUIMessagesOptions {
  /** The command's author. Default `"ui"`. */
  author?: string;
  /**
   * The `useChat` state is the whole conversation: stored messages it does not hold are removed
   * (after `regenerate()`, or a message edited and re-sent, which drop what followed). Default
   * `false`: they are kept, so a client that sends only its new message (`prepareSendMessagesRequest`)
   * leaves the history alone.
   */
  mirror?: boolean;
  /** The store's version the caller read (`expectedVersion` of the command): `VERSION_CONFLICT` if it moved. */
  expectedVersion?: number;
}

// --- errors and option checks ----------------------------------------------------------------

function refuse(message: string, details: Record<string, unknown> = {}): never {
  throw new StategateError("INVALID_OPTION", message, details as never);
}

function what(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v).slice(0, 40)}`;
}

function isStore(store: unknown): store is StateStore {
  return typeof store === "object" && store !== null && typeof (store as StateStore).modelView === "function" && typeof (store as StateStore).applyBatch === "function";
}

function checkStore(store: unknown, fn: string): asserts store is StateStore {
  if (!isStore(store)) refuse(`${fn}: the first argument must be a StateStore, got ${what(store)}`);
}

const VIEW_KEYS = ["budget", "system", "maxToolResultTokens", "startOnUser", "redact", "sections", "agent", "contextPrefix", "tokenizer"] as const;
const AGENT_KEYS = new Set<string>([...VIEW_KEYS, "reasons", "onPendingApproval", "recordRepairs", "authors", "onView"]);
const PENDING_POLICIES: readonly OnPendingApproval[] = ["interrupt", "deny", "error"];
const AUTHOR_KEYS = new Set(["model", "tool", "user", "system", "repair", "approval"]);

interface Resolved {
  view: ModelViewOptions;
  reasons?: Record<string, Reason>;
  onPendingApproval?: OnPendingApproval;
  recordRepairs: boolean;
  onView?: (view: ModelView, stepNumber: number) => void;
  model: string;
  tool: (toolName: string, toolCallId: string) => string;
  user: string;
  system: string;
  repair: string;
  approval: string;
}

function resolve(opts: unknown, fn: string): Resolved {
  if (opts === undefined) opts = {};
  if (typeof opts !== "object" || opts === null || Array.isArray(opts)) refuse(`${fn}: options must be an object, got ${what(opts)}`);
  const o = opts as AgentOptions & Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (k === "format") refuse(`${fn}: \`format\` is not an option here: the AI SDK takes "ai-sdk" ModelMessages (got format ${JSON.stringify(o.format)})`, { field: "format" });
    if (!AGENT_KEYS.has(k)) refuse(`${fn}: unknown option \`${k}\` (options: ${[...AGENT_KEYS].join(", ")})`, { field: k });
  }
  const a = (o.authors ?? {}) as Authors & Record<string, unknown>;
  if (typeof a !== "object" || a === null || Array.isArray(a)) refuse(`${fn}: \`authors\` must be an object, got ${what(a)}`, { field: "authors" });
  for (const k of Object.keys(a)) {
    if (!AUTHOR_KEYS.has(k)) refuse(`${fn}: unknown author \`${k}\` (authors: ${[...AUTHOR_KEYS].join(", ")})`, { field: `authors.${k}` });
    const v = a[k];
    if (k === "tool" ? typeof v !== "function" : typeof v !== "string" || v === "") {
      refuse(`${fn}: \`authors.${k}\` must be ${k === "tool" ? "a function (toolName, toolCallId) => string" : "a non-empty string"}, got ${what(v)}`, { field: `authors.${k}` });
    }
  }
  if (o.recordRepairs !== undefined && typeof o.recordRepairs !== "boolean") refuse(`${fn}: \`recordRepairs\` must be a boolean, got ${what(o.recordRepairs)}`, { field: "recordRepairs" });
  if (o.onView !== undefined && typeof o.onView !== "function") refuse(`${fn}: \`onView\` must be a function, got ${what(o.onView)}`, { field: "onView" });
  if (o.reasons !== undefined && (typeof o.reasons !== "object" || o.reasons === null || Array.isArray(o.reasons))) refuse(`${fn}: \`reasons\` must be an object {toolCallId: reason}, got ${what(o.reasons)}`, { field: "reasons" });
  if (o.onPendingApproval !== undefined && !PENDING_POLICIES.includes(o.onPendingApproval as OnPendingApproval)) refuse(`${fn}: \`onPendingApproval\` must be "interrupt", "deny" or "error", got ${what(o.onPendingApproval)}`, { field: "onPendingApproval" });
  const view: ModelViewOptions = { format: "ai-sdk" };
  for (const k of VIEW_KEYS) if (o[k] !== undefined) (view as Record<string, unknown>)[k] = o[k];
  const tool = a.tool ?? ((name: string) => `tool:${name}`);
  return {
    view,
    reasons: o.reasons,
    onPendingApproval: o.onPendingApproval,
    recordRepairs: o.recordRepairs ?? true,
    onView: o.onView,
    model: a.model ?? "model",
    tool: (name, id) => {
      const author = tool(name, id);
      if (typeof author !== "string" || author === "") refuse(`authors.tool returned ${what(author)} for tool ${JSON.stringify(name)}: an author is a non-empty string`, { field: "authors.tool" });
      return author;
    },
    user: a.user ?? "user",
    system: a.system ?? "system",
    repair: a.repair ?? "repair",
    approval: a.approval ?? "user",
  };
}

// --- JSON the core can take ------------------------------------------------------------------

function base64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/**
 * A message the AI SDK built, as JSON the core reads: binary data (`Uint8Array`, `ArrayBuffer`,
 * Node `Buffer`) as base64 and a `URL` as its text — the forms `DataContent` and `URL` parts take
 * as strings in the AI SDK's own schema — and `undefined` members left out. Anything else JSON
 * cannot carry is refused by the core.
 */
function jsonSafe(v: unknown): unknown {
  if (v instanceof Uint8Array) return base64(v);
  if (v instanceof ArrayBuffer) return base64(new Uint8Array(v));
  if (typeof URL !== "undefined" && v instanceof URL) return v.href;
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = jsonSafe(x);
    return out;
  }
  return v;
}

/** JSON text with object keys sorted: equal for equal values whatever the key order. */
function stable(v: unknown): string {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x !== "object" || x === null || Array.isArray(x)) return x;
    return Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]));
  });
}

// --- the step's prompt -------------------------------------------------------------------------

/**
 * One step's prompt from the store: its dangling tool calls answered first (recorded by
 * `store.repair` unless `recordRepairs: false`), then `store.modelView({...opts, format:
 * "ai-sdk"})` — the system rules, the history's leading system message and the state sections
 * under the budget, then the most recent tool-call units that fit, repaired so the sequence
 * passes the provider rules (every call answered, each result right after its call). The view's
 * leading system messages become `system` (the AI SDK warns about system messages in `messages`
 * and its providers want them first); a system message later in the history stays in place.
 *
 * Throws `INVALID_OPTION` (bad options), `BUDGET_TOO_SMALL`, `PRIVATE_LEAK` (from the model
 * view); refused options leave the store as it was.
 * @example
 * const { system, messages } = stepPrompt(store, { budget: 8_000, system: "You are a weather assistant." });
 * await generateText({ model, system, messages });
 */
export function stepPrompt(store: StateStore, opts?: AgentOptions): StepPrompt {
  checkStore(store, "stepPrompt");
  return prompt(store, resolve(opts, "stepPrompt"), 0);
}

function prompt(store: StateStore, o: Resolved, stepNumber: number): StepPrompt {
  let view = store.modelView(o.view); // first: a view the options cannot give (BUDGET_TOO_SMALL, …) writes no repair
  if (o.recordRepairs && store.danglingToolCalls().length > 0) {
    store.repair({ provider: providerOf("ai-sdk"), author: o.repair, ...(o.reasons ? { reasons: o.reasons } : {}), ...(o.onPendingApproval ? { onPendingApproval: o.onPendingApproval } : {}) });
    view = store.modelView(o.view);
  }
  const all = (view.messages as ModelMessage[]).map(withoutUsage);
  let k = 0;
  while (k < all.length && all[k].role === "system") k++;
  o.onView?.(view, stepNumber);
  return { system: all.slice(0, k) as SystemModelMessage[], messages: all.slice(k), view };
}

// --- recording ---------------------------------------------------------------------------------

/** The AI SDK usage fields the core reads (numbers only; `raw` and `undefined` left out). */
function usageOf(u: unknown): Record<string, unknown> | undefined {
  if (u === undefined || u === null) return undefined;
  if (typeof u !== "object" || Array.isArray(u)) refuse(`onStepFinish: step.usage must be an AI SDK LanguageModelUsage object, got ${what(u)}`, { field: "usage" });
  const usage = u as Partial<LanguageModelUsage>;
  const num = (v: unknown, field: string) => {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) refuse(`onStepFinish: step.usage.${field} must be a whole number of tokens, got ${what(v)}`, { field: `usage.${field}` });
    return v;
  };
  const out: Record<string, unknown> = {};
  const set = (k: string, v: unknown) => v !== undefined && (out[k] = v);
  set("inputTokens", num(usage.inputTokens, "inputTokens"));
  set("outputTokens", num(usage.outputTokens, "outputTokens"));
  set("totalTokens", num(usage.totalTokens, "totalTokens"));
  set("cachedInputTokens", num(usage.cachedInputTokens, "cachedInputTokens"));
  set("reasoningTokens", num(usage.reasoningTokens, "reasoningTokens"));
  for (const [group, fields] of [["inputTokenDetails", ["noCacheTokens", "cacheReadTokens", "cacheWriteTokens"]], ["outputTokenDetails", ["textTokens", "reasoningTokens"]]] as const) {
    const g = (usage as Record<string, unknown>)[group];
    if (g === undefined || g === null) continue;
    if (typeof g !== "object") refuse(`onStepFinish: step.usage.${group} must be an object, got ${what(g)}`, { field: `usage.${group}` });
    const d: Record<string, unknown> = {};
    for (const f of fields) {
      const v = num((g as Record<string, unknown>)[f], `${group}.${f}`);
      if (v !== undefined) d[f] = v;
    }
    if (Object.keys(d).length) out[group] = d;
  }
  return out.inputTokens === undefined && out.outputTokens === undefined ? undefined : out;
}

/**
 * The commands recording `messages` (AI SDK `ModelMessage`s, in order) as one superstep: one per
 * assistant, user or system message, one per tool result (a tool message with several results
 * is split, each result under its tool's author). `idOf(k)` gives the k-th assistant message's
 * id (or none: the store assigns it); `usage` goes on the first assistant message.
 */
function commands(messages: readonly unknown[], o: Resolved, usage: Record<string, unknown> | undefined, idOf: (k: number) => string | undefined, where: string): { commands: Command[]; assistants: number[] } {
  const out: Command[] = [];
  const assistants: number[] = [];
  let a = 0;
  messages.forEach((raw, index) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new StategateError("INVALID_MESSAGE", `${where}: message ${index} is ${what(raw)}, not an AI SDK ModelMessage`, { index });
    const m = jsonSafe(raw) as Record<string, unknown>;
    switch (m.role) {
      case "assistant": {
        const id = idOf(a++);
        const msg = { ...m, ...(id ? { id } : {}), ...(usage && assistants.length === 0 ? { usage } : {}) };
        assistants.push(out.length);
        out.push({ author: o.model, update: { messages: [msg] } });
        return;
      }
      case "tool": {
        const parts = Array.isArray(m.content) ? (m.content as Record<string, unknown>[]) : [];
        const known = (p: Record<string, unknown>) => p && (p.type === "tool-result" || p.type === "tool-approval-response");
        if (parts.length === 0 || !parts.every(known)) {
          // Not tool results and approval decisions only: one command, the core decides.
          out.push({ author: o.model, update: { messages: [m] } });
          return;
        }
        // Each part its own command, in order: a decision by the person who decided, a result
        // by its tool (the call id as the correlation).
        for (const p of parts) {
          if (p.type === "tool-approval-response") out.push({ author: o.approval, update: { messages: [{ ...m, content: [p] }] } });
          else out.push({ author: o.tool(String(p.toolName), String(p.toolCallId)), correlationId: String(p.toolCallId), update: { messages: [{ ...m, content: [p] }] } });
        }
        return;
      }
      case "user":
        out.push({ author: o.user, update: { messages: [m] } });
        return;
      case "system":
        out.push({ author: o.system, update: { messages: [m] } });
        return;
      default:
        throw new StategateError("INVALID_MESSAGE", `${where}: message ${index} has role ${JSON.stringify(m.role)}; an AI SDK ModelMessage is system, user, assistant or tool`, { index });
    }
  });
  if (usage && assistants.length === 0) {
    // A step that wrote no assistant message (empty output) still used tokens.
    const tokens = ((usage.inputTokens as number | undefined) ?? 0) + ((usage.outputTokens as number | undefined) ?? 0);
    if (tokens > 0) out.push({ author: o.model, update: { budget: { used: { tokens } } } });
  }
  return { commands: out, assistants };
}

/**
 * An assistant ModelMessage without the `usage` the adapter recorded on it: the core reads an
 * AI SDK `usage` there (docs/store.md, budget) and, as it keeps every field of a format it reads,
 * writes it back in `"ai-sdk"` output; `ModelMessage` has no such field (the AI SDK's schema
 * strips it), so it is not sent.
 */
function withoutUsage(m: ModelMessage): ModelMessage {
  if (m.role !== "assistant" || !("usage" in m)) return m;
  const { usage: _u, ...rest } = m as ModelMessage & { usage?: unknown };
  return rest as ModelMessage;
}

/** The store's history as the AI SDK `messages` of a call: `ai-sdk` ModelMessages, leading system messages left out. */
function history(store: StateStore): ModelMessage[] {
  const all = (store.messages("ai-sdk") as ModelMessage[]).map(withoutUsage);
  let k = 0;
  while (k < all.length && all[k].role === "system") k++;
  return all.slice(k);
}

/**
 * An AI SDK agent loop on a store: spread the result into `generateText` / `streamText`.
 *
 * Each step's prompt is the store's model view under `opts.budget` (with `opts.system` first),
 * repaired first; each finished step's new messages, authors and usage are recorded in the store.
 * `opts` are the model view's options (`budget`, `system`, `maxToolResultTokens`, `redact`,
 * `sections`, `tokenizer`, …) plus `reasons`, `recordRepairs`, `authors`, `onView`.
 *
 * Pass the system prompt here, not to `generateText`: `prepareStep`'s `system` replaces the
 * call's at every step. One call at a time per agent (a store is one thread). Tool approvals
 * (`needsApproval`): pass the decision as the AI SDK documents it, a `tool-approval-response`
 * tool message after `agent.messages`; it is recorded by `authors.approval`, and the results the
 * AI SDK then writes before the first model call are recorded once (docs/adapters.md). Throws
 * `INVALID_OPTION` for bad options.
 * @example
 * const agent = stategateAgent(store, { budget: 8_000, system: "You are a weather assistant." });
 * store.apply({ author: "user", update: { messages: [{ role: "user", content: "Weather in Paris?" }] } });
 * const result = await generateText({ model, tools, stopWhen: stepCountIs(5), ...agent });
 */
export function stategateAgent(store: StateStore, opts?: AgentOptions): StategateAgent {
  checkStore(store, "stategateAgent");
  const o = resolve(opts, "stategateAgent");
  let failure: unknown; // a recording refused inside onStepFinish, not yet thrown
  let recordedStep = -1; // the last step of the current call recorded
  let seen = 0; // response messages of the current call already recorded
  let turnId: string | undefined; // the id of the current call's first assistant message
  let steps = 0; // assistant messages written in the current call
  let intaken: unknown[] = []; // the messages step 0 recorded beyond the store's history

  const rethrow = () => {
    if (failure !== undefined) {
      const e = failure;
      failure = undefined;
      throw e;
    }
  };

  const prepareStep = async (options: PrepareStepOptions) => {
    rethrow();
    const { stepNumber, messages } = options ?? ({} as never);
    if (!Number.isInteger(stepNumber) || stepNumber < 0) refuse(`prepareStep: options.stepNumber must be a step number, got ${what(stepNumber)}`, { field: "stepNumber" });
    if (stepNumber === 0) {
      recordedStep = -1;
      seen = 0;
      turnId = undefined;
      steps = 0;
      intaken = [];
      intake(messages);
    } else if (recordedStep !== stepNumber - 1) {
      refuse(`prepareStep: step ${stepNumber - 1} was not recorded in the store: pass the agent's onStepFinish to generateText / streamText too (spread the agent)`, { field: "onStepFinish" });
    }
    const { system, messages: sent } = prompt(store, o, stepNumber);
    return { system, messages: sent };
  };

  /** Step 0: the call's messages must be the store's history, maybe followed by new ones (recorded). */
  const intake = (given: unknown) => {
    if (!Array.isArray(given)) refuse(`prepareStep: options.messages must be the call's ModelMessage array, got ${what(given)}`, { field: "messages" });
    const known = history(store);
    if (given.length < known.length) {
      refuse(`prepareStep: generateText was given ${given.length} messages but the store's history holds ${known.length}: pass the agent's messages (spread the agent), followed by any new ones`, { field: "messages" });
    }
    for (let i = 0; i < known.length; i++) {
      if (stable(jsonSafe(given[i])) !== stable(known[i])) {
        refuse(
          `prepareStep: message ${i} given to generateText (role ${JSON.stringify((given[i] as { role?: unknown })?.role)}) is not the store's message ${i} (role ${JSON.stringify(known[i].role)}): pass the agent's messages (spread the agent), followed by any new ones`,
          { index: i, field: "messages" },
        );
      }
    }
    const fresh = given.slice(known.length);
    intaken = fresh.map(jsonSafe);
    if (fresh.length === 0) return;
    const { commands: cmds } = commands(fresh, o, undefined, () => undefined, "generateText messages");
    store.applyBatch(cmds);
  };

  /**
   * How many of step 0's response messages step 0's `prepareStep` already recorded: when the
   * call's messages end with approval decisions, the AI SDK runs the approved tools (and writes
   * the denials) before the first model call and hands those results to `prepareStep` after the
   * call's messages — and again at the head of `response.messages`. They are the longest head of
   * `response.messages` that is a tail of what the intake recorded.
   */
  const alreadyIntaken = (all: readonly unknown[]): number => {
    for (let k = Math.min(all.length, intaken.length); k > 0; k--) {
      const tail = intaken.slice(intaken.length - k);
      if (all.slice(0, k).every((m, i) => stable(jsonSafe(m)) === stable(tail[i]))) return k;
    }
    return 0;
  };

  const record = (step: StepResult<any>) => {
    if (typeof step !== "object" || step === null) refuse(`onStepFinish: the step must be an AI SDK StepResult, got ${what(step)}`);
    const { stepNumber } = step as { stepNumber?: unknown };
    const all = (step as { response?: { messages?: unknown } }).response?.messages;
    if (!Array.isArray(all)) refuse(`onStepFinish: step.response.messages must be an array, got ${what(all)}`, { field: "response.messages" });
    if (typeof stepNumber !== "number" || !Number.isInteger(stepNumber) || stepNumber < 0) refuse(`onStepFinish: step.stepNumber must be a step number, got ${what(stepNumber)}`, { field: "stepNumber" });
    if (stepNumber === 0) {
      seen = alreadyIntaken(all);
      turnId = undefined;
      steps = 0;
    } else if (recordedStep !== stepNumber - 1) {
      refuse(`onStepFinish: step ${stepNumber} follows step ${recordedStep} of this call: steps are recorded in order, one call at a time per agent`, { field: "stepNumber" });
    }
    if (all.length < seen) refuse(`onStepFinish: step ${stepNumber} has ${all.length} response messages, fewer than the ${seen} already recorded: AI SDK 6 response.messages are cumulative`, { field: "response.messages" });
    const usage = usageOf((step as { usage?: unknown }).usage);
    const base = turnId;
    const first = steps;
    const { commands: cmds, assistants } = commands(all.slice(seen), o, usage, (k) => (base === undefined && first + k === 0 ? undefined : `${base ?? "?"}#${first + k}`), "onStepFinish");
    if (base === undefined && assistants.length > 1) {
      // Several assistant messages in the first step (not what the AI SDK writes): let the store name each.
      for (const i of assistants.slice(1)) delete ((cmds[i].update.messages as Record<string, unknown>[])[0] as Record<string, unknown>).id;
    }
    if (cmds.length > 0) {
      const applied = store.applyBatch(cmds);
      if (base === undefined && assistants.length > 0) turnId = applied.ids[assistants[0]][0];
    }
    steps += assistants.length;
    seen = all.length;
    recordedStep = stepNumber;
  };

  return {
    get messages() {
      rethrow();
      return history(store);
    },
    prepareStep,
    onStepFinish: async (step) => {
      try {
        record(step);
      } catch (e) {
        failure = e;
      }
    },
    assertRecorded: rethrow,
  };
}

// --- useChat state ---------------------------------------------------------------------------

/**
 * The store's messages as AI SDK `UIMessage`s (`useChat`'s `messages`, v5 / v6): the store's
 * `"ui"` encoding (`store.messages("ui")`), with each tool part's `output` the value the tool
 * returned when the store holds it as an AI SDK `json` output (the core writes such an output as
 * its JSON text). The assistant steps of one `generateText` / `streamText` call recorded by
 * {@link stategateAgent} form one UIMessage with a `step-start` part per step, as `useChat`
 * shows them. Pass it as `useChat({messages})`, or validate it with the AI SDK's
 * `validateUIMessages`. Throws `INVALID_OPTION` when `store` is not a store.
 */
export function toUIMessages(store: StateStore): UIMessage[] {
  checkStore(store, "toUIMessages");
  const ui = store.messages("ui") as UIMessage[];
  // The values behind the JSON text of AI SDK json outputs, by call id, in order.
  const values = new Map<string, unknown[]>();
  const texts = new Map<string, string[]>();
  for (const m of store.get("messages") as Message[]) {
    if (m.role !== "tool" || typeof m.tool_call_id !== "string") continue;
    const json = (m as { extra?: Record<string, unknown> }).extra?.$json;
    const list = values.get(m.tool_call_id) ?? [];
    const tl = texts.get(m.tool_call_id) ?? [];
    list.push(json);
    tl.push(typeof m.content === "string" ? m.content : "");
    values.set(m.tool_call_id, list);
    texts.set(m.tool_call_id, tl);
  }
  for (const msg of ui) {
    for (const part of msg.parts as Record<string, unknown>[]) {
      const id = part.toolCallId;
      if (typeof id !== "string" || !("output" in part)) continue;
      const list = values.get(id);
      const tl = texts.get(id);
      if (!list?.length || !tl) continue;
      const value = list.shift();
      const text = tl.shift();
      if (value !== undefined && typeof part.output === "string" && part.output === text) part.output = value;
    }
  }
  return ui;
}

/** What identifies a canonical message's content for matching (ids, origin, format extras left out). */
function key(m: Message): string {
  const parts = (c: unknown): unknown =>
    typeof c === "string" ? (c === "" ? [] : [{ type: "text", text: c }]) : Array.isArray(c) ? c.filter((p) => p?.type !== "other").map(({ extra: _e, ...p }) => p) : [];
  const msg = m as Message & { tool_calls?: { id: string; name: string; args: unknown }[]; tool_call_id?: string; status?: string };
  return stable({
    role: msg.role,
    content: msg.role === "tool" ? (typeof msg.content === "string" ? msg.content : parts(msg.content)) : parts(msg.content),
    calls: (msg.tool_calls ?? []).map((c) => [c.id, c.name, c.args ?? null]),
    result: msg.role === "tool" ? [msg.tool_call_id, msg.status ?? "success"] : null,
  });
}

/**
 * Records `useChat` state (`UIMessage[]`, v5 / v6) into the store, in one command: messages the
 * store already holds are left alone, so re-applying the whole state the store came from is a
 * no-op (never `ALREADY_ANSWERED`); new ones are added where they stand (a new user message at
 * the end; a tool result a client-side tool produced — `addToolOutput` — right after its call);
 * a stored message the state holds in another version is replaced (the same id, or for a tool
 * result the same call, e.g. a real output over a repair's placeholder); with `mirror`, stored
 * messages the state lacks are removed.
 *
 * Messages are matched in order, each with the first stored message after the previous match
 * that has its id (or, for a tool result, its call id) or the same content (role, text, tool
 * calls, result): assistant messages the adapter recorded from `onStepFinish` carry the store's
 * ids, not the ids `useChat` gave them, and are found by content. The UIMessages are read as
 * the AI SDK's `convertToModelMessages` reads them (docs/formats.md#uimessages-ui).
 *
 * Throws `INVALID_MESSAGE` (not UIMessages), `INVALID_OPTION` (bad options; new messages before
 * the first stored one the state holds: the store cannot insert there), and what the store
 * refuses (`UNKNOWN_TOOL_CALL`, `VERSION_CONFLICT`, …); a refusal changes nothing.
 * @example
 * // POST /api/chat: useChat sends its whole state
 * const { messages } = await req.json();
 * fromUIMessages(store, messages);                     // records the new user message only
 * const result = streamText({ model, tools, ...stategateAgent(store, { budget: 8_000 }) });
 */
export function fromUIMessages(store: StateStore, messages: readonly UIMessage[], opts?: FromUIMessagesOptions): UIMessagesApplied {
  checkStore(store, "fromUIMessages");
  if (opts === undefined) opts = {};
  if (typeof opts !== "object" || opts === null || Array.isArray(opts)) refuse(`fromUIMessages: options must be an object, got ${what(opts)}`);
  for (const k of Object.keys(opts)) if (!["author", "mirror", "expectedVersion"].includes(k)) refuse(`fromUIMessages: unknown option \`${k}\` (options: author, mirror, expectedVersion)`, { field: k });
  const author = opts.author ?? "ui";
  if (typeof author !== "string" || author === "") refuse(`fromUIMessages: \`author\` must be a non-empty string, got ${what(author)}`, { field: "author" });
  if (opts.mirror !== undefined && typeof opts.mirror !== "boolean") refuse(`fromUIMessages: \`mirror\` must be a boolean, got ${what(opts.mirror)}`, { field: "mirror" });
  if (!Array.isArray(messages)) throw new StategateError("INVALID_MESSAGE", `fromUIMessages: messages must be useChat's UIMessage array, got ${what(messages)}`);
  messages.forEach((m, index) => {
    if (typeof m !== "object" || m === null || !Array.isArray((m as UIMessage).parts)) throw new StategateError("INVALID_MESSAGE", `fromUIMessages: message ${index} is not a UIMessage (no parts array)`, { index });
  });

  const given = decodeMessages(messages.map(jsonSafe), { format: "ui" }) as (Message & { id?: string; tool_call_id?: string })[];
  const stored = store.get("messages") as (Message & { id: string; tool_call_id?: string })[];
  const keys = stored.map(key);
  const ids = new Set(stored.map((m) => m.id));
  const matched = new Set<number>();
  const ops: unknown[] = [];
  const added: string[] = [];
  const replaced: string[] = [];
  let unchanged = 0;
  let pos = -1; // the stored index of the last match
  let prev: string | undefined; // the id the next new message goes after
  let leading = 0; // new messages before any match, appended at the end unless something matches later
  const tail: unknown[] = [];

  given.forEach((d) => {
    const k = key(d);
    let j = -1;
    for (let i = pos + 1; i < stored.length && j < 0; i++) {
      const s = stored[i];
      if ((d.id !== undefined && s.id === d.id) || (d.role === "tool" && s.role === "tool" && d.tool_call_id === s.tool_call_id)) j = i;
    }
    if (j < 0) for (let i = pos + 1; i < stored.length && j < 0; i++) if (keys[i] === k) j = i;
    if (j >= 0) {
      if (leading > 0) refuse(`fromUIMessages: ${leading} message(s) of the useChat state are not in the store and come before stored message ${stored[j].id}: the store cannot insert before it`, { index: 0 });
      matched.add(j);
      if (keys[j] === k) unchanged++;
      else {
        ops.push({ replace: { ...d, id: stored[j].id } });
        replaced.push(stored[j].id);
      }
      pos = j;
      prev = stored[j].id;
      return;
    }
    // New: at the end when nothing after the last match is stored, else right after `prev`
    // (a tool result, which has no id in a UIMessage, then gets one to chain the next insert).
    // An id the store already holds would replace that message in place: refused.
    const atEnd = prev === undefined || pos === stored.length - 1;
    const id = d.id ?? (!atEnd && d.role === "tool" ? `${prev}/${d.tool_call_id}` : undefined);
    if (id !== undefined && (ids.has(id) || added.includes(id))) {
      refuse(`fromUIMessages: message id ${JSON.stringify(id)} of the useChat state is already in the store (or twice in the state) at another place: the useChat state is not in the store's order`, { field: "messages" });
    }
    const msg = id === undefined ? d : { ...d, id };
    if (atEnd) {
      if (prev === undefined) leading++;
      tail.push(msg);
    } else {
      if (id === undefined) refuse(`fromUIMessages: a ${d.role} message without an id cannot be inserted after stored message ${prev}`, { field: "messages" });
      ops.push({ insertAfter: prev, message: msg });
      prev = id;
    }
    if (id !== undefined) added.push(id);
  });
  ops.push(...tail);
  const removed: string[] = [];
  if (opts.mirror) {
    for (let i = stored.length - 1; i >= 0; i--) {
      if (!matched.has(i)) {
        ops.push({ remove: stored[i].id });
        removed.push(stored[i].id);
      }
    }
  }
  if (ops.length === 0) return { applied: null, added: [], replaced: [], removed: [], unchanged };
  const command: Command = { author, update: { messages: ops } };
  if (opts.expectedVersion !== undefined) command.expectedVersion = opts.expectedVersion;
  const applied = store.apply(command);
  // Messages the store named (appended without an id) are in `applied.ids` after the replaced and inserted ones.
  const named = applied.ids.filter((x) => !replaced.includes(x) && !added.includes(x));
  return { applied, added: [...added, ...named], replaced, removed, unchanged };
}
