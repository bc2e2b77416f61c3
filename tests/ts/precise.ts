// Compile-time check of the precise message types (issue 16): each function returns its format's
// message type (pkg/formats.d.ts), `get` is `unknown` for a channel that is not `messages`, and
// repair says that what it inserts is plain. Every `@ts-expect-error` line must be an error.
import {
  StateStore,
  StreamReader,
  AsyncTasks,
  convertMessages,
  projectMessages,
  readStream,
  repairMessages,
  subagentInput,
  type Message,
  type MessageOf,
  type ModelView,
  type OpenAIMessage,
  type AnthropicMessage,
  type LangChainMessage,
  type UiMessage,
  type AgentsItem,
  type PlainOf,
} from "../../pkg/index.js";

/** Exactly `A` and `B` are the same type. */
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
function same<A, B>(_: Equal<A, B>): void {}

const history = [{ role: "user", content: "hi" }];

// convertMessages: the target format's type.
const openai = convertMessages(history, { to: "openai" });
same<typeof openai, OpenAIMessage[]>(true);
const first = openai[0];
if (first?.role === "tool") {
  const id: string = first.tool_call_id;
  void id;
}
// @ts-expect-error: OpenAI messages have no `parts`
void convertMessages(history, { to: "openai" })[0]?.parts;
// @ts-expect-error: an OpenAI message is not a Gemini Content
const notGemini: MessageOf<"gemini">[] = convertMessages(history, { to: "openai" });
void notGemini;
const gemini = convertMessages(history, { to: "gemini" });
void gemini[0]?.parts;

// The store: messages() canonical, messages(f) in f.
const store = new StateStore({ runId: "types" });
same<ReturnType<typeof store.messages<undefined>>, Message[]>(true);
const canonical: Message[] = store.messages();
const role: "user" | "assistant" | "system" = store.messages("anthropic")[0]!.role;
// @ts-expect-error: Anthropic has no tool role (results are user blocks)
const toolRole: "tool" = store.messages("anthropic")[0]!.role;
// @ts-expect-error: an Anthropic message has no `tool_calls`
void store.messages("anthropic")[0]?.tool_calls;
const anthropic: AnthropicMessage[] = store.messages("anthropic");
void [canonical, role, toolRole, anthropic];

// get: `messages` is canonical, every other channel `unknown`.
const stored: Message[] = store.get("messages");
const facts = store.get("facts");
same<typeof facts, unknown>(true);
// @ts-expect-error: an unknown value cannot be used unchecked
void facts.city;
if (typeof facts === "object" && facts !== null && "city" in facts) void facts.city;
void stored;

// The model view: `format` decides, `"openai"` when absent (the core's default).
const gview = store.modelView({ budget: 1_000, format: "gemini" });
void gview.messages[0]?.parts;
const dview = store.modelView({ budget: 1_000 });
same<typeof dview, ModelView<"openai">>(true);
// @ts-expect-error: the default view is OpenAI's: no `parts`
void dview.messages[0]?.parts;
const pview = projectMessages(history, { budget: 1_000, format: "ai-sdk" });
same<(typeof pview)["messages"][number]["role"], "system" | "user" | "assistant" | "tool">(true);
const anyView: ModelView = store.modelView({ budget: 1_000, format: "ui" });
void anyView;
// statics and at() keep the precise type
const replayed = StateStore.replay(store.eventsJsonl());
const past = replayed.at(0);
const ui: UiMessage[] = past.messages("ui");
void ui;
// the refined store is still the core's: AsyncTasks and subagentInput take it
const tasks = new AsyncTasks(store, { agents: [] });
const child = subagentInput(store, { description: "look it up" });
const childMessages: LangChainMessage[] = child.messages("langchain");
void [tasks, childMessages];

// Streams: `to`, or the stream format's default.
const ran = readStream([], { format: "ui-stream" });
same<(typeof ran)["messages"], UiMessage[]>(true);
const lg = readStream([], { format: "langgraph-messages", to: "openai-agents" });
const items: AgentsItem[] = lg.messages;
const reader = new StreamReader({ format: "langgraph-messages" });
const soFar: LangChainMessage[] = reader.messages();
const asOpenAI: OpenAIMessage[] = reader.messages("openai");
// @ts-expect-error: a LangGraph stream's default messages are LangChain dicts, not UIMessages
const wrong: UiMessage[] = reader.messages();
void [items, soFar, asOpenAI, wrong];

// Repair: untouched messages are the caller's; inserted ones are plain in the input's format.
declare class HumanMessageLike {
  lc_kwargs: object;
  getType(): string;
  content: string;
}
declare const instances: HumanMessageLike[];
const repaired = repairMessages(instances);
same<PlainOf<HumanMessageLike>, LangChainMessage>(true);
const m = repaired.messages[0]!;
// @ts-expect-error: an inserted result is a plain dict, not a class instance: no getType()
m.getType();
if (m instanceof Object && "getType" in m && typeof m.getType === "function") void m.getType();
// @ts-expect-error: repair does not claim class instances for the whole result
const allInstances: HumanMessageLike[] = repaired.messages;
// Plain provider-shaped input: the inserted messages are that format's.
const openaiRepaired = repairMessages(convertMessages(history, { to: "openai" }));
const openaiOut: OpenAIMessage[] = openaiRepaired.messages;
// Unknown input stays unknown.
const unknownOut: unknown[] = repairMessages(history as unknown[]).messages;
void [allInstances, openaiOut, unknownOut];

// stategate/messages (the message gate on its own module): the same precise types.
import * as gate from "../../pkg/messages.js";
const gateAnthropic: AnthropicMessage[] = gate.convertMessages(history, { to: "anthropic" });
const gateOpenai: OpenAIMessage[] = gate.repairMessages(convertMessages(history, { to: "openai" })).messages;
const gateCanonical: Message[] = gate.decodeMessages(history);
// @ts-expect-error: an Anthropic message is not an OpenAI one
const gateWrong: OpenAIMessage[] = gate.convertMessages(history, { to: "anthropic" });
// @ts-expect-error: the store is not in the message gate's entry
void gate.StateStore;
void [gateAnthropic, gateOpenai, gateCanonical, gateWrong];

export {};
