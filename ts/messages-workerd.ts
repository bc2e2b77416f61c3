/**
 * `stategate/messages` for Cloudflare Workers (the `workerd` condition): the runtime imports the
 * message gate's wasm file as a compiled `WebAssembly.Module`, instantiated synchronously at import.
 * @example
 * import { validateMessages } from "stategate/messages";
 */
// @ts-expect-error: a .wasm import is the runtime's own (workerd: a WebAssembly.Module).
import wasmModule from "./messages/stategate_messages_bg.wasm";
import { loadSync } from "./messages-core.js";

loadSync(wasmModule as object);

export * from "./messages-core.js";
