/**
 * stategate with explicit loading (`"stategate/web"`): nothing is fetched at import. Call
 * {@link load} once — with no argument it fetches `stategate_wasm_bg.wasm` next to the glue;
 * with a bundler that does not follow `new URL(…, import.meta.url)` (esbuild), pass the URL
 * `import wasmUrl from "stategate/wasm"` gives (`--loader:.wasm=file`). After that the named
 * exports work; before it they throw `NOT_LOADED`.
 * @example
 * import { load, validateMessages } from "stategate/web";
 * import wasmUrl from "stategate/wasm";
 * await load(wasmUrl);
 * validateMessages(history, { provider: "openai" });
 */
export * from "./api.js";
export * from "./follow.js";
