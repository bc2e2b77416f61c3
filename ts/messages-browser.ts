/**
 * `stategate/messages` for browsers, Web Workers, edge runtimes and every other runtime (the
 * `browser`, `worker`, `edge-light` and `default` conditions): the message gate alone, its wasm
 * module fetched from `new URL("messages/stategate_messages_bg.wasm", import.meta.url)` by top-level
 * `await` (Vite and webpack bundle it). With esbuild, import from `"stategate/messages/web"` and
 * call `load(wasmUrl)`.
 * @example
 * import { validateMessages } from "stategate/messages";
 * validateMessages(history, { provider: "openai" });
 */
import { load } from "./messages-core.js";

await load();

export * from "./messages-core.js";
