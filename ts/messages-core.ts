/**
 * The `stategate/messages` binding: the message gate — {@link validateMessages},
 * {@link repairMessages}, {@link convertMessages}, {@link decodeMessages}, {@link providerOf} —
 * bound to the package's second, smaller wasm module (`messages/stategate_messages_bg.wasm`, built
 * from the same Rust without the store: issue 17, row 5). The same functions as the bare
 * import's, with the same answers and errors; every `stategate/messages` entry point loads this
 * module its own way and re-exports this. An app that also uses the store (`StateStore`) should
 * import these from `"stategate"` instead: it would otherwise load both modules (docs/package.md).
 */
import * as glue from "./messages/stategate_messages.js";
import { wasmLoader, type Glue, type WasmSource } from "./loader.js";
import { bindMessages, type MessagesApi, type MessagesGlue } from "./messages-api.js";

export { StategateError, isStategateError, stategateError } from "./errors.js";
export type { WasmSource } from "./loader.js";
export type { MessagesApi, MessagesInput, ValidateOptions, RepairResult } from "./messages-api.js";
/** The per-format message types stategate emits (see `formats.ts`). */
export type * from "./formats.js";
/** The types generated from the Rust core that the message gate's functions take and return. */
export type {
  Violation,
  Rule,
  Fix,
  FixKind,
  Action,
  Reason,
  RepairOptions,
  Message,
  Role,
  Content,
  ContentPart,
  ToolCall,
  InvalidToolCall,
  ToolStatus,
  Usage,
  Provider,
  Format,
  ErrorCode,
  ErrorDetails,
} from "./stategate_wasm.js";

/** The message gate's module and its loading, checked to be loaded on every call. */
const loader = wasmLoader({
  glue: glue as unknown as Glue,
  file: () => new URL("./messages/stategate_messages_bg.wasm", import.meta.url),
  entry: "stategate/messages",
  exports: ["errorCodes", "repairSkeleton"],
  bind: (before) => bindMessages(glue as unknown as MessagesGlue, before),
});
const api: MessagesApi = loader.api;

/**
 * Loads the message gate's wasm module (once: later calls return the same API at once) and
 * returns the API — the same functions as this entry's named exports, which work from then on.
 * `source` defaults to `messages/stategate_messages_bg.wasm` in the package, found
 * through `new URL("…", import.meta.url)` (Vite and webpack bundle it). With esbuild, pass the
 * file's URL: `import wasmUrl from "stategate/messages/wasm"` with `--loader:.wasm=file`, then
 * `await load(wasmUrl)`. Rejects with `NOT_LOADED` saying what was fetched and why it failed (a
 * later call tries again); a module that is not this entry's is refused before it is
 * instantiated. Loads may overlap: the first module ready is the one instantiated.
 * @example
 * import { load, repairMessages } from "stategate/messages/web";
 * await load();
 * repairMessages(history, { provider: "anthropic" });
 */
export const load: (source?: WasmSource | Promise<WasmSource>) => Promise<MessagesApi> = loader.load;

/**
 * Loads the message gate's wasm module synchronously from its bytes or a compiled
 * `WebAssembly.Module` (the Node, CommonJS and workerd entry points do this at import) and
 * returns the API. Throws `NOT_LOADED` when the bytes are not that module, or while a `load()`
 * instantiates it (await that instead). A second call returns the API.
 */
export const loadSync: (module: ArrayBuffer | ArrayBufferView | object) => MessagesApi = loader.loadSync;

/** See {@link MessagesApi.validateMessages}. */
export const validateMessages = api.validateMessages;
/** See {@link MessagesApi.repairMessages}. */
export const repairMessages = api.repairMessages;
/** See {@link MessagesApi.convertMessages}. */
export const convertMessages = api.convertMessages;
/** See {@link MessagesApi.decodeMessages}. */
export const decodeMessages = api.decodeMessages;
/** See {@link MessagesApi.providerOf}. */
export const providerOf = api.providerOf;
