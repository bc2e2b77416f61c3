/**
 * Reads the structure of a message array without converting it: the compact skeleton text that
 * the wasm core's `parse_skeleton` reads (src/repair/shape.rs documents the format).
 *
 * Detection mirrors `src/message/formats/mod.rs::detect`; the Node test
 * `skeleton.test.mjs` checks on every fixture that this skeleton equals the one the core derives
 * from fully decoded messages, so the two cannot drift silently.
 */

const RS = "\u001e";
const FS = "\u001f";

type Obj = Record<string, any>;
type Fmt = "l" | "o" | "a" | "s" | "g";

interface Unit {
  role: "s" | "u" | "a" | "t";
  flags: string;
  toolCallId: string;
  calls: string[]; // id, name, "v"|"i" triples
}

const ANTHROPIC_PARTS = new Set(["tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use", "web_search_tool_result"]);
const AI_SDK_PARTS = new Set(["tool-call", "tool-result", "reasoning", "file", "tool-approval-request", "tool-approval-response"]);
const OPENAI_PARTS = new Set(["image_url", "input_audio", "refusal"]);
const MEDIA = ["image", "audio", "file", "document", "media"];

/** The format of one message when certain, or null for a plain `{role, content: string}`. */
function detect(m: any): Fmt | null | undefined {
  if (m === null || typeof m !== "object" || Array.isArray(m)) return undefined;
  if ("lc" in m && "kwargs" in m) return "l";
  if (typeof m.type === "string" && !("role" in m)) return "l";
  if (m.type === "message") return "a"; // an Anthropic Messages API response kept whole
  if (Array.isArray(m.parts)) return "g";
  const role = m.role;
  if (typeof role !== "string") return undefined;
  if (role === "model") return "g";
  if ("tool_calls" in m || "tool_call_id" in m || role === "developer") return "o";
  if ("providerOptions" in m) return "s";
  if (Array.isArray(m.content)) {
    for (const p of m.content) {
      const t = p?.type;
      if (typeof t === "string") {
        if (ANTHROPIC_PARTS.has(t)) return "a";
        if (AI_SDK_PARTS.has(t)) return "s";
        if (OPENAI_PARTS.has(t)) return "o";
      }
      if (p && (p.cache_control !== undefined || p.citations !== undefined)) return "a";
      if (p && p.providerOptions !== undefined) return "s";
    }
  }
  return null;
}

function isMedia(p: any, fmt: Fmt): boolean {
  if (fmt === "g") return !!(p?.inlineData || p?.fileData);
  const t = p?.type;
  return typeof t === "string" && MEDIA.some((k) => t.includes(k));
}

function isText(p: any, fmt: Fmt): boolean {
  if (fmt === "g") return typeof p?.text === "string" && p.thought !== true;
  if (fmt === "l" && typeof p === "string") return true;
  return p?.type === "text";
}

function textOf(p: any, fmt: Fmt): string {
  return fmt === "l" && typeof p === "string" ? p : (p?.text ?? "");
}

/** Flags `e` (an empty text part) and `n` (no content) of a content value. */
function contentFlags(content: any, fmt: Fmt): string {
  if (content === undefined || content === null || content === "") return "n";
  if (!Array.isArray(content)) return "";
  let empty = false;
  let allEmpty = true;
  for (const p of content) {
    const emptyText = isText(p, fmt) && textOf(p, fmt) === "";
    if (emptyText) empty = true;
    else allEmpty = false;
  }
  return (empty ? "e" : "") + (allEmpty ? "n" : "");
}

/** Tool-content letter: S text, T text parts, E empty list, J JSON, M media. */
function toolKind(content: any, fmt: Fmt): string {
  if (content === undefined || content === null || typeof content === "string") return "S";
  if (!Array.isArray(content)) return "J";
  if (content.length === 0) return "E";
  if (content.every((p) => isText(p, fmt))) return "T";
  if (content.some((p) => (p?.type === "image_url") || isMedia(p, fmt))) return "M";
  return "J";
}

function placeholder(content: any, fmt: Fmt, id: string): boolean {
  const text = typeof content === "string" ? content : Array.isArray(content) && content.every((p) => isText(p, fmt)) ? content.map((p) => textOf(p, fmt)).join("") : "";
  return text.startsWith("Tool call ") && text.includes(` with id ${id} `);
}

function tool(id: string, content: any, fmt: Fmt, status: "success" | "error" | undefined): Unit {
  let flags = toolKind(content, fmt) + contentFlags(content, fmt);
  if (status === "error") flags += "x";
  if (status !== "success" && placeholder(content, fmt, id)) flags += "y";
  return { role: "t", flags, toolCallId: id, calls: [] };
}

function validJson(text: unknown): boolean {
  // Non-string arguments (an object, null) are read by the core as JSON or as no arguments: valid.
  if (typeof text !== "string") return true;
  if (text.trim() === "") return true;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function roleOf(r: string): Unit["role"] | undefined {
  switch (r) {
    case "system": case "developer": return "s";
    case "user": case "human": case "HumanMessageChunk": return "u";
    case "assistant": case "ai": case "AIMessageChunk": return "a";
    case "tool": case "ToolMessageChunk": return "t";
  }
  return undefined;
}

const LC_CLASS: Record<string, string> = { AIMessage: "ai", HumanMessage: "human", SystemMessage: "system", ToolMessage: "tool" };

function langchain(m: Obj): Unit[] | undefined {
  if ("lc" in m && "kwargs" in m && Array.isArray(m.id)) {
    const cls = String(m.id[m.id.length - 1] ?? "").replace(/Chunk$/, "");
    m = { type: LC_CLASS[cls] ?? "unknown", ...m.kwargs };
  } else if (typeof m.type === "string" && m.data && typeof m.data === "object" && !Array.isArray(m.data)) {
    m = { ...m.data, type: m.type };
  }
  const role = roleOf(m.type);
  if (!role) return undefined;
  if (role === "t") {
    if (typeof m.tool_call_id !== "string" || m.tool_call_id === "") return undefined;
    return [tool(m.tool_call_id, m.content, "l", m.status ?? undefined)];
  }
  const calls: string[] = [];
  for (const c of m.tool_calls ?? []) { if (typeof c?.id !== "string") return undefined; calls.push(c.id, c.name ?? "", "v"); }
  for (const c of m.invalid_tool_calls ?? []) { if (typeof c?.id !== "string") return undefined; calls.push(c.id, c.name ?? "", "i"); }
  return [{ role, flags: contentFlags(m.content, "l"), toolCallId: "", calls }];
}

function openai(m: Obj): Unit[] | undefined {
  const role = roleOf(m.role);
  if (!role || m.role === "human" || m.role === "ai") return undefined;
  if (role === "t") {
    if (typeof m.tool_call_id !== "string" || m.tool_call_id === "") return undefined;
    return [tool(m.tool_call_id, m.content, "o", undefined)];
  }
  const calls: string[] = [];
  for (const c of m.tool_calls ?? []) {
    if (typeof c?.id !== "string") return undefined;
    calls.push(c.id, c.function?.name ?? "", validJson(c.function?.arguments) ? "v" : "i");
  }
  return [{ role, flags: contentFlags(m.content, "o"), toolCallId: "", calls }];
}

function anthropic(m: Obj): Unit[] | undefined {
  const role = m.role === "user" ? "u" : m.role === "assistant" ? "a" : m.role === "system" ? "s" : undefined;
  if (!role) return undefined;
  if (typeof m.content === "string") return [{ role, flags: contentFlags(m.content, "a"), toolCallId: "", calls: [] }];
  if (!Array.isArray(m.content)) return undefined;
  if (role === "a") {
    const calls: string[] = [];
    const parts: any[] = [];
    for (const b of m.content) {
      if (b?.type === "tool_use") { if (typeof b.id !== "string") return undefined; calls.push(b.id, b.name ?? "", "v"); }
      else parts.push(b);
    }
    return [{ role, flags: contentFlags(parts, "a"), toolCallId: "", calls }];
  }
  const out: Unit[] = [];
  let pending: any[] = [];
  for (const b of m.content) {
    if (b?.type !== "tool_result") { pending.push(b); continue; }
    if (pending.length) { out.push({ role, flags: contentFlags(pending, "a"), toolCallId: "", calls: [] }); pending = []; }
    const id = typeof b.tool_use_id === "string" ? b.tool_use_id : "";
    if (id === "") return undefined;
    out.push(tool(id, b.content, "a", b.is_error === true ? "error" : b.is_error === false ? "success" : undefined));
  }
  if (pending.length || out.length === 0) out.push({ role, flags: contentFlags(pending, "a"), toolCallId: "", calls: [] });
  return out;
}

function aiSdk(m: Obj): Unit[] | undefined {
  const role = m.role === "system" ? "s" : m.role === "user" ? "u" : m.role === "assistant" ? "a" : m.role === "tool" ? "t" : undefined;
  if (!role) return undefined;
  if (typeof m.content === "string" && role !== "t") return [{ role, flags: contentFlags(m.content, "s"), toolCallId: "", calls: [] }];
  if (!Array.isArray(m.content)) return undefined;
  if (role === "t") {
    const out: Unit[] = [];
    for (const p of m.content) {
      const id = p?.toolCallId ?? p?.approvalId;
      if (typeof id !== "string" || id === "") return undefined;
      if (p.type !== "tool-result") { out.push({ role: "t", flags: "J", toolCallId: id, calls: [] }); continue; }
      const o = p.output;
      let content: any = undefined;
      let status: "success" | "error" | undefined = p.isError === true ? "error" : p.isError === false ? "success" : undefined;
      if (o && typeof o === "object") {
        const t = o.type;
        if (t === "text" || t === "error-text") content = typeof o.value === "string" ? o.value : JSON.stringify(o.value ?? "");
        else if (t === "json" || t === "error-json") content = JSON.stringify(o.value);
        else if (t === "content") content = Array.isArray(o.value) ? o.value : [];
        else content = [o];
        status = t === "text" || t === "json" || t === "content" ? "success" : t === "error-text" || t === "error-json" ? "error" : undefined;
      } else if ("result" in p) {
        content = typeof p.result === "string" ? p.result : JSON.stringify(p.result);
      }
      out.push(tool(id, content, "s", status));
    }
    return out;
  }
  const calls: string[] = [];
  const parts: any[] = [];
  for (const p of m.content) {
    if (p?.type === "tool-call") { if (typeof p.toolCallId !== "string") return undefined; calls.push(p.toolCallId, p.toolName ?? "", "v"); }
    else parts.push(p);
  }
  return [{ role, flags: contentFlags(parts, "s"), toolCallId: "", calls }];
}

function gemini(m: Obj): Unit[] | undefined {
  const r = m.role ?? "user";
  const role = r === "model" || r === "assistant" ? "a" : r === "system" ? "s" : r === "user" || r === "function" || r === "tool" ? "u" : undefined;
  if (!role || !Array.isArray(m.parts)) return undefined;
  const calls: string[] = [];
  const out: Unit[] = [];
  let pending: any[] = [];
  for (const p of m.parts) {
    if (p?.functionCall) {
      if (typeof p.functionCall.id !== "string" || p.functionCall.id === "") return undefined; // id-less: paired by the core
      calls.push(p.functionCall.id, p.functionCall.name ?? "", "v");
    } else if (p?.functionResponse) {
      const fr = p.functionResponse;
      if (typeof fr.id !== "string" || fr.id === "") return undefined;
      if (pending.length) { out.push({ role, flags: contentFlags(pending, "g"), toolCallId: "", calls: [] }); pending = []; }
      const r = fr.response;
      let content: any = undefined;
      let status: "error" | undefined;
      if (r && typeof r === "object" && !Array.isArray(r) && Object.keys(r).length === 1 && typeof r.result === "string") content = r.result;
      else if (r && typeof r === "object" && !Array.isArray(r) && Object.keys(r).length === 1 && "error" in r) { content = typeof r.error === "string" ? r.error : JSON.stringify(r.error); status = "error"; }
      else if (r !== undefined) content = JSON.stringify(r);
      out.push(tool(fr.id, content, "g", status));
    } else pending.push(p);
  }
  if (role === "a") return [{ role, flags: contentFlags(pending, "g"), toolCallId: "", calls }, ...out];
  if (pending.length || out.length === 0) out.push({ role, flags: contentFlags(pending, "g"), toolCallId: "", calls: [] });
  return out;
}

const READERS: Record<Fmt, (m: Obj) => Unit[] | undefined> = { l: langchain, o: openai, a: anthropic, s: aiSdk, g: gemini };

/**
 * The skeleton of `messages`, or `undefined` when some message needs the full decoder (an
 * unusual shape, an id containing a separator character, id-less Gemini calls): the caller then
 * takes the JSON path, which reports the exact error.
 */
export function skeleton(messages: readonly unknown[]): string | undefined {
  const detected = messages.map(detect);
  if (detected.includes(undefined)) return undefined;
  // Plain `{role, content}` messages take the dominant role-based format (as decode_messages does).
  const sure = detected.find((d) => d !== null);
  const dominant: Fmt = sure === "a" || sure === "s" ? sure : "o";
  const records: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const fmt = (detected[i] ?? dominant) as Fmt;
    const units = READERS[fmt](messages[i] as Obj);
    if (!units) return undefined;
    for (const u of units) {
      const fields = [String(i), fmt, u.role, u.flags, u.toolCallId, ...u.calls];
      for (const f of fields) if (f.includes(RS) || f.includes(FS)) return undefined;
      records.push(fields.join(FS));
    }
  }
  return records.join(RS);
}
