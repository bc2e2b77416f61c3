// `stategate/messages` (issue 17, row 5): the message gate — validate, repair, convert, decode,
// providerOf — on its own smaller wasm module, built from the same Rust without the store.
//
// - It exports exactly those functions (plus load / loadSync and the error helpers), and its
//   entries never load the whole module: their import graphs (esbuild's resolver over pkg/, per
//   runtime condition) hold the message gate's glue and wasm and not the other's, and the module
//   itself exports none of the store's functions.
// - Differential: every call gives what the bare import gives — the same value, or the same
//   error (code, message, details) — over every run of the real transcripts in every format,
//   each validated for every provider, repaired for every provider and with each option, decoded
//   and converted into every format, the same lists mutated at random places (a seeded PRNG), and
//   hostile values (throwing getters, revoked Proxies, cycles, deep nesting, lone surrogates).
//
// Run: node --test tests/js/messages-entry.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import * as esbuild from "esbuild";
import * as full from "../../pkg/index.js";
import * as lean from "../../pkg/messages.js";
import { mulberry32 } from "../support/prng.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PKG = path.join(ROOT, "pkg");
const FORMATS = ["langchain", "openai", "anthropic", "ai-sdk", "gemini", "ui", "responses", "openai-agents"];
const PROVIDERS = ["openai", "anthropic", "gemini"];
const FUNCTIONS = ["validateMessages", "repairMessages", "convertMessages", "decodeMessages", "providerOf"];

test("stategate/messages exports the message gate and nothing of the store", () => {
  assert.deepEqual(Object.keys(lean).sort(), [...FUNCTIONS, "StategateError", "isStategateError", "load", "loadSync", "stategateError"].sort());
  for (const name of FUNCTIONS) assert.equal(typeof lean[name], "function", name);
  // The module itself: the message gate's exports, none of the store's.
  const exports = (file) => WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(path.join(PKG, file)))).map((e) => e.name);
  const small = exports("messages/stategate_messages_bg.wasm");
  const whole = exports("stategate_wasm_bg.wasm");
  for (const name of ["repairSkeleton", "validateSkeleton", "repairJson", "validateJson", "convertMessages", "decodeMessages", "providerOf", "errorCodes", "skeletonLayout"]) {
    assert.ok(small.includes(name), `${name} missing from the message gate's module`);
  }
  for (const name of ["statestore_new", "readTranscript", "readStream", "projectMessages", "verifyLog", "useHostSha256"]) {
    assert.ok(whole.includes(name), `${name} expected in the whole module (the check below would prove nothing)`);
    assert.ok(!small.includes(name), `${name} is in the message gate's module`);
  }
  assert.ok(small.every((name) => whole.includes(name)), "every export of the small module is the whole module's too");
});

test("every stategate/messages entry loads the message gate's module only", async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8"));
  const entry = manifest.exports["./messages"];
  const files = new Set([entry.node.import, entry.node.require, entry.browser, entry.workerd, entry["edge-light"], manifest.exports["./messages/web"].import]);
  assert.equal(manifest.exports["./messages/wasm"].default, "./messages/stategate_messages_bg.wasm");
  for (const file of files) {
    const { metafile } = await esbuild.build({
      entryPoints: [path.join(PKG, file)],
      bundle: true,
      write: false,
      metafile: true,
      format: "esm",
      platform: file.endsWith(".cjs") || file === entry.node.import ? "node" : "neutral",
      loader: { ".wasm": "file" },
      outdir: "/nowhere",
      logLevel: "silent",
    });
    const inputs = Object.keys(metafile.inputs).map((f) => path.relative(PKG, path.resolve(ROOT, f)));
    assert.ok(!inputs.includes("stategate_wasm.js") && !inputs.includes("stategate_wasm_bg.wasm") && !inputs.includes("api.js"), `${file} pulls in the whole module: ${inputs.join(", ")}`);
    if (!file.endsWith(".cjs")) assert.ok(inputs.includes("messages/stategate_messages.js"), `${file}: ${inputs.join(", ")}`);
  }
});

/** What a call gives: its value, or what it threw (a StategateError's code, message, details). */
function outcome(f) {
  try {
    return { value: f() };
  } catch (e) {
    return lean.isStategateError(e) ? { code: e.code, message: e.message, details: e.details } : { raw: String(e) };
  }
}

/** Both entries' answers to one call, which must be the same; how many calls were compared. */
let compared = 0;
function same(name, ...args) {
  const a = outcome(() => full[name](...args));
  const b = outcome(() => lean[name](...args));
  assert.deepEqual(b, a, `${name} differs`);
  assert.ok(!("raw" in a), `${name} threw something that is not a StategateError: ${a.raw}`);
  compared++;
  return a;
}

/** Every call of the message gate on one list of messages (an array, or its JSON text). */
function everyCall(messages) {
  for (const provider of PROVIDERS) {
    same("validateMessages", messages, { provider });
    same("repairMessages", messages, { provider });
  }
  same("repairMessages", messages, { provider: "anthropic", keepOrphans: true, reasons: { c1: "interrupted" } });
  same("decodeMessages", messages);
  for (const to of FORMATS) same("convertMessages", messages, { to });
}

const fixture = (name) => fs.readFileSync(path.join(ROOT, "tests/fixtures/transcripts", name), "utf8");
const RUNS = [
  ...full.readTranscript(fixture("taubench-gpt4o-airline-historical.json")).runs.slice(0, 12),
  ...["claudecode-coverage-test-fix.jsonl", "sweagent-marshmallow-1867-fc.traj", "openhands-basic-gui-mode.json"].map((f) => full.readTranscript(fixture(f)).runs[0]),
];

test("the real transcripts, in every format: the same answers as the bare import", () => {
  let lists = 0;
  for (const run of RUNS) {
    for (const format of FORMATS) {
      const messages = full.convertMessages(run, { to: format });
      everyCall(messages);
      everyCall(JSON.stringify(messages));
      lists++;
    }
  }
  assert.equal(lists, RUNS.length * FORMATS.length);
  for (const format of [...FORMATS, "nope", 5, undefined]) same("providerOf", format);
});

/** `v` with one random change at a random depth: a value replaced, a key dropped or added. */
function mutate(rand, v) {
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const junk = [null, 0, -1, 1.5, "", "x", true, [], {}, { type: "tool_result" }, "\ud800", { role: "tool" }, [{}]];
  if (Array.isArray(v) && v.length && rand() < 0.7) {
    const i = Math.floor(rand() * v.length);
    const out = [...v];
    out[i] = rand() < 0.2 ? pick(junk) : mutate(rand, v[i]);
    return out;
  }
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const keys = Object.keys(v);
    const out = { ...v };
    const r = rand();
    if (keys.length && r < 0.5) out[pick(keys)] = rand() < 0.5 ? pick(junk) : mutate(rand, v[pick(keys)]);
    else if (keys.length && r < 0.75) delete out[pick(keys)];
    else out[pick(["id", "type", "role", "content", "tool_calls", "tool_call_id", "parts", "name", "args", "extra", "origin"])] = pick(junk);
    return out;
  }
  return pick(junk);
}

test("the same lists mutated at random places: the same answers, or the same errors", () => {
  const rand = mulberry32(0x6a7e17);
  const bases = RUNS.slice(0, 6).flatMap((run) => FORMATS.map((to) => full.convertMessages(run.slice(0, 12), { to })));
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const messages = mutate(rand, bases[i % bases.length]);
    if ("code" in same("decodeMessages", messages)) refused++;
    same("validateMessages", messages, { provider: PROVIDERS[i % 3] });
    same("repairMessages", messages, { provider: PROVIDERS[(i + 1) % 3] });
    same("convertMessages", messages, { to: FORMATS[i % FORMATS.length] });
  }
  // Both kinds were compared: lists refused, and lists read.
  assert.ok(refused > 40 && refused < 360, `${refused} of 400 mutated lists refused`);
});

test("hostile values: the same errors", () => {
  const cycle = [{ role: "user", content: "x" }];
  cycle[0].self = cycle;
  let deep = [];
  for (let i = 0; i < 20_000; i++) deep = [deep];
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  const getter = [{ role: "user", get content() { throw new Error("boom"); } }];
  const inputs = [undefined, null, 5, "not json", "[1,", "{}", {}, [undefined], [null], cycle, [{ role: "user", content: deep }], proxy, getter, [{ role: "user", content: "\ud800" }], [{ role: "user", content: 10n }], new Map(), [new Date(0)]];
  for (const messages of inputs) {
    same("validateMessages", messages, { provider: "openai" });
    same("repairMessages", messages);
    same("convertMessages", messages, { to: "anthropic" });
    same("decodeMessages", messages);
  }
  const history = [{ role: "user", content: "hi" }];
  for (const opts of [undefined, null, {}, { provider: "nope" }, { provider: 1 }]) same("validateMessages", history, opts);
  for (const opts of [null, { provider: "nope" }, { reasons: 5 }, { keepOrphans: "yes" }, { extra: 1 }]) same("repairMessages", history, opts);
  for (const opts of [undefined, {}, { to: "nope" }, { to: "openai", from: "nope" }]) same("convertMessages", history, opts);
  assert.ok(compared > 5_000, `${compared} calls compared`);
});

test("a failed load leaves both loaders able to load: a foreign module or the other module is refused before the glue keeps it", () => {
  // In a fresh process each (the glue keeps the first module it instantiates: a wrong one used to
  // make every later load fail). Found by a fresh-eyes round of issue 17.
  const program = (entry, other) => `
import assert from "node:assert/strict";
import fs from "node:fs";
const web = await import(${JSON.stringify(new URL(`../../pkg/${entry}`, import.meta.url).href)});
const own = fs.readFileSync(${JSON.stringify(path.join(PKG, other.own))});
const wrong = fs.readFileSync(${JSON.stringify(path.join(PKG, other.wrong))});
const empty = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
const refused = (f, pattern) => assert.throws(f, (e) => e.code === "NOT_LOADED" && pattern.test(e.message), String(pattern));
refused(() => web.loadSync(empty), /it is not the wasm module of stategate.*it has no export \`errorCodes\`/);
refused(() => web.loadSync(wrong), /could not be instantiated/);
await assert.rejects(web.load(new WebAssembly.Module(empty)), (e) => e.code === "NOT_LOADED" && /it has no export/.test(e.message));
await assert.rejects(web.load(new Uint8Array([1, 2, 3])), (e) => e.code === "NOT_LOADED");
await assert.rejects(web.load("http://127.0.0.1:9/x.wasm"), (e) => e.code === "NOT_LOADED" && /http:\\/\\/127\\.0\\.0\\.1:9\\/x\\.wasm/.test(e.message));
assert.throws(() => web.repairMessages([]), (e) => e.code === "NOT_LOADED");
await web.load(own);
assert.deepEqual(web.validateMessages([{ role: "user", content: "hi" }], { provider: "openai" }), []);
console.log("loaded after", 5, "refusals");
`;
  const cases = [
    ["web.js", { own: "stategate_wasm_bg.wasm", wrong: "messages/stategate_messages_bg.wasm" }],
    ["messages-web.js", { own: "messages/stategate_messages_bg.wasm", wrong: "stategate_wasm_bg.wasm" }],
  ];
  for (const [entry, other] of cases) {
    const out = execFileSync(process.execPath, ["--input-type=module", "--eval", program(entry, other)], { encoding: "utf8" });
    assert.equal(out.trim(), "loaded after 5 refusals", entry);
  }
});

test("a repair whose placeholders would not fit the module's memory is TOO_LARGE, and the module still answers", () => {
  // 500,000 dangling Gemini calls (20 MB of JSON) with a 1,024-character template asked for 2 GB
  // of text and trapped the module, which then answered nothing (fresh-eyes round, issue 17).
  // 40,000 calls with that template ask for 164 MB, past the 128 MiB the placeholders may hold.
  const text = JSON.stringify([{ role: "model", parts: Array.from({ length: 40_000 }, () => ({ functionCall: { name: "a", args: {} } })) }]);
  for (const api of [lean, full]) {
    assert.throws(() => api.repairMessages(text, { provider: "gemini", text: "😀".repeat(1024) }), (e) => e.code === "TOO_LARGE" && e.details.field === "text" && /40000 placeholder results/.test(e.message));
    assert.deepEqual(api.validateMessages([{ role: "user", content: [{ type: "text", text: "hi" }] }], { provider: "anthropic" }), []);
  }
  // The store's repair is bounded the same way, and leaves the store as it was.
  const store = new full.StateStore({ runId: "big" });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: Array.from({ length: 33_000 }, (_, k) => ({ id: `c${k}`, type: "function", function: { name: "f", arguments: "{}" } })) }] } });
  const before = [store.version, store.lastHash];
  assert.throws(() => store.repair({ text: "😀".repeat(1024) }), (e) => e.code === "TOO_LARGE");
  assert.deepEqual([store.version, store.lastHash], before);
  assert.equal(store.repair().report.length, 33_000);
  store.free();
});

test("loads that overlap, sources of any realm and any Content-Type: each failure is its own NOT_LOADED, naming what was fetched", () => {
  // A fresh process: an http server on loopback serving the module as application/wasm, with a
  // parameter (which compileStreaming refuses: the bytes are compiled instead), a 404 and a
  // server that never answers. Found by the second fresh-eyes round of issue 17.
  const program = `
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import vm from "node:vm";
const web = await import(${JSON.stringify(new URL("../../pkg/messages-web.js", import.meta.url).href)});
const bytes = fs.readFileSync(${JSON.stringify(path.join(PKG, "messages/stategate_messages_bg.wasm"))});
const server = http.createServer((req, res) => {
  if (req.url === "/hang.wasm") return; // never answers
  if (req.url === "/param.wasm") { res.writeHead(200, { "Content-Type": "application/wasm; charset=binary" }); return res.end(bytes); }
  res.writeHead(404, { "Content-Type": "text/plain" }); res.end("no");
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = "http://127.0.0.1:" + server.address().port;
const notLoaded = (pattern) => (e) => e.code === "NOT_LOADED" && pattern.test(e.message);
// Never a synchronous throw, always NOT_LOADED naming the source.
const revoked = Proxy.revocable({}, {}); revoked.revoke();
await assert.rejects(web.load(revoked.proxy), notLoaded(/from a source that cannot be read|from an object/));
await assert.rejects(web.load({ get href() { throw new Error("x"); } }), notLoaded(/NOT_LOADED/));
await assert.rejects(web.load(""), notLoaded(/from an empty URL/));
await assert.rejects(web.load(new Response("no", { status: 404, statusText: "Nope" })), notLoaded(/answered 404 Nope/));
await assert.rejects(web.load("http://127.0.0.1:9/x.wasm"), notLoaded(/127\\.0\\.0\\.1:9\\/x\\.wasm: fetch failed: /));
// A bad load and a good one at once: the bad one fails alone (or, settling after the good one,
// gives its API), the good one loads, even while a third never gets an answer.
const hanging = web.load(base + "/hang.wasm");
const [bad, good] = await Promise.allSettled([web.load(base + "/missing.wasm"), web.load(base + "/param.wasm")]);
if (bad.status === "rejected") assert.match(bad.reason.message, /missing\\.wasm: fetching .*missing\\.wasm answered 404/);
assert.equal(good.status, "fulfilled", good.reason?.message);
const junk = web.load(new Uint8Array([1, 2, 3]));
assert.deepEqual(web.validateMessages([{ role: "user", content: "hi" }], { provider: "openai" }), []);
// Once loaded, load() answers at once whatever it is given; loadSync too.
assert.equal(await web.load(base + "/hang.wasm"), good.value);
assert.equal(web.loadSync(new Uint8Array(8)), good.value);
assert.equal(await junk, good.value);
server.closeAllConnections(); server.close();
assert.equal(await hanging, good.value, "a load that fails once the module is loaded gives the API");
console.log("overlapping loads ok");
`;
  assert.equal(execFileSync(process.execPath, ["--input-type=module", "--eval", program], { encoding: "utf8" }).trim(), "overlapping loads ok");
  // loadSync after k ticks of a pending load() of a module of another realm: before the load
  // instantiates it loads (the load then gives the same API), while it instantiates it is
  // refused; either way a store made at once keeps working (a second instance under it broke it).
  const swap = (k) => `
import assert from "node:assert/strict";
import fs from "node:fs";
import vm from "node:vm";
const web = await import(${JSON.stringify(new URL("../../pkg/web.js", import.meta.url).href)});
const bytes = fs.readFileSync(${JSON.stringify(path.join(PKG, "stategate_wasm_bg.wasm"))});
const other = vm.runInNewContext("new WebAssembly.Module(bytes)", { bytes: new Uint8Array(bytes) });
assert.ok(!(other instanceof WebAssembly.Module));
const pending = web.load(other);
for (let i = 0; i < ${k}; i++) await null;
let outcome = "loaded";
try { web.loadSync(bytes); } catch (e) { assert.equal(e.code, "NOT_LOADED"); outcome = /instantiating/.test(e.message) ? "refused" : "not yet: " + e.message; }
const store = outcome === "loaded" ? new web.StateStore({ runId: "a" }) : undefined;
store?.apply({ author: "u", update: { messages: [{ role: "user", content: "kept" }] } });
const api = await pending;
const s = store ?? new api.StateStore({ runId: "a" });
if (!store) s.apply({ author: "u", update: { messages: [{ role: "user", content: "kept" }] } });
assert.deepEqual([s.runId, s.messages().map((m) => m.content)], ["a", ["kept"]]);
console.log(outcome);
`;
  const outcomes = new Set();
  for (let k = 0; k < 12; k++) outcomes.add(execFileSync(process.execPath, ["--input-type=module", "--eval", swap(k)], { encoding: "utf8" }).trim());
  assert.ok([...outcomes].every((o) => o === "loaded" || o === "refused"), [...outcomes].join(", "));
  assert.ok(outcomes.has("loaded") && outcomes.has("refused"), `both sides of the race seen: ${[...outcomes].join(", ")}`);
});
