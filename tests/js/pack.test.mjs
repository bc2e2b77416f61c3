// The package as people install it (issue 16): `npm pack` of pkg/, installed from its tarball
// into a fresh project, then used from every place a user would — Node ES modules and CommonJS,
// `tsc --strict` under bundler / node16 / nodenext (ESM and .cts) with `lib: ["es2022"]` alone,
// an esbuild bundle and a Vite build each in headless Chromium (the Vite page with a module Web
// Worker), a workerd-condition bundle run in real workerd (Miniflare) and an edge-light one. Each runs tests/pack/app.js (the
// same validate / repair / StateStore / modelView program) and asserts its EXPECTED values; the
// message gate's entry, `stategate/messages` (issue 17), is used from the same places and runs
// app.js's runMessages, with only its own, smaller wasm in each bundle.
//
// Env: CHROMIUM_PATH (default /usr/bin/chromium). Run: node --test tests/js/pack.test.mjs

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "../../scripts/serve.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(ROOT, "node_modules/.bin");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const { EXPECTED, EXPECTED_MESSAGES } = await import(pathToFileURL(path.join(ROOT, "tests/pack/app.js")).href);

/** An import (or require) of a Node built-in module in bundled code. */
const NODE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\(\s*)["']node:/;

let dir; // the consumer project
let tarball;
let browser;

/** Runs a command in the project; its stdout, or a failure showing its output. */
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: dir, encoding: "utf8", ...opts });
  const clip = (t) => (t.length > 3000 ? `${t.slice(0, 1500)}\n…\n${t.slice(-1500)}` : t);
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")} failed (${r.status}):\n${clip(r.stdout)}\n${clip(r.stderr)}`);
  return r.stdout;
}

function write(file, text) {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-pack-"));
  const [packed] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", dir], { cwd: path.join(ROOT, "pkg"), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
  tarball = { ...packed, file: path.join(dir, packed.filename) };
  write("package.json", JSON.stringify({ name: "pack-consumer", private: true, type: "module" }));
  sh("npm", ["install", tarball.file, "--offline", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"]);
  write("src/app.js", fs.readFileSync(path.join(ROOT, "tests/pack/app.js"), "utf8"));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
});

after(async () => {
  await browser?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test("the tarball holds the wasm and the message gate's, README, LICENSE and an honest manifest", () => {
  const files = tarball.files.map((f) => f.path);
  assert.deepEqual(files.filter((f) => f.endsWith(".wasm")).sort(), ["messages/stategate_messages_bg.wasm", "stategate_wasm_bg.wasm"]);
  for (const f of ["README.md", "LICENSE", "package.json", "index.js", "index.cjs", "browser.js", "web.js", "workerd.js", "file-log.js", "file-log.cjs", "sse.js", "sse.cjs", "sse.d.ts", "sse.d.cts", "follow.js", "index.d.ts", "index.d.cts", "messages.js", "messages.cjs", "messages-browser.js", "messages-web.js", "messages-workerd.js", "messages.d.ts", "messages.d.cts", "messages-web.d.ts", "messages/stategate_messages.js"]) {
    assert.ok(files.includes(f), `${f} missing from the tarball: ${files.join(", ")}`);
  }
  assert.ok(!files.some((f) => f.startsWith("node/") || f.startsWith("web/")), "no second glue directory");
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "node_modules/stategate/package.json"), "utf8"));
  assert.equal(manifest.license, "MIT");
  assert.match(manifest.engines.node, /^>=\d+/);
  assert.ok(Array.isArray(manifest.sideEffects) && manifest.sideEffects.includes("./api.js"));
  for (const condition of ["workerd", "edge-light", "node", "browser", "worker", "default"]) {
    assert.ok(manifest.exports["."][condition], `exports["."].${condition}`);
    assert.ok(manifest.exports["./messages"][condition], `exports["./messages"].${condition}`);
  }
  for (const sub of ["./messages/web", "./messages/wasm"]) {
    for (const f of Object.values(manifest.exports[sub]).flatMap((v) => (typeof v === "string" ? [v] : Object.values(v)))) assert.ok(files.includes(f.slice(2)), `${f} of ${sub}`);
  }
  // Every adapter is a subpath with ES module, CommonJS and types for both; its framework an
  // optional peer (the core installs alone: this project has none of them).
  for (const adapter of ["ai-sdk", "langchain", "openai-agents"]) {
    const entry = manifest.exports[`./${adapter}`];
    assert.deepEqual(entry && [entry.import, entry.require, entry.types.import, entry.types.require], [`./${adapter}.js`, `./${adapter}.cjs`, `./${adapter}.d.ts`, `./${adapter}.d.cts`], adapter);
    for (const f of Object.values(entry).flatMap((v) => (typeof v === "string" ? [v] : Object.values(v)))) assert.ok(files.includes(f.slice(2)), `${f} of ${adapter}`);
  }
  // stategate/postgres-log: Node only, as stategate/file-log; `pg` an optional peer.
  const pgEntry = manifest.exports["./postgres-log"];
  assert.deepEqual(pgEntry && [pgEntry.node?.import, pgEntry.node?.require, pgEntry.types.import, pgEntry.types.require, pgEntry.default, pgEntry.browser], ["./postgres-log.js", "./postgres-log.cjs", "./postgres-log.d.ts", "./postgres-log.d.cts", undefined, undefined]);
  for (const f of ["postgres-log.js", "postgres-log.cjs", "postgres-log-class.js", "postgres-log.d.ts", "postgres-log.d.cts"]) assert.ok(files.includes(f), `${f} missing from the tarball`);
  assert.match(manifest.peerDependencies.pg, /^>=8\.\d+\.\d+ <9$/);
  // stategate/sse: Node only, ES module and CommonJS, types for both.
  assert.deepEqual(manifest.exports["./sse"], { types: { import: "./sse.d.ts", require: "./sse.d.cts" }, node: { import: "./sse.js", require: "./sse.cjs" } });
  for (const peer of Object.keys(manifest.peerDependencies)) assert.deepEqual(manifest.peerDependenciesMeta[peer], { optional: true }, peer);
  assert.ok(!fs.existsSync(path.join(dir, "node_modules/langchain")), "an optional peer was installed");
  assert.ok(!fs.existsSync(path.join(dir, "node_modules/pg")), "pg (an optional peer) was installed");
  const wasm = tarball.files.find((f) => f.path === "stategate_wasm_bg.wasm").size;
  assert.ok(tarball.size < wasm, `packed ${tarball.size} B is more than one compressed wasm (${wasm} B raw)`);
});

test("the tarball ships the docs its README and declarations link to; every relative link in them resolves to a shipped file", async () => {
  const { markdownLinks, isExternal, resolveLink, MAX_IMAGE_BYTES } = await import(pathToFileURL(path.join(ROOT, "scripts/package-docs.mjs")).href);
  const files = tarball.files.map((f) => f.path);
  const installed = path.join(dir, "node_modules/stategate");
  // Every docs/*.md of the repository and BENCHMARKS.md, nothing of docs/api/, no large image.
  const docs = fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`);
  assert.ok(docs.length >= 15 && docs.includes("docs/follow.md") && docs.includes("docs/errors.md"));
  for (const f of [...docs, "BENCHMARKS.md", "README.md"]) assert.ok(files.includes(f), `${f} missing from the tarball`);
  assert.ok(!files.some((f) => f.startsWith("docs/api/")), "docs/api/ is not shipped");
  for (const f of tarball.files) if (/\.(png|jpe?g|gif|webp|svg)$/i.test(f.path)) assert.ok(f.size <= MAX_IMAGE_BYTES, `${f.path}: ${f.size} bytes`);
  assert.ok(!files.includes("docs/screenshot.png"), "the ~290 KB screenshot stays in the repository");
  // Every relative link of every shipped Markdown file resolves to a shipped file.
  const markdown = files.filter((f) => f.endsWith(".md"));
  let checked = 0;
  for (const f of markdown) {
    const text = fs.readFileSync(path.join(installed, f), "utf8");
    for (const link of markdownLinks(text)) {
      if (isExternal(link.target)) continue;
      const to = resolveLink(f, link.target);
      assert.ok(files.includes(to), `${f}: the link ${link.target} (${to}) is not in the tarball`);
      checked++;
    }
    // examples/ links were rewritten to a statement of where they are, not left dangling.
    assert.ok(!/\]\((\.\.\/)?examples\//.test(text.replace(/```[\s\S]*?```/g, "")), `${f} still links into examples/`);
  }
  assert.ok(checked > 60, `only ${checked} relative links checked`);
  const readme = fs.readFileSync(path.join(installed, "README.md"), "utf8");
  assert.match(readme, /\]\(docs\/follow\.md\)/);
  assert.match(readme, /a Node agent loop \(in the repository: examples\/node-agent-loop\.mjs\)/);
  // The docs the declarations point to are there.
  for (const d of files.filter((f) => f.endsWith(".d.ts"))) {
    for (const [m] of fs.readFileSync(path.join(installed, d), "utf8").matchAll(/\bdocs\/[A-Za-z_.-]+\.md\b/g)) assert.ok(files.includes(m), `${d} points to ${m}, not shipped`);
  }
});

test("Node ES modules: the bare import, stategate/web's load(), stategate/file-log and stategate/postgres-log", () => {
  write(
    "esm.mjs",
    `import assert from "node:assert/strict";
import * as sg from "stategate";
import * as web from "stategate/web";
import { FileLog } from "stategate/file-log";
import { SseHub } from "stategate/sse";
import * as messages from "stategate/messages";
import { run, runMessages, EXPECTED, EXPECTED_MESSAGES } from "./src/app.js";
assert.deepEqual(run(sg), EXPECTED);
assert.deepEqual(runMessages(messages), EXPECTED_MESSAGES);
assert.deepEqual(runMessages(sg), EXPECTED_MESSAGES);
assert.notEqual(messages.repairMessages, sg.repairMessages, "stategate/messages binds its own module");
// A follower of a store in the same process, over the async-iterator path; the hub on it.
const server = new sg.StateStore({ runId: "pack" });
server.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
const follower = sg.followRun(function* () { yield { snapshot: server.exportForTransport() }; });
await follower.done;
assert.equal(follower.store.lastHash, server.lastHash);
const hub = new SseHub(server, { heartbeatMs: 0 });
assert.equal(hub.clients, 0);
hub.close();
assert.equal(await web.load(), await web.load(), "load() once, then the same API");
assert.equal(web.StateStore, sg.StateStore, "one binding behind every entry");
assert.equal(typeof FileLog.open, "function");
// Imports without pg installed; only connecting by a connection string needs it, and says so.
const { PostgresLog } = await import("stategate/postgres-log");
await assert.rejects(PostgresLog.connect("postgres://127.0.0.1:1/none"), (e) => e.code === "STORAGE_ERROR" && /npm i pg/.test(e.message));
console.log("esm ok");
`,
  );
  assert.equal(sh("node", ["esm.mjs"]).trim(), "esm ok");
  // stategate/web alone in a fresh process: load() reads the file: URL from disk (fetch cannot).
  write(
    "web-only.mjs",
    `import assert from "node:assert/strict";
import * as web from "stategate/web";
import { run, EXPECTED } from "./src/app.js";
assert.throws(() => web.validateMessages([], { provider: "openai" }), (e) => e.code === "NOT_LOADED" && /load\\(\\)/.test(e.message));
await web.load();
assert.deepEqual(run(web), EXPECTED);
console.log("web ok");
`,
  );
  assert.equal(sh("node", ["web-only.mjs"]).trim(), "web ok");
  // stategate/messages/web alone: its own load(), its own module.
  write(
    "messages-web-only.mjs",
    `import assert from "node:assert/strict";
import * as web from "stategate/messages/web";
import { runMessages, EXPECTED_MESSAGES } from "./src/app.js";
assert.throws(() => web.repairMessages([]), (e) => e.code === "NOT_LOADED" && /stategate\\/messages\\/web/.test(e.message));
assert.equal(await web.load(), await web.load(), "load() once, then the same API");
assert.deepEqual(runMessages(web), EXPECTED_MESSAGES);
console.log("messages web ok");
`,
  );
  assert.equal(sh("node", ["messages-web-only.mjs"]).trim(), "messages web ok");
});

test("Node CommonJS: require() of the CommonJS entries", () => {
  write(
    "cjs.cjs",
    `const assert = require("node:assert/strict");
const sg = require("stategate");
const { FileLog } = require("stategate/file-log");
assert.equal(typeof FileLog.open, "function");
const { PostgresLog } = require("stategate/postgres-log");
assert.equal(typeof PostgresLog.connect, "function");
const { SseHub } = require("stategate/sse");
assert.match(require.resolve("stategate/sse"), /sse\.cjs$/);
new SseHub(new sg.StateStore({}), { heartbeatMs: 0 }).close();
assert.equal(typeof sg.followRun, "function");
assert.equal(typeof sg.followEventSource, "function");
assert.match(require.resolve("stategate"), /index\\.cjs$/);
const messages = require("stategate/messages");
assert.match(require.resolve("stategate/messages"), /messages\\.cjs$/);
import("./src/app.js").then(({ run, runMessages, EXPECTED, EXPECTED_MESSAGES }) => {
  assert.deepEqual(run(sg), EXPECTED);
  assert.deepEqual(runMessages(messages), EXPECTED_MESSAGES);
  console.log("cjs ok");
});
`,
  );
  assert.equal(sh("node", ["cjs.cjs"]).trim(), "cjs ok");
});

test("tsc --strict with lib es2022 alone: bundler, node16 and nodenext, ES modules and .cts", () => {
  write(
    "types/esm.ts",
    `import { validateMessages, repairMessages, StateStore, StategateError, isStategateError, load, type Violation, type ErrorCode, type ModelView } from "stategate";
import * as web from "stategate/web";
import wasmUrl from "stategate/wasm";
import { FileLog } from "stategate/file-log";
import { PostgresLog, PostgresRun, type PgPool, type LoadedRun } from "stategate/postgres-log";
import { SseHub, type SseHubOptions, type SseConnect } from "stategate/sse";
import { followRun, followEventSource, type Follower, type FollowMessage, type FollowChange } from "stategate";
import * as gate from "stategate/messages";
import * as gateWeb from "stategate/messages/web";
import gateWasmUrl from "stategate/messages/wasm";

const violations: Violation[] = validateMessages([{ role: "user", content: "hi" }], { provider: "openai" });
// The message gate's entry: the same functions and types, its own loader.
const gateViolations: gate.Violation[] = gate.validateMessages([{ role: "user", content: "hi" }], { provider: "gemini" });
const gateFixes: gate.Fix[] = gate.repairMessages([{ role: "user", content: "hi" }], { provider: "anthropic" }).report;
const gateAnthropic: gate.AnthropicMessage[] = gate.convertMessages([], { to: "anthropic" });
const gateApi: Promise<gate.MessagesApi> = gateWeb.load(gateWasmUrl);
// @ts-expect-error: the store is not in the message gate's entry
gate.StateStore;
const store = new StateStore({ runId: "t" });
const version: number = store.version;
const view: ModelView = store.modelView({ budget: 1000 });
const code: ErrorCode = "VERSION_CONFLICT";
const api: Promise<unknown> = web.load(wasmUrl);
const same: typeof load = web.load;
const log: FileLog = FileLog.open("./state");
// A structural pool (pg's types are not needed to check these declarations).
declare const pool: PgPool;
const pgLog: Promise<PostgresLog> = PostgresLog.connect(pool, { checkpointEvery: 100, schema: "agents" });
const pgRun: Promise<PostgresRun> = pgLog.then((l) => l.open("r1"));
const pgApplied: Promise<number> = pgRun.then((r) => r.apply({ author: "user", update: {} })).then((a) => a.version);
const pgLoaded: Promise<LoadedRun> = pgLog.then((l) => l.load("r1"));
// @ts-expect-error: not an option
PostgresLog.connect(pool, { checkpointsEvery: 1 });
const hubOptions: SseHubOptions = { heartbeatMs: 0, onConnect: (c: SseConnect) => void c.resumed };
const hub: SseHub = new SseHub(store, hubOptions);
const messages: FollowMessage[] = [{ snapshot: store.exportForTransport() }, { events: store.transportEvents({ since: 0 }) }];
const follower: Follower = followRun(() => messages, { onChange: (c: FollowChange) => void c.applied });
const sseFollower: Follower = followEventSource("/events");
const lastSequence: number | null = follower.version;
hub.handle({ method: "GET", url: "/events", headers: {} }, { writeHead: () => {}, write: () => true, end: () => {}, destroy: () => {}, on: () => {}, writableLength: 0 });
const seen: unknown[] = [];
try {
  repairMessages([]);
} catch (e) {
  if (e instanceof StategateError) seen.push(e.code satisfies ErrorCode, e.details.index);
  if (isStategateError(e)) seen.push(e.message);
}
// @ts-expect-error: not a provider
validateMessages([], { provider: "nope" });
// @ts-expect-error: not an error code
const wrong: ErrorCode = "NOPE";
export { violations, version, view, code, api, same, log, wrong, seen, pgRun, pgApplied, pgLoaded, sseFollower, lastSequence, gateViolations, gateFixes, gateAnthropic, gateApi };
`,
  );
  write(
    "types/cjs.cts",
    `import { validateMessages, StateStore, StategateError, type Violation } from "stategate";
import { FileLog } from "stategate/file-log";
import { PostgresLog } from "stategate/postgres-log";
import { repairMessages as gateRepair, type RepairResult } from "stategate/messages";
const violations: Violation[] = validateMessages([], { provider: "anthropic" });
const store = new StateStore({});
const e = new StategateError("INVALID_OPTION", "x");
const repaired: RepairResult = gateRepair([] as unknown[], { provider: "openai" });
export = { violations, store, e, FileLog, PostgresLog, repaired };
`,
  );
  const base = { strict: true, noEmit: true, target: "es2022", lib: ["es2022"], types: [], skipLibCheck: false };
  const configs = {
    bundler: { compilerOptions: { ...base, module: "esnext", moduleResolution: "bundler" }, files: ["esm.ts"] },
    node16: { compilerOptions: { ...base, module: "node16", moduleResolution: "node16" }, files: ["esm.ts", "cjs.cts"] },
    nodenext: { compilerOptions: { ...base, module: "nodenext", moduleResolution: "nodenext" }, files: ["esm.ts", "cjs.cts"] },
  };
  for (const [name, config] of Object.entries(configs)) {
    write(`types/tsconfig.${name}.json`, JSON.stringify(config));
    const r = spawnSync(path.join(BIN, "tsc"), ["-p", `types/tsconfig.${name}.json`], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, `tsc (${name}) found errors:\n${r.stdout}${r.stderr}`);
  }
});

/** Serves `root` and opens `page` in Chromium; resolves with what the page put in window.result. */
async function inChromium(root, page = "index.html") {
  const server = await serve({ root, port: 0 });
  const tab = await browser.newPage();
  const errors = [];
  tab.on("pageerror", (e) => errors.push(e.message));
  try {
    await tab.goto(`${server.url}${page}`);
    await tab.waitForFunction(() => window.result !== undefined || window.failure !== undefined, null, { timeout: 30_000 }).catch(() => {});
    const { result, failure } = await tab.evaluate(() => ({ result: window.result, failure: window.failure }));
    assert.equal(failure, undefined, `the page failed: ${failure} ${errors.join("; ")}`);
    assert.ok(result !== undefined, `the page produced nothing: ${errors.join("; ")}`);
    return result;
  } finally {
    await tab.close();
    await server.close();
  }
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>stategate</title><script type="module" src="./main.js"></script>`;

test("esbuild: stategate/web + stategate/wasm (--loader:.wasm=file) in headless Chromium; the bare import names the fix", async () => {
  write(
    "esbuild/main.js",
    `import * as web from "stategate/web";
import wasmUrl from "stategate/wasm";
import { run } from "../src/app.js";
try {
  await web.load(wasmUrl);
  const bare = await import("./bare.js").then(() => "loaded", (e) => e.code + ": " + e.message);
  window.result = { app: run(web), bare };
} catch (e) {
  window.failure = String(e?.stack ?? e);
}
`,
  );
  // The bare import in a bundle whose wasm was not copied beside it: rejects with NOT_LOADED.
  write("esbuild/bare.js", `import * as sg from "stategate";\nexport const ok = typeof sg.validateMessages;\n`);
  write("esbuild/dist/index.html", PAGE);
  sh(path.join(BIN, "esbuild"), ["esbuild/main.js", "esbuild/bare.js", "--bundle", "--splitting", "--format=esm", "--platform=browser", "--outdir=esbuild/dist", "--loader:.wasm=file", "--log-level=warning"]);
  const out = fs.readdirSync(path.join(dir, "esbuild/dist"));
  assert.equal(out.filter((f) => f.endsWith(".wasm")).length, 1, `one wasm asset: ${out}`);
  for (const f of out.filter((f) => f.endsWith(".js"))) assert.doesNotMatch(fs.readFileSync(path.join(dir, "esbuild/dist", f), "utf8"), NODE_IMPORT, `${f} imports a node: module`);
  const { app, bare } = await inChromium(path.join(dir, "esbuild/dist"));
  assert.deepEqual(app, EXPECTED);
  // Loaded already by the page, so the bare entry's own load() returns at once: the same binding.
  assert.equal(bare, "loaded");
});

test("esbuild: the bare import alone, its wasm not beside the bundle, is refused with NOT_LOADED naming the URL fetched and the fix", async () => {
  for (const [name, specifier, file] of [["esbuild-bare", "stategate", "stategate_wasm_bg"], ["esbuild-bare-gate", "stategate/messages", "messages\\/stategate_messages_bg"]]) {
    write(`${name}/main.js`, `import("${specifier}").then((sg) => { window.result = typeof sg.validateMessages; }, (e) => { window.result = e.message; });\n`);
    write(`${name}/dist/index.html`, PAGE);
    sh(path.join(BIN, "esbuild"), [`${name}/main.js`, "--bundle", "--splitting", "--format=esm", "--platform=browser", `--outdir=${name}/dist`, "--log-level=warning"]);
    const result = await inChromium(path.join(dir, `${name}/dist`));
    const wanted = new RegExp(`^NOT_LOADED: the wasm module could not be loaded from http://127\\.0\\.0\\.1:\\d+/${file}\\.wasm: .*${specifier.replace("/", "\\/")}\\/wasm.*load\\(wasmUrl\\)`, "s");
    assert.match(result, wanted, specifier);
  }
});

test("Vite: examples/vite-worker (a store in the page, a module Web Worker projecting) built and run in headless Chromium", async () => {
  // The example as a user has it: its files in their project, "stategate" installed from the tarball.
  for (const f of fs.readdirSync(path.join(ROOT, "examples/vite-worker"))) write(`vite/${f}`, fs.readFileSync(path.join(ROOT, "examples/vite-worker", f), "utf8"));
  const { build } = await import(pathToFileURL(path.join(ROOT, "node_modules/vite/dist/node/index.js")).href);
  await build({ root: path.join(dir, "vite"), logLevel: "warn", build: { outDir: path.join(dir, "vite/dist"), emptyOutDir: true }, worker: { format: "es" } });
  const assets = fs.readdirSync(path.join(dir, "vite/dist/assets"));
  assert.equal(assets.filter((f) => f.endsWith(".wasm")).length, 1, `one wasm asset: ${assets}`);
  const { page, worker } = await inChromium(path.join(dir, "vite/dist"));
  assert.deepEqual(page, { version: 3, problems: ["MISSING_TOOL_RESULT:c2"] });
  assert.deepEqual(worker.repaired, ["interrupted:inserted:c2"]);
  assert.deepEqual(worker.roles, ["system", "user", "assistant", "user"]);
  // Both results in the one user message Anthropic takes; the inserted one right after its call
  // (as deepagents' PatchToolCalls places it).
  assert.deepEqual(worker.results, ["tool_result:c2", "tool_result:c1"]);
  assert.equal(worker.interrupted, true);
});

/**
 * A Vite build (in `<name>/`) of a page and a module Web Worker that each import `specifier` and
 * run app.js's `program` on it, run in Chromium: what each returned, and the build's assets dir.
 */
async function viteRun(name, specifier, program) {
  write(`${name}/index.html`, PAGE);
  write(
    `${name}/main.js`,
    `import * as sg from "${specifier}";
import { ${program} } from "../src/app.js";
try {
  const page = ${program}(sg);
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (e) => { window.result = { page, worker: e.data }; };
  worker.onerror = (e) => { window.failure = "worker: " + e.message; };
} catch (e) {
  window.failure = String(e?.stack ?? e);
}
`,
  );
  write(
    `${name}/worker.js`,
    `import * as sg from "${specifier}";
import { ${program} } from "../src/app.js";
try { postMessage(${program}(sg)); } catch (e) { postMessage({ failure: String(e) }); }
`,
  );
  const { build } = await import(pathToFileURL(path.join(ROOT, "node_modules/vite/dist/node/index.js")).href);
  await build({ root: path.join(dir, name), logLevel: "warn", build: { outDir: path.join(dir, `${name}/dist`), emptyOutDir: true }, worker: { format: "es" } });
  return { ...(await inChromium(path.join(dir, `${name}/dist`))), assets: path.join(dir, `${name}/dist/assets`) };
}

test("Vite: the bare import of the shared program in a page and a module Web Worker", async () => {
  const { page, worker } = await viteRun("vite-app", "stategate", "run");
  assert.deepEqual(page, EXPECTED);
  assert.deepEqual(worker, EXPECTED);
});

/** Bundles `<name>/main.js` (app.js's `program` on `specifier`) for `conditions` (esbuild, neutral platform); the bundle's text. */
function conditionBuild(name, conditions, extra = [], specifier = "stategate", program = "run") {
  write(
    `${name}/main.js`,
    `import * as sg from "${specifier}";
import { ${program} } from "../src/app.js";
console.log(JSON.stringify(${program}(sg)));
`,
  );
  sh(path.join(BIN, "esbuild"), [`${name}/main.js`, "--bundle", "--format=esm", "--platform=neutral", `--conditions=${conditions}`, "--main-fields=module,main", `--outfile=${name}/dist/main.mjs`, "--target=es2022", "--log-level=warning", ...extra]);
  const bundle = fs.readFileSync(path.join(dir, `${name}/dist/main.mjs`), "utf8");
  assert.doesNotMatch(bundle, NODE_IMPORT, `the ${conditions} bundle imports a node: module`);
  return bundle;
}

/**
 * A worker (in `<name>/`) that imports `specifier` and answers with app.js's `program` on it,
 * bundled as wrangler bundles (esbuild with the workerd conditions, .wasm files kept as modules
 * that workerd compiles: CompiledWasm rules) and run in real workerd (Miniflare): the bundle's
 * text, its output dir and the worker's answer.
 */
async function workerdRun(name, specifier, program) {
  write(
    `${name}/worker.js`,
    `import * as sg from "${specifier}";
import { ${program} } from "../src/app.js";
export default { async fetch() { return Response.json(${program}(sg)); } };
`,
  );
  sh(path.join(BIN, "esbuild"), [`${name}/worker.js`, "--bundle", "--format=esm", "--platform=neutral", "--conditions=workerd,worker,browser", "--main-fields=module,main", `--outdir=${name}/dist`, "--loader:.wasm=copy", "--target=es2022", "--log-level=warning"]);
  const dist = path.join(dir, `${name}/dist`);
  const bundle = fs.readFileSync(path.join(dist, "worker.js"), "utf8");
  assert.doesNotMatch(bundle, NODE_IMPORT, `the ${specifier} workerd bundle imports a node: module`);
  const { Miniflare } = await import(pathToFileURL(path.join(ROOT, "node_modules/miniflare/dist/src/index.js")).href);
  const mf = new Miniflare({ modules: true, modulesRoot: dist, scriptPath: path.join(dist, "worker.js"), modulesRules: [{ type: "CompiledWasm", include: ["**/*.wasm"] }], compatibilityDate: "2025-01-01" });
  try {
    const res = await mf.dispatchFetch("http://localhost/");
    assert.equal(res.status, 200, await res.clone().text());
    return { bundle, dist, answer: await res.json() };
  } finally {
    await mf.dispose();
  }
}

test("workerd condition, in real workerd (Miniflare): the wasm imported as a compiled module, as wrangler bundles it", async () => {
  const { bundle, answer } = await workerdRun("workerd", "stategate", "run");
  assert.match(bundle, /workerd\.js/, "resolved to the workerd entry");
  assert.deepEqual(answer, EXPECTED);
});

test("edge-light condition: the browser entry (top-level await), no node: import, runs where the wasm is beside it", () => {
  const bundle = conditionBuild("edge", "edge-light");
  assert.match(bundle, /browser\.js/, "resolved to the browser entry");
  fs.copyFileSync(path.join(dir, "node_modules/stategate/stategate_wasm_bg.wasm"), path.join(dir, "edge/dist/stategate_wasm_bg.wasm"));
  assert.deepEqual(JSON.parse(sh("node", ["edge/dist/main.mjs"])), EXPECTED);
});

// ---------------------------------------------------------------------------------------------
// stategate/messages (issue 17): the message gate on its own module, in the same places.

/** The .wasm files of a bundle's output directory and their sizes; only the message gate's. */
function onlyTheGatesWasm(outDir) {
  const wasm = fs.readdirSync(outDir).filter((f) => f.endsWith(".wasm"));
  assert.equal(wasm.length, 1, `one wasm asset: ${wasm}`);
  const size = fs.statSync(path.join(outDir, wasm[0])).size;
  assert.equal(size, fs.statSync(path.join(dir, "node_modules/stategate/messages/stategate_messages_bg.wasm")).size, `${wasm[0]} is the message gate's module`);
}

test("stategate/messages: esbuild with stategate/messages/web + /wasm, and Vite with the bare import in a page and a module Web Worker, in headless Chromium", async () => {
  write(
    "gate-esbuild/main.js",
    `import * as web from "stategate/messages/web";
import wasmUrl from "stategate/messages/wasm";
import { runMessages } from "../src/app.js";
try {
  await web.load(wasmUrl);
  window.result = runMessages(web);
} catch (e) {
  window.failure = String(e?.stack ?? e);
}
`,
  );
  write("gate-esbuild/dist/index.html", PAGE);
  sh(path.join(BIN, "esbuild"), ["gate-esbuild/main.js", "--bundle", "--format=esm", "--platform=browser", "--outdir=gate-esbuild/dist", "--loader:.wasm=file", "--log-level=warning"]);
  onlyTheGatesWasm(path.join(dir, "gate-esbuild/dist"));
  assert.doesNotMatch(fs.readFileSync(path.join(dir, "gate-esbuild/dist/main.js"), "utf8"), NODE_IMPORT);
  assert.deepEqual(await inChromium(path.join(dir, "gate-esbuild/dist")), EXPECTED_MESSAGES);

  const { page, worker, assets } = await viteRun("gate-vite", "stategate/messages", "runMessages");
  onlyTheGatesWasm(assets);
  assert.deepEqual(page, EXPECTED_MESSAGES);
  assert.deepEqual(worker, EXPECTED_MESSAGES);
});

test("stategate/messages: the workerd condition in real workerd (Miniflare), and the edge-light one", async () => {
  const { bundle, dist, answer } = await workerdRun("gate-workerd", "stategate/messages", "runMessages");
  assert.match(bundle, /messages-workerd\.js/, "resolved to the message gate's workerd entry");
  onlyTheGatesWasm(dist);
  assert.deepEqual(answer, EXPECTED_MESSAGES);

  const edge = conditionBuild("gate-edge", "edge-light", [], "stategate/messages", "runMessages");
  assert.match(edge, /messages-browser\.js/, "resolved to the message gate's browser entry");
  fs.mkdirSync(path.join(dir, "gate-edge/dist/messages"));
  fs.copyFileSync(path.join(dir, "node_modules/stategate/messages/stategate_messages_bg.wasm"), path.join(dir, "gate-edge/dist/messages/stategate_messages_bg.wasm"));
  assert.deepEqual(JSON.parse(sh("node", ["gate-edge/dist/main.mjs"])), EXPECTED_MESSAGES);
});
