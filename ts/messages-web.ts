/**
 * `stategate/messages` with explicit loading (`"stategate/messages/web"`): nothing is fetched at
 * import. Call {@link load} once — with no argument it fetches `messages/stategate_messages_bg.wasm`
 * next to the glue; with esbuild, pass the URL `import wasmUrl from "stategate/messages/wasm"`
 * gives (`--loader:.wasm=file`). After that the named exports work; before it they throw
 * `NOT_LOADED`.
 * @example
 * import { load, repairMessages } from "stategate/messages/web";
 * import wasmUrl from "stategate/messages/wasm";
 * await load(wasmUrl);
 * repairMessages(history, { provider: "anthropic" });
 */
export * from "./messages-core.js";
