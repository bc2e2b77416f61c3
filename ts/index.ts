/**
 * stategate for Node (the `node` condition of the bare import; CommonJS gets the same module
 * bundled as `index.cjs`). Reads the package's one wasm file from disk and instantiates it
 * synchronously at import, so every named export works at once (no top-level await: Node's
 * `require()` of ES modules works on it).
 * @example
 * import { repairMessages } from "stategate";
 * const { messages, report } = repairMessages(history, { provider: "anthropic" });
 */
import { readFileSync } from "node:fs";
import { loadSync } from "./api.js";

loadSync(readFileSync(new URL("./stategate_wasm_bg.wasm", import.meta.url)));

export * from "./api.js";
export * from "./follow.js";
