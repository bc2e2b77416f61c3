// Writes pkg/package.json, the published package's manifest (run by scripts/build.sh before the
// façade compiles, so the adapters' self-imports of "stategate" resolve). One wasm file serves
// every `stategate` entry point, a smaller one every `stategate/messages` entry point:
// docs/package.md says which condition gets which entry and why.
//
//   node scripts/package-manifest.mjs [subpath ...]   (version and repository from Cargo.toml)
//
// Each extra subpath (an adapter, e.g. "ai-sdk") is a universal module with an ES module and a
// CommonJS build (`<name>.js`, `<name>.cjs`) and types for both; those in NODE_ONLY
// ("postgres-log") get the `node` condition only, as `stategate/file-log` does.
import fs from "node:fs";

const [...subpaths] = process.argv.slice(2);
const cargo = fs.readFileSync("Cargo.toml", "utf8");
const field = (key) => cargo.match(new RegExp(`^${key} = "(.*)"`, "m"))?.[1];
const version = field("version");
const repository = field("repository");
if (!/^\d+\.\d+\.\d+/.test(version ?? "")) throw new Error(`package-manifest: no version in Cargo.toml`);
if (!repository) console.warn("package-manifest: Cargo.toml has no `repository`; the manifest has none either");

const types = (name) => ({ import: `./${name}.d.ts`, require: `./${name}.d.cts` });
/**
 * A wasm module's family of subpaths: `<sub>` (an entry per runtime, each loading the module its
 * own way: docs/package.md), `<sub>/web` (explicit `load()`), `<sub>/wasm` (the file itself).
 * `files` names the entry modules: node (ESM, with its CommonJS bundle beside it), browser,
 * workerd, web; `wasm` the module file and `wasmTypes` its declarations.
 */
const wasmEntries = (sub, { node, browser, workerd, web, wasm, wasmTypes }) => ({
  [sub]: {
    types: types(node),
    // Cloudflare Workers import a .wasm file as a compiled module: instantiated synchronously.
    workerd: `./${workerd}.js`,
    // Edge runtimes that bundle like a browser (Vercel's edge-light) take the browser entry.
    "edge-light": `./${browser}.js`,
    node: { import: `./${node}.js`, require: `./${node}.cjs` },
    browser: `./${browser}.js`,
    worker: `./${browser}.js`,
    default: `./${browser}.js`,
  },
  [`${sub}/web`]: { types: types(web), import: `./${web}.js`, default: `./${web}.js` },
  [`${sub}/wasm`]: { types: `./${wasmTypes}`, default: `./${wasm}` },
});
const exports = {
  ...wasmEntries(".", { node: "index", browser: "browser", workerd: "workerd", web: "web", wasm: "stategate_wasm_bg.wasm", wasmTypes: "wasm.d.ts" }),
  // The message gate alone (decode, convert, validate, repair) on its own smaller module.
  ...wasmEntries("./messages", {
    node: "messages",
    browser: "messages-browser",
    workerd: "messages-workerd",
    web: "messages-web",
    wasm: "messages/stategate_messages_bg.wasm",
    wasmTypes: "wasm.d.ts",
  }),
  "./file-log": { types: types("file-log"), node: { import: "./file-log.js", require: "./file-log.cjs" } },
  // The Server-Sent Events hub of live followers (node:http); its browser reader,
  // followEventSource, is in the bare import.
  "./sse": { types: types("sse"), node: { import: "./sse.js", require: "./sse.cjs" } },
};
// The framework packages each adapter is written against (its tests run on the lower bound):
// optional peers, so the core installs alone and an adapter's user already has its framework.
const PEERS = {
  "ai-sdk": { ai: ">=6.0.0 <7" },
  langchain: { langchain: ">=1.5.14 <2", "@langchain/core": ">=1.4.0 <2", "@langchain/langgraph": ">=1.7.3 <2" },
  // 0.x: the Session interface changes between minor versions.
  "openai-agents": { "@openai/agents": ">=0.20.0 <0.21" },
  // PostgresLog takes a pg.Pool (or imports pg itself for a connection string).
  "postgres-log": { pg: ">=8.23.1 <9" },
};
const NODE_ONLY = new Set(["postgres-log"]);
const peerDependencies = {};
for (const name of subpaths) Object.assign(peerDependencies, PEERS[name] ?? {});
for (const name of subpaths) {
  exports[`./${name}`] = NODE_ONLY.has(name)
    ? { types: types(name), node: { import: `./${name}.js`, require: `./${name}.cjs` } }
    : { types: types(name), import: `./${name}.js`, require: `./${name}.cjs`, default: `./${name}.js` };
}
exports["./package.json"] = "./package.json";

const manifest = {
  name: "stategate",
  version,
  description:
    "State-governance core for LLM agents: message formats and repair, a governed state store with a hash-chained event log, model views, async and sync subagents (Rust, WebAssembly).",
  keywords: ["llm", "agents", "state", "tool-calls", "ai-sdk", "langchain", "langgraph", "openai", "anthropic", "wasm", "postgres"],
  license: "MIT",
  // The public repository's address is not decided yet: Cargo.toml's `repository` (when set)
  // becomes the manifest's, so it is written once.
  ...(repository ? { repository: { type: "git", url: repository } } : {}),
  type: "module",
  // Node's CommonJS entry is a real CommonJS bundle (`require` works without require(esm)).
  engines: { node: ">=20" },
  main: "./index.cjs",
  module: "./browser.js",
  types: "./index.d.ts",
  exports,
  ...(Object.keys(peerDependencies).length && {
    peerDependencies,
    peerDependenciesMeta: Object.fromEntries(Object.keys(peerDependencies).map((p) => [p, { optional: true }])),
  }),
  // The entries load the wasm at import and the binding patches the glue's classes: keep them.
  sideEffects: [
    "./index.js",
    "./index.cjs",
    "./browser.js",
    "./workerd.js",
    "./api.js",
    "./stategate_wasm.js",
    "./snippets/*",
    "./messages.js",
    "./messages.cjs",
    "./messages-browser.js",
    "./messages-workerd.js",
    "./messages/*",
  ],
  // The docs the README and the declarations link to (scripts/package-docs.mjs copies them).
  files: ["*.js", "*.cjs", "*.d.ts", "*.d.cts", "stategate_wasm_bg.wasm", "snippets/", "messages/", "README.md", "LICENSE", "BENCHMARKS.md", "docs/", "benches/standing.svg"],
};
fs.writeFileSync("pkg/package.json", JSON.stringify(manifest, null, 2) + "\n");
