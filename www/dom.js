// Small DOM and text helpers shared by the page's modules: $ (an element by id), h() (an
// element builder), number and text formatting, the status line of the scenario bar, error
// wording, and a plain rendering of any JSON value (a display of the value, not a reading of it).

export const $ = (id) => document.getElementById(id);
export const fmt = (n) => Number(n).toLocaleString("en-US");

/** `h("div", {class: "x"}, child, [children], "text")`: attributes false/null/undefined are left out. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function randomId() {
  const bytes = new Uint8Array(6);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function clip(text, n) {
  const s = String(text ?? "");
  return s.length > n ? `${s.slice(0, n)}… (+${fmt(s.length - n)} chars)` : s;
}

/** Text for display: line breaks normalised, control characters (terminal spinners, \r) removed. */
export function printable(text) {
  return String(text ?? "").replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

/**
 * Any JSON value as indented `key: value` lines, strings unquoted with their own line breaks.
 * It shows the value's structure as it is; it knows nothing about any message format.
 */
export function plainJson(value, pad = "") {
  if (value === null || typeof value !== "object") {
    const s = typeof value === "string" ? printable(value) : JSON.stringify(value);
    return s.replace(/\n/g, `\n${pad}`);
  }
  const items = Array.isArray(value) ? value.map((v) => ["-", v]) : Object.entries(value).map(([k, v]) => [`${k}:`, v]);
  if (!items.length) return Array.isArray(value) ? "[]" : "{}";
  const out = items.map(([k, v]) => {
    const inner = plainJson(v, `${pad}  `);
    // A list item's first key goes on the item's line: "- text: …".
    if (k === "-" && inner.startsWith(`\n${pad}  `)) return `\n${pad}- ${inner.slice(pad.length + 3)}`;
    return `\n${pad}${k}${inner.startsWith("\n") ? "" : " "}${inner}`;
  }).join("");
  return pad === "" ? out.slice(1) : out;
}

/** The status line of the scenario bar. */
export function status(text, isError = false) {
  const el = $("scenario-status");
  el.textContent = text;
  el.title = text;
  el.classList.toggle("error", isError);
}

/** A stategate error as `CODE: message`, anything else as its message. */
export function explain(e) {
  return e?.code ? `${e.code}: ${e.message.replace(/^[A-Z_]+: /, "")}` : String(e?.message ?? e);
}

export function section(title, ...content) {
  return h("div", { class: "sec" }, h("h3", {}, title), ...content);
}

export function statusBadge(s) {
  return h("span", { class: `status ${s ?? ""}` }, s ?? "—");
}

export function muted(text) {
  return h("p", { class: "muted", style: "margin:0;font-size:12px" }, text);
}
