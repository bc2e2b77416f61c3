/**
 * The message gate's API — decode, convert, validate, repair — over either of the package's wasm
 * modules: the whole core (`api.ts`, which extends it) or the message gate's own smaller module
 * (`messages-core.ts`, the `stategate/messages` entries). Both give the same answers: the
 * functions are the same Rust code behind the same calls. Imports no glue itself.
 *
 * The façade decides nothing about a message itself: arrays cross into the core as their JSON
 * text (one bounded path: cycles, depth, throwing getters and Proxies become typed errors, never a
 * trap) and JSON text as it is, so both forms give one answer. Repair and validation of an array
 * first try its skeleton (`skeleton.ts`: only the ids, names and roles they read, for the messages
 * whose reading is certain; the core plans from it), and take the JSON path for anything else, so
 * every error is that path's. Repair hands back the caller's own objects wherever a message did
 * not change. Every call's failure is a {@link StategateError}.
 */
import type * as Wasm from "./stategate_wasm.js";
import type { Violation, Fix, Message, Provider, Format, RepairOptions } from "./stategate_wasm.js";
import { describe, guarded, stategateError } from "./errors.js";
import { layoutOf, skeleton, type Layout } from "./skeleton.js";
import type { MessageOf, PlainOf } from "./formats.js";

/** Messages as an array of objects in any supported format(s), or that array's JSON text. */
export type MessagesInput = readonly unknown[] | string;

/** Options of {@link MessagesApi.validateMessages}. */
export interface ValidateOptions {
  /** The provider whose request rules apply. */
  provider: Provider;
}

/**
 * What {@link MessagesApi.repairMessages} returns. Untouched input messages are the caller's same
 * objects (`T`); inserted results and changed messages are plain objects in the input's format
 * ({@link PlainOf}`<T>`): for LangChain class instances, plain LangChain dicts — check
 * `instanceof` (or use `coerceMessageLikeToMessage`) before calling a method such as `getType()`.
 */
export interface RepairResult<T = unknown> {
  /** The repaired history: untouched input messages are the same objects, the others plain ones. */
  messages: Array<T | PlainOf<T>>;
  /** Every fix, in input order: kind, action, input index, tool call id. */
  report: Fix[];
}

/** The message gate's functions, bound to one instance of a wasm module. */
export interface MessagesApi {
  /**
   * Every violation of the provider's rules, each with a stable rule id, the input index and the
   * tool call id. Throws {@link StategateError} for input that is not messages.
   * @example validateMessages([{role: "user", content: "hi"}], {provider: "openai"}) // []
   */
  validateMessages(messages: MessagesInput, opts: ValidateOptions): Violation[];
  /**
   * Repairs dangling, misplaced, duplicate and orphan tool results and empty content (DESIGN §5).
   * The output passes {@link MessagesApi.validateMessages} for `opts.provider`; repairing it
   * again changes nothing; a real result is never dropped.
   */
  repairMessages<T = unknown>(messages: readonly T[] | string, opts?: RepairOptions): RepairResult<T>;
  /**
   * Converts messages into `to`: each read by its keys (a message that matches no format
   * exactly is refused, never guessed), or all read as `from` when given. What `to` cannot carry
   * is refused rather than dropped or made up: into `"ui"`, a result whose call is not in its
   * UIMessage is `UNKNOWN_TOOL_CALL` and a second result of one call `ALREADY_ANSWERED` (a
   * UIMessage tool part holds its call's one output), with `details.index`; repair first, or
   * convert to a format that carries them.
   */
  convertMessages<F extends Format>(messages: MessagesInput, opts: { to: F; from?: Format }): MessageOf<F>[];
  /** Decodes messages into canonical {@link Message}s: each detected, or all read as `opts.format`. */
  decodeMessages(messages: MessagesInput, opts?: { format?: Format }): Message[];
  /**
   * The provider whose rules a format's output must pass: `"anthropic"` and `"gemini"` have
   * their own, every other format is held to OpenAI's. Throws `INVALID_OPTION` for an unknown format.
   * @example providerOf("ai-sdk") // "openai"
   */
  providerOf(format: Format): Provider;
}

/** What the message gate calls of a wasm module: exports both modules have. @internal */
export type MessagesGlue = Pick<
  typeof Wasm,
  "validateJson" | "validateSkeleton" | "repairJson" | "repairSkeleton" | "skeletonLayout" | "convertMessages" | "decodeMessages" | "providerOf" | "errorCodes"
>;

/** Refuses what is neither an array nor JSON text. @internal */
export function check(messages: unknown): void {
  let array: boolean;
  try {
    array = Array.isArray(messages); // throws for a revoked Proxy
  } catch (e) {
    throw stategateError("INVALID_MESSAGE", `messages cannot be read: ${describe(e)}`);
  }
  if (typeof messages !== "string" && !array) throw stategateError("INVALID_MESSAGE", "messages must be an array or its JSON text");
}

/** The message gate over `wasm`'s exports; `before` runs before every call (the loaded check). @internal */
export function bindMessages(wasm: MessagesGlue, before?: () => void): MessagesApi {
  const g = <A extends unknown[], R>(what: string, f: (...args: A) => R) => guarded(what, f, before);
  // Read from the core once it is loaded (the first skeleton call comes after the loaded check).
  let layout: Layout | undefined;
  const sketch = (messages: readonly unknown[]) => skeleton(messages, (layout ??= layoutOf(wasm.skeletonLayout())));
  return {
    validateMessages: g("validateMessages", (messages, opts) => {
      check(messages);
      const provider = opts?.provider as string;
      const sk = typeof messages === "string" ? undefined : sketch(messages);
      return (sk && wasm.validateSkeleton(sk.meta, sk.text, provider)) ?? wasm.validateJson(messages, provider);
    }),
    repairMessages: g("repairMessages", <T>(messages: readonly T[] | string, opts: RepairOptions = {}) => {
      check(messages);
      const sk = typeof messages === "string" ? undefined : sketch(messages);
      const fast = sk && wasm.repairSkeleton(sk.meta, sk.text, opts);
      if (!fast) return wasm.repairJson(messages, opts) as RepairResult<T>;
      // Untouched messages are the caller's own objects; only new ones crossed as JSON.
      const [order, json] = fast;
      const { news, report } = JSON.parse(json) as { news: T[]; report: Fix[] };
      const all = messages as readonly T[];
      const mark = (layout ??= layoutOf(wasm.skeletonLayout())).newMark;
      const out = new Array<T>(order.length);
      for (let i = 0; i < order.length; i++) {
        const o = order[i];
        out[i] = o >= mark ? news[o - mark] : all[o];
      }
      return { messages: out, report };
    }) as MessagesApi["repairMessages"],
    convertMessages: g("convertMessages", (messages, opts) => {
      check(messages);
      return wasm.convertMessages(messages, opts?.to as string, opts?.from);
    }) as MessagesApi["convertMessages"],
    decodeMessages: g("decodeMessages", (messages, opts) => {
      check(messages);
      return wasm.decodeMessages(messages, opts?.format);
    }),
    providerOf: g("providerOf", (format) => wasm.providerOf(format) as Provider),
  };
}
