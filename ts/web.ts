/**
 * stategate for browsers (ES module). Call {@link load} once; it fetches and instantiates the
 * wasm module and returns the API.
 * @example
 * import { load } from "stategate/web";
 * const sg = await load();
 * sg.validateMessages(history, { provider: "openai" });
 */
import init, * as wasm from "./web/stategate_wasm.js";
import { makeApi, type Api } from "./api.js";

export * from "./api.js";

/** Loads the wasm module (from `module_or_path`, default next to this file) and returns the API. */
export async function load(module_or_path?: RequestInfo | URL | BufferSource | WebAssembly.Module): Promise<Api> {
  await init(module_or_path === undefined ? undefined : { module_or_path } as any);
  return makeApi(wasm as any);
}
