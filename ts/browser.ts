/**
 * stategate for browsers, Web Workers, edge runtimes and every other runtime (the `browser`,
 * `worker`, `edge-light` and `default` conditions of the bare import). Fetches and instantiates
 * the package's one wasm file by top-level await — `new URL("stategate_wasm_bg.wasm",
 * import.meta.url)`, which Vite and webpack bundle — so every named export works once the import
 * resolves. Where that URL cannot be fetched (an esbuild bundle), the import rejects with
 * `NOT_LOADED`: import from `"stategate/web"` instead and call `load(wasmUrl)`.
 * @example
 * import { validateMessages } from "stategate";
 * validateMessages(history, { provider: "openai" });
 */
import { load } from "./api.js";

await load();

export * from "./api.js";
export * from "./follow.js";
