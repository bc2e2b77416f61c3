/**
 * `stategate/messages` for Node (the `node` condition; CommonJS gets the same module bundled as
 * `messages.cjs`): the message gate alone — validate, repair, convert, decode — on its own smaller
 * wasm module, read from disk and instantiated synchronously at import.
 * @example
 * import { repairMessages } from "stategate/messages";
 * const { messages, report } = repairMessages(history, { provider: "anthropic" });
 */
import { readFileSync } from "node:fs";
import { loadSync } from "./messages-core.js";

loadSync(readFileSync(new URL("./messages/stategate_messages_bg.wasm", import.meta.url)));

export * from "./messages-core.js";
