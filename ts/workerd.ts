/**
 * stategate for Cloudflare Workers (the `workerd` condition of the bare import): the runtime
 * imports the package's one wasm file as a compiled `WebAssembly.Module` (a bundler's binary
 * loader gives its bytes, which work too), instantiated synchronously at import.
 * @example
 * import { validateMessages } from "stategate";
 */
// @ts-expect-error: a .wasm import is the runtime's own (workerd: a WebAssembly.Module).
import wasmModule from "./stategate_wasm_bg.wasm";
import { loadSync } from "./api.js";

loadSync(wasmModule as object);

export * from "./api.js";
export * from "./follow.js";
