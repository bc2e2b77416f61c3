/**
 * The message types stategate EMITS, one per format: what `convertMessages(m, {to})`,
 * `store.messages(format)`, `store.modelView({format})`, `projectMessages(m, {format})`,
 * `readStream` / `StreamReader` (with `to`) return, and {@link MessageOf} mapping a format's name
 * to its type (the canonical {@link Message} for no format).
 *
 * Each shape is written here from what the core's encoder for that format writes
 * (`src/message/formats/<format>.rs`, every branch: text, images, reasoning, tool calls and
 * results, approvals, ids, names, error results), and follows the provider's own request
 * definition, whose package the types do not import (stategate depends on none of them).
 * `tests/js/provider-types.test.mjs` keeps them honest both ways: every history the package
 * emits from the fixtures type-checks as these types, and each type is assignable to the
 * provider's own request type (`ChatCompletionMessageParam`, `MessageParam`, `Content`,
 * `ModelMessage`, `UIMessage`, `ResponseInputItem`, `AgentInputItem`).
 *
 * One boundary: a message decoded from the same format it is encoded into gets back the fields,
 * parts and items stategate does not model, verbatim (an Anthropic `cache_control` or `document`
 * block, an OpenAI `refusal` part, a Responses `web_search_call` item, …). Those are the
 * provider's values you gave; the shapes here are what stategate itself writes, and the open
 * fields are not listed.
 * @module
 */
import type { Format, Message } from "./stategate_wasm.js";

/** A JSON value (tool-call arguments and outputs, provider metadata). */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object (tool-call arguments: every provider takes an object). */
export type JsonObject = { [key: string]: JsonValue };

// ---------------------------------------------------------------------------------------------
// LangChain
// ---------------------------------------------------------------------------------------------

/** A LangChain text block `{type: "text", text}`. */
export interface LangChainTextBlock {
  type: "text";
  text: string;
}
/** A LangChain standard reasoning block `{type: "reasoning", reasoning}`. */
export interface LangChainReasoningBlock {
  type: "reasoning";
  reasoning: string;
}
/**
 * A LangChain standard image block, in the dialect it was read in, or (from another format) v0's
 * data block, which LangChain JS and Python both read: `{type: "image", source_type: "url" |
 * "base64", url | data, mime_type}`. JS v1 writes `url` / `data` with `mimeType`, Python v1 `url` /
 * `base64` with `mime_type`; an Anthropic image block read from a LangChain message goes back
 * as that block (`source`).
 */
export interface LangChainImageBlock {
  type: "image";
  source_type?: "url" | "base64";
  url?: string;
  data?: string;
  base64?: string;
  mime_type?: string;
  mimeType?: string;
  source?: JsonObject;
}
/**
 * A LangChain standard file block, in the dialect it was read in, or v0's data block: `{type:
 * "file", source_type: "url" | "base64" | "id", url | data | id, mime_type, filename}` (JS v1:
 * `fileId`, `mimeType`; Python v1's `FileContentBlock`: `base64`, `file_id`, `mime_type`), with the
 * `filename` provider integrations read.
 */
export interface LangChainFileBlock {
  type: "file";
  source_type?: "url" | "base64" | "id";
  url?: string;
  data?: string;
  id?: string;
  base64?: string;
  file_id?: string;
  fileId?: string;
  mime_type?: string;
  mimeType?: string;
  filename?: string;
}
/** The content blocks the LangChain encoder writes. */
export type LangChainContentBlock = LangChainTextBlock | LangChainReasoningBlock | LangChainImageBlock | LangChainFileBlock;
/** A LangChain tool call `{id, name, args, type: "tool_call"}` (`type` absent when kept from a LangChain source without one). */
export interface LangChainToolCall {
  id: string;
  name: string;
  args: JsonObject;
  type?: "tool_call";
}
/** A LangChain invalid tool call: arguments that did not parse, as their raw text. */
export interface LangChainInvalidToolCall {
  id: string;
  name: string;
  args: string;
  error?: string;
  type?: "invalid_tool_call";
}
/** LangChain `usage_metadata` of an AI message (tokens). */
export interface LangChainUsageMetadata {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_token_details?: { cache_read?: number; cache_creation?: number };
}
interface LangChainBase {
  /** Text or blocks; `null` / absent only when a LangChain source had it so. */
  content?: string | LangChainContentBlock[] | null;
  id?: string;
  name?: string;
  /** Kept from a LangChain source. */
  additional_kwargs?: Record<string, unknown>;
  /** Kept from a LangChain source. */
  response_metadata?: Record<string, unknown>;
  /** Any other field a LangChain source had (a message's kwargs are open: `langgraph_node`, …), verbatim. */
  [field: string]: unknown;
}
/** A LangChain human message dict. */
export interface LangChainHumanMessage extends LangChainBase {
  type: "human";
}
/** A LangChain system message dict. */
export interface LangChainSystemMessage extends LangChainBase {
  type: "system";
}
/** A LangChain AI message dict, with its tool calls and usage. */
export interface LangChainAIMessage extends LangChainBase {
  type: "ai";
  tool_calls?: LangChainToolCall[];
  invalid_tool_calls?: LangChainInvalidToolCall[];
  usage_metadata?: LangChainUsageMetadata;
}
/** A LangChain tool message dict: the result of the call `tool_call_id`. */
export interface LangChainToolMessage extends LangChainBase {
  type: "tool";
  tool_call_id: string;
  status?: "success" | "error";
}
/**
 * A LangChain message as the plain dict (`@langchain/core` `toDict().data`, Python
 * `model_dump()`), `type` one of `"human" | "ai" | "system" | "tool"` — never a class instance:
 * `coerceMessageLikeToMessage` / `convert_to_messages` turn it into one. Encoder:
 * `src/message/formats/langchain.rs`.
 */
export type LangChainMessage = LangChainHumanMessage | LangChainAIMessage | LangChainSystemMessage | LangChainToolMessage;

// ---------------------------------------------------------------------------------------------
// OpenAI Chat Completions
// ---------------------------------------------------------------------------------------------

/** `ChatCompletionContentPartText`. */
export interface OpenAITextPart {
  type: "text";
  text: string;
}
/** `ChatCompletionContentPartImage`: an `http(s):` or `data:` URL. */
export interface OpenAIImagePart {
  type: "image_url";
  image_url: { url: string; detail?: "auto" | "low" | "high" };
}
/** `ChatCompletionContentPart.File`: a file inline (`file_data`, a `data:` URL) or by `file_id`. */
export interface OpenAIFilePart {
  type: "file";
  file: { file_data?: string; file_id?: string; filename?: string };
}
/** `ChatCompletionMessageFunctionToolCall`: `arguments` is JSON text. */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}
/** `ChatCompletionSystemMessageParam` (a `developer` message is written as `system`). */
export interface OpenAISystemMessage {
  role: "system";
  content: string | OpenAITextPart[];
  name?: string;
}
/** `ChatCompletionUserMessageParam`. */
export interface OpenAIUserMessage {
  role: "user";
  content: string | Array<OpenAITextPart | OpenAIImagePart | OpenAIFilePart>;
  name?: string;
}
/** `ChatCompletionAssistantMessageParam`: `content` `null` beside calls only. */
export interface OpenAIAssistantMessage {
  role: "assistant";
  content?: string | OpenAITextPart[] | null;
  name?: string;
  tool_calls?: OpenAIToolCall[];
}
/** `ChatCompletionToolMessageParam`: text (several text blocks stay blocks). */
export interface OpenAIToolMessage {
  role: "tool";
  content: string | OpenAITextPart[];
  tool_call_id: string;
}
/**
 * An OpenAI Chat Completions request message (`ChatCompletionMessageParam`, `openai`
 * `resources/chat/completions`). Encoder: `src/message/formats/openai.rs`.
 */
export type OpenAIMessage = OpenAISystemMessage | OpenAIUserMessage | OpenAIAssistantMessage | OpenAIToolMessage;

// ---------------------------------------------------------------------------------------------
// Anthropic Messages
// ---------------------------------------------------------------------------------------------

/** `TextBlockParam`. */
export interface AnthropicTextBlock {
  type: "text";
  text: string;
}
/** `ImageBlockParam`: inline base64 (a `data:` URL becomes this) or an `http(s):` URL. */
export interface AnthropicImageBlock {
  type: "image";
  source:
    | { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string }
    | { type: "url"; url: string };
}
/**
 * `DocumentBlockParam`: a PDF inline, at an `http(s):` URL, or an uploaded file's id; `title` is
 * the file's name (as the AI SDK's Anthropic provider writes a file part's `filename`).
 */
export interface AnthropicDocumentBlock {
  type: "document";
  source:
    | { type: "base64"; media_type: "application/pdf"; data: string }
    | { type: "url"; url: string }
    | { type: "file"; file_id: string };
  title?: string;
}
/** `ThinkingBlockParam`: written only when the reasoning carries Anthropic's signature. */
export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}
/** `ToolUseBlockParam` (a call whose arguments did not parse gets `input: {}`). */
export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
}
/** `ToolResultBlockParam`: `is_error: true` for an error result; text, images and documents. */
export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock>;
  is_error?: boolean;
}
/** A system message (`SystemMessageParam`): lift it into the request's top-level `system`. */
export interface AnthropicSystemMessage {
  role: "system";
  content: string | AnthropicTextBlock[];
}
/** A user message: text and images, or a run of tool results (results only). */
export interface AnthropicUserMessage {
  role: "user";
  content: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicToolResultBlock>;
}
/** An assistant message: text, signed thinking, tool uses. */
export interface AnthropicAssistantMessage {
  role: "assistant";
  content: string | Array<AnthropicTextBlock | AnthropicThinkingBlock | AnthropicToolUseBlock>;
}
/**
 * An Anthropic Messages request message (`MessageParam`, `@anthropic-ai/sdk`
 * `resources/messages`; its `SystemMessageParam` for system). Response-only fields (`id`,
 * `model`, `usage`, …) are never written. Encoder: `src/message/formats/anthropic.rs`.
 */
export type AnthropicMessage = AnthropicSystemMessage | AnthropicUserMessage | AnthropicAssistantMessage;

// ---------------------------------------------------------------------------------------------
// AI SDK ModelMessage
// ---------------------------------------------------------------------------------------------

/** AI SDK `providerOptions` (`SharedV3ProviderOptions`): provider name → JSON options. */
export type AiSdkProviderOptions = Record<string, Record<string, JsonValue>>;
/** AI SDK `TextPart`. */
export interface AiSdkTextPart {
  type: "text";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `ImagePart`: `image` is a URL or base64 data. */
export interface AiSdkImagePart {
  type: "image";
  image: string;
  mediaType?: string;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `ReasoningPart`. */
export interface AiSdkReasoningPart {
  type: "reasoning";
  text: string;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `ToolCallPart` (`input` is the raw text of arguments that did not parse). */
export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: JsonValue;
  providerOptions?: AiSdkProviderOptions;
  providerExecuted?: boolean;
}
/** AI SDK `ToolApprovalRequest`: right after the call it asks about. */
export interface AiSdkToolApprovalRequest {
  type: "tool-approval-request";
  approvalId: string;
  toolCallId: string;
}
/** AI SDK `ToolApprovalResponse`. */
export interface AiSdkToolApprovalResponse {
  type: "tool-approval-response";
  approvalId: string;
  approved: boolean;
  reason?: string;
}
/**
 * AI SDK tool output: `text` / `error-text` (the result's text), `json` (a non-string output), or
 * `content` (a successful result with images or inline files, as the AI SDK's providers send them on).
 */
export type AiSdkToolResultOutput =
  | { type: "text"; value: string }
  | { type: "error-text"; value: string }
  | { type: "json"; value: JsonValue }
  | {
      type: "content";
      value: Array<
        | { type: "text"; text: string }
        | { type: "image-data"; data: string; mediaType: string }
        | { type: "image-url"; url: string }
        | { type: "file-data"; data: string; mediaType: string; filename?: string }
        | { type: "file-url"; url: string }
      >;
    };
/** AI SDK `ToolResultPart`. */
export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `SystemModelMessage`: text only. */
export interface AiSdkSystemMessage {
  role: "system";
  content: string;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `UserModelMessage`. */
export interface AiSdkUserMessage {
  role: "user";
  content: string | Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart>;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `FilePart`: `data` is base64, an `http(s):` URL or a `data:` URL; `mediaType` is required. */
export interface AiSdkFilePart {
  type: "file";
  data: string;
  mediaType: string;
  filename?: string;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `AssistantModelMessage`. */
export interface AiSdkAssistantMessage {
  role: "assistant";
  content: string | Array<AiSdkTextPart | AiSdkReasoningPart | AiSdkToolCallPart | AiSdkToolApprovalRequest>;
  providerOptions?: AiSdkProviderOptions;
}
/** AI SDK `ToolModelMessage`: a run of results (and approval responses) in one message. */
export interface AiSdkToolMessage {
  role: "tool";
  content: Array<AiSdkToolResultPart | AiSdkToolApprovalResponse>;
  providerOptions?: AiSdkProviderOptions;
}
/**
 * A Vercel AI SDK `ModelMessage` (`ai` 6: v5 `input` / `output` fields). Encoder:
 * `src/message/formats/ai_sdk.rs`.
 */
export type AiSdkMessage = AiSdkSystemMessage | AiSdkUserMessage | AiSdkAssistantMessage | AiSdkToolMessage;

// ---------------------------------------------------------------------------------------------
// Gemini Content
// ---------------------------------------------------------------------------------------------

/** A Gemini `Part` as the encoder writes it: exactly one of its fields set (plus `thought`). */
export type GeminiPart =
  | { text: string; thought?: boolean }
  | { inlineData: { mimeType: string; data: string; displayName?: string } }
  | { fileData: { mimeType: string; fileUri: string; displayName?: string } }
  | { functionCall: { id: string; name: string; args: JsonObject } }
  | { functionResponse: { id: string; name: string; response: JsonObject } };
/**
 * A Google Gemini `Content` (`@google/genai`): `role` `"user"` (tool results too, as
 * `functionResponse` parts) or `"model"`, and `"system"` for a system message (send it as
 * `systemInstruction`). A response is the result's JSON object, `{result: text}`, or
 * `{error: text}` for an error result. Encoder: `src/message/formats/gemini.rs`.
 */
export interface GeminiContent {
  role: "user" | "model" | "system";
  parts: GeminiPart[];
}

// ---------------------------------------------------------------------------------------------
// AI SDK UIMessage
// ---------------------------------------------------------------------------------------------

/** UIMessage `TextUIPart`. */
export interface UiTextPart {
  type: "text";
  text: string;
  state?: "streaming" | "done";
  providerMetadata?: AiSdkProviderOptions;
}
/** UIMessage `ReasoningUIPart`. */
export interface UiReasoningPart {
  type: "reasoning";
  text: string;
  state?: "streaming" | "done";
  providerMetadata?: AiSdkProviderOptions;
}
/** UIMessage `FileUIPart` (images: a URL or a `data:` URL). */
export interface UiFilePart {
  type: "file";
  mediaType: string;
  url: string;
  filename?: string;
  providerMetadata?: AiSdkProviderOptions;
}
/** UIMessage `StepStartUIPart`: a model call after tool results starts a new step. */
export interface UiStepStartPart {
  type: "step-start";
}
/**
 * A tool part's state, as `ToolUIPart` / `DynamicToolUIPart` define them (one variant each). A
 * call whose input did not parse carries its text as `rawInput` once answered and has no `input`
 * key: reading `input` gives `undefined`, which `unknown` covers.
 */
export type UiToolState =
  | { state: "input-streaming"; input?: unknown }
  | { state: "input-available"; input: unknown }
  | { state: "approval-requested"; input: unknown; approval: { id: string } }
  | { state: "approval-responded"; input: unknown; approval: { id: string; approved: boolean; reason?: string } }
  | { state: "output-available"; input: unknown; output: unknown; approval?: { id: string; approved: true; reason?: string } }
  | { state: "output-error"; input: unknown; rawInput?: unknown; errorText: string; approval?: { id: string; approved: true; reason?: string } }
  | { state: "output-denied"; input: unknown; approval: { id: string; approved: false; reason?: string } };
/** UIMessage `ToolUIPart`: `tool-<name>`, the call with its state and result. */
export type UiToolPart = { type: `tool-${string}` } & UiToolFields & UiToolState;
/** UIMessage `DynamicToolUIPart` (also a result whose call is not in the message). */
export type UiDynamicToolPart = { type: "dynamic-tool"; toolName: string } & UiToolFields & UiToolState;
/** The fields every tool part has (metadata kept from a UIMessage source). */
export interface UiToolFields {
  toolCallId: string;
  title?: string;
  providerExecuted?: boolean;
  callProviderMetadata?: AiSdkProviderOptions;
  resultProviderMetadata?: AiSdkProviderOptions;
}
/** UIMessage `SourceUrlUIPart` (kept from a UIMessage source; the model never sees it). */
export interface UiSourceUrlPart {
  type: "source-url";
  sourceId: string;
  url: string;
  title?: string;
  providerMetadata?: AiSdkProviderOptions;
}
/** UIMessage `SourceDocumentUIPart` (kept from a UIMessage source). */
export interface UiSourceDocumentPart {
  type: "source-document";
  sourceId: string;
  mediaType: string;
  title: string;
  filename?: string;
  providerMetadata?: AiSdkProviderOptions;
}
/** UIMessage `DataUIPart` `data-<name>` (kept from a UIMessage source). */
export interface UiDataPart {
  type: `data-${string}`;
  id?: string;
  data: unknown;
}
/** The UIMessage parts the encoder writes. */
export type UiPart = UiTextPart | UiReasoningPart | UiFilePart | UiStepStartPart | UiToolPart | UiDynamicToolPart | UiSourceUrlPart | UiSourceDocumentPart | UiDataPart;
/**
 * A Vercel AI SDK `UIMessage` (`useChat` state, `ai` 6): always an `id` (`msg-<k>` when the
 * source had none); one assistant message holds a turn's steps, each tool call's result folded
 * into its part. Encoder: `src/message/formats/ui.rs`.
 */
export interface UiMessage {
  id: string;
  role: "system" | "user" | "assistant";
  parts: UiPart[];
  metadata?: unknown;
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses input items
// ---------------------------------------------------------------------------------------------

/** `ResponseInputText`. */
export interface ResponsesInputText {
  type: "input_text";
  text: string;
}
/** `ResponseInputImage`: a URL or `data:` URL; `detail` is required. */
export interface ResponsesInputImage {
  type: "input_image";
  image_url: string;
  detail: "low" | "high" | "auto" | "original";
}
/** `ResponseInputFile`: inline (`file_data`, a `data:` URL), at `file_url`, or by `file_id`. */
export interface ResponsesInputFile {
  type: "input_file";
  file_data?: string;
  file_url?: string;
  file_id?: string;
  filename?: string;
}
/** A `ResponseOutputText` annotation (citations and file paths), kept from the API's item. */
export type ResponsesAnnotation =
  | { type: "file_citation"; file_id: string; filename: string; index: number }
  | { type: "url_citation"; url: string; title: string; start_index: number; end_index: number }
  | { type: "container_file_citation"; container_id: string; file_id: string; filename: string; start_index: number; end_index: number }
  | { type: "file_path"; file_id: string; index: number };
/** `ResponseOutputText` (an output message item's text). */
export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: ResponsesAnnotation[];
  logprobs?: Array<{ token: string; bytes: number[]; logprob: number; top_logprobs: Array<{ token: string; bytes: number[]; logprob: number }> }>;
}
/** `ResponseOutputRefusal`. */
export interface ResponsesOutputRefusal {
  type: "refusal";
  refusal: string;
}
/** `EasyInputMessage`: a system / developer / user message (text or input parts), or an assistant message's text. */
export interface ResponsesEasyMessage {
  type?: "message";
  role: "system" | "developer" | "user" | "assistant";
  content: string | Array<ResponsesInputText | ResponsesInputImage | ResponsesInputFile>;
  phase?: "commentary" | "final_answer";
}
/** `ResponseOutputMessage`: an assistant message item from the Responses API (kept with its id and status). */
export interface ResponsesOutputMessage {
  type: "message";
  role: "assistant";
  id: string;
  status: "in_progress" | "completed" | "incomplete";
  content: Array<ResponsesOutputText | ResponsesOutputRefusal>;
  phase?: "commentary" | "final_answer";
}
/** `ResponseFunctionToolCall`: `arguments` is JSON text. */
export interface ResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
  status?: "in_progress" | "completed" | "incomplete";
}
/** `ResponseInputItem.FunctionCallOutput`: text, or input parts when the result has images or files. */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string | Array<ResponsesInputText | ResponsesInputImage | ResponsesInputFile>;
  id?: string;
  status?: "in_progress" | "completed" | "incomplete";
}
/** `ResponseReasoningItem`: written only for the same API's items (it needs the API's own `id`). */
export interface ResponsesReasoning {
  type: "reasoning";
  id: string;
  summary: Array<{ type: "summary_text"; text: string }>;
  /** The raw reasoning text, when the item had it. */
  content?: Array<{ type: "reasoning_text"; text: string }>;
  encrypted_content?: string | null;
}
/**
 * An OpenAI Responses API input item (`ResponseInputItem`, `openai`
 * `resources/responses/responses`): one item per message, per tool call and per tool result.
 * Hosted tool items are kept only from the same API's items, verbatim. Encoder:
 * `src/message/formats/responses.rs` (the `Api` dialect).
 */
export type ResponsesItem = ResponsesEasyMessage | ResponsesOutputMessage | ResponsesFunctionCall | ResponsesFunctionCallOutput | ResponsesReasoning;

// ---------------------------------------------------------------------------------------------
// OpenAI Agents SDK items
// ---------------------------------------------------------------------------------------------

/** The Agents SDK's `providerData`. */
export type AgentsProviderData = Record<string, unknown>;
/** Agents SDK `InputText`. */
export interface AgentsInputText {
  type: "input_text";
  text: string;
  providerData?: AgentsProviderData;
}
/** Agents SDK `InputImage`: `image` is a URL (or a `data:` URL). */
export interface AgentsInputImage {
  type: "input_image";
  image: string;
  detail?: string;
  providerData?: AgentsProviderData;
}
/** Agents SDK `InputFile`: the data as a `data:` URL string, `{url}` or `{id}`. */
export interface AgentsInputFile {
  type: "input_file";
  file: string | { url: string } | { id: string };
  filename?: string;
  providerData?: AgentsProviderData;
}
/** Agents SDK `OutputText`. */
export interface AgentsOutputText {
  type: "output_text";
  text: string;
  providerData?: AgentsProviderData;
}
/** Agents SDK `Refusal`. */
export interface AgentsRefusal {
  type: "refusal";
  refusal: string;
  providerData?: AgentsProviderData;
}
/** `SystemMessageItem`: text. */
export interface AgentsSystemMessage {
  type?: "message";
  role: "system";
  content: string;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `UserMessageItem`. */
export interface AgentsUserMessage {
  type?: "message";
  role: "user";
  content: string | Array<AgentsInputText | AgentsInputImage | AgentsInputFile>;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `AssistantMessageItem`: parts and a `status` (`"completed"` when stategate writes it). */
export interface AgentsAssistantMessage {
  type: "message";
  role: "assistant";
  status: "in_progress" | "completed" | "incomplete";
  content: Array<AgentsOutputText | AgentsRefusal>;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `FunctionCallItem`: `arguments` is JSON text. */
export interface AgentsFunctionCall {
  type: "function_call";
  callId: string;
  name: string;
  arguments: string;
  id?: string;
  status?: "in_progress" | "completed" | "incomplete";
  providerData?: AgentsProviderData;
}
/** `FunctionCallResultItem`: `name` and `status` are required by the SDK. */
export interface AgentsFunctionCallResult {
  type: "function_call_result";
  callId: string;
  name: string;
  status: "in_progress" | "completed" | "incomplete";
  output: string | { type: "text"; text: string } | Array<AgentsInputText | AgentsInputImage | AgentsInputFile>;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `ReasoningItem`: the summary as `input_text` content; encrypted content in `providerData`. */
export interface AgentsReasoning {
  type: "reasoning";
  content: Array<{ type: "input_text"; text: string; providerData?: AgentsProviderData }>;
  /** The raw reasoning text, when the item had it (the API's `content`). */
  rawContent?: Array<{ type: "reasoning_text"; text: string }>;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `HostedToolCallItem`: a hosted tool's call kept from an Agents SDK source. */
export interface AgentsHostedToolCall {
  type: "hosted_tool_call";
  name: string;
  arguments?: string;
  status?: string;
  output?: string;
  id?: string;
  providerData?: AgentsProviderData;
}
/** `UnknownItem`: a Responses API hosted item carried whole in `providerData`, as the SDK sends it. */
export interface AgentsUnknownItem {
  type: "unknown";
  id?: string;
  providerData: AgentsProviderData;
}
/**
 * An OpenAI Agents SDK item (`AgentInputItem`, `@openai/agents` 0.20 `protocol.ts`): what
 * `result.history`, `RunState` and Sessions hold. Encoder: `src/message/formats/responses.rs`
 * (the `Agents` dialect).
 */
export type AgentsItem =
  | AgentsSystemMessage
  | AgentsUserMessage
  | AgentsAssistantMessage
  | AgentsFunctionCall
  | AgentsFunctionCallResult
  | AgentsReasoning
  | AgentsHostedToolCall
  | AgentsUnknownItem;

// ---------------------------------------------------------------------------------------------
// By name
// ---------------------------------------------------------------------------------------------

/** Each format's name → the type of the messages stategate emits in it. */
export interface FormatMessages {
  langchain: LangChainMessage;
  openai: OpenAIMessage;
  anthropic: AnthropicMessage;
  "ai-sdk": AiSdkMessage;
  gemini: GeminiContent;
  ui: UiMessage;
  responses: ResponsesItem;
  "openai-agents": AgentsItem;
}

/**
 * The message type of format `F` (a union for a union of formats); the canonical
 * {@link Message} when `F` is `undefined` (no format given).
 * @example
 * const m: MessageOf<"openai">[] = store.messages("openai");
 */
export type MessageOf<F extends Format | undefined = undefined> = [F] extends [undefined]
  ? Message
  : F extends Format
    ? FormatMessages[F]
    : never;

/** A message of any format stategate writes (the union of every {@link MessageOf}). */
export type AnyFormatMessage = FormatMessages[Format];

/**
 * A LangChain message class instance (`@langchain/core` `BaseMessage`: `HumanMessage`,
 * `AIMessage`, …), recognised by its shape (stategate does not import LangChain).
 */
export interface LangChainMessageInstance {
  lc_kwargs: object;
  getType(): string;
}

/**
 * What repair writes in place of (or beside) messages of type `T`: the plain objects of their
 * format — never class instances. LangChain class instances → {@link LangChainMessage} dicts;
 * a `T` every message of one of the formats fits (`ChatCompletionMessageParam`, `MessageParam`,
 * …, or these types) → that format's messages; any other object type → a message of any format
 * ({@link AnyFormatMessage}); `unknown` stays `unknown`.
 */
export type PlainOf<T> = unknown extends T
  ? unknown
  : (T extends LangChainMessageInstance ? LangChainMessage : never) | PlainOfObjects<Exclude<T, LangChainMessageInstance>>;

/** {@link PlainOf} for plain object types `P` (taken whole: a union is one history's type). */
type PlainOfObjects<P> = [P] extends [never] ? never : [FittingFormats<P>] extends [never] ? AnyFormatMessage : FittingFormats<P>;

/** The message types of the formats whose every message is assignable to `T`. */
type FittingFormats<T> = { [F in Format]: [FormatMessages[F]] extends [T] ? FormatMessages[F] : never }[Format];
