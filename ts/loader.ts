/**
 * Loading one wasm module of the package and binding an API to it, written once for both of the
 * package's modules: the whole core (`api.ts`, the `stategate` entries) and the message gate
 * (`messages-core.ts`, the `stategate/messages` entries). Imports no glue itself: each binding
 * passes its own, so an entry loads only its module.
 */
import { describe, setKnownCodes, stategateError } from "./errors.js";

/**
 * Where `load` takes a wasm module from: its URL (a string or a `URL`), a `fetch` `Response` (or
 * a promise of one), its bytes, or a compiled `WebAssembly.Module`. Typed without the DOM
 * library, so the package's types check with `lib: ["es2022"]` alone.
 */
export type WasmSource = string | { readonly href: string } | ArrayBuffer | ArrayBufferView | object;

/** What a loader needs of wasm-bindgen's `web`-target glue. @internal */
export interface Glue {
  /** The glue's async initialiser (its default export). */
  default(init?: { module_or_path: never }): Promise<unknown>;
  /** The glue's sync initialiser. */
  initSync(init: { module: never }): unknown;
  /** The loaded core's error codes. */
  errorCodes(): string[];
}

/** A module's loader: the API bound to it and the two ways to load it. @internal */
export interface Loader<A> {
  /** The API, checked to be loaded on every call (`NOT_LOADED` before). */
  api: A;
  /** Loads the module from `source` (default: its file next to the glue) once; the API. */
  load(source?: WasmSource | Promise<WasmSource>): Promise<A>;
  /** Loads the module from bytes or a compiled module, synchronously, once; the API. */
  loadSync(module: ArrayBuffer | ArrayBufferView | object): A;
}

/**
 * How to read a `file:` URL where the runtime reads files (Node ≥ 20.16, Deno, Bun: their `fetch`
 * cannot), through `process.getBuiltinModule` so no browser bundle meets an import of `node:fs`.
 * `undefined` for any other source.
 */
function fileReader(source: unknown): (() => Uint8Array) | undefined {
  const href = typeof source === "string" ? source : typeof source === "object" && source !== null && "href" in source ? String(source.href) : "";
  if (!href.startsWith("file:")) return undefined;
  type Fs = { readFileSync(url: URL): Uint8Array };
  const fs = (globalThis as { process?: { getBuiltinModule?: (id: string) => Fs | undefined } }).process?.getBuiltinModule?.("node:fs");
  return fs && (() => fs.readFileSync(new URL(href)));
}

/** What {@link wasmLoader} loads and binds. @internal */
export interface LoaderOptions<A> {
  /** The module's glue. */
  glue: Glue;
  /**
   * The module's file next to the glue, asked for only when `load()` is given no source (a
   * `file:` URL is read from disk where `fetch` cannot; `import.meta.url` is not a URL
   * everywhere, e.g. in a workerd bundle, which loads synchronously).
   */
  file: () => { readonly href: string };
  /** The package subpath errors name (`"stategate"`): their fixes are `<entry>/web`, `<entry>/wasm`. */
  entry: string;
  /**
   * Exports the module must have, checked before the glue is given it: the glue keeps the first
   * module it instantiates even when that fails (a wrong file, another package's module), and
   * could never load the right one after.
   */
  exports: readonly string[];
  /** The API over the glue, each call first running `before` (the loaded check). */
  bind: (before: () => void) => A;
  /** Runs once the module is instantiated, before the API is handed out. */
  ready?: () => void;
}

/** `source` compiled: a `WebAssembly.Module` as it is; bytes; a `Response`; a URL or a `Request` fetched. */
async function compile(given: unknown): Promise<WebAssembly.Module> {
  let source = await given;
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === "string" || source instanceof URL || (typeof Request === "function" && source instanceof Request)) source = await fetch(source);
  if (typeof Response === "function" && source instanceof Response) {
    if (!source.ok) throw new Error(`fetching ${source.url} answered ${source.status} ${source.statusText}`);
    // Compiled as it downloads where the server says it is wasm (a body is read only once).
    const type = source.headers.get("Content-Type")?.split(";")[0].trim();
    if (typeof WebAssembly.compileStreaming === "function" && type === "application/wasm") return WebAssembly.compileStreaming(source);
    return WebAssembly.compile(await source.arrayBuffer());
  }
  return WebAssembly.compile(source as BufferSource);
}

/** The loader of one wasm module: see {@link LoaderOptions}. */
export function wasmLoader<A>({ glue, file, entry, exports, bind, ready }: LoaderOptions<A>): Loader<A> {
  let loaded = false;
  let loading: Promise<A> | undefined;
  const api = bind(() => {
    if (!loaded) {
      throw stategateError(
        "NOT_LOADED",
        `the wasm module is not loaded yet: \`await load()\` first (import { load } from "${entry}/web"), or import from "${entry}", which loads it itself`,
      );
    }
  });
  /** `module`, refused unless it has every export of `exports`. */
  const checked = (module: WebAssembly.Module): WebAssembly.Module => {
    const has = new Set(WebAssembly.Module.exports(module).map((e) => e.name));
    const missing = exports.filter((name) => !has.has(name));
    if (missing.length) throw new Error(`it is not the wasm module of ${entry}: it has no export ${missing.map((name) => `\`${name}\``).join(", ")}`);
    return module;
  };
  const loadedBy = (init: () => void): A => {
    if (!loaded) {
      init();
      setKnownCodes(glue.errorCodes());
      ready?.();
      loaded = true;
    }
    return api;
  };
  const loadSync = (module: ArrayBuffer | ArrayBufferView | object): A => {
    if (loaded) return api;
    try {
      const compiled = checked(module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module as BufferSource));
      return loadedBy(() => glue.initSync({ module: compiled as never }));
    } catch (e) {
      throw stategateError("NOT_LOADED", `the wasm module could not be instantiated: ${describe(e)}`);
    }
  };
  const load = (source?: WasmSource | Promise<WasmSource>): Promise<A> => {
    if (loaded) return Promise.resolve(api);
    let from: unknown = source;
    try {
      from ??= file();
    } catch (e) {
      return Promise.reject(stategateError("NOT_LOADED", `the wasm module's URL could not be made (${describe(e)}): pass its URL or bytes to load()`));
    }
    const read = fileReader(from);
    if (read) {
      return Promise.resolve().then(() => {
        let bytes: Uint8Array;
        try {
          bytes = read();
        } catch (e) {
          throw stategateError("NOT_LOADED", `the wasm module could not be read: ${describe(e)}`);
        }
        return loadSync(bytes);
      });
    }
    loading ??= compile(from)
      .then((module) => glue.default({ module_or_path: checked(module) as never }))
      .then(() => loadedBy(() => {}))
      .catch((e: unknown) => {
        loading = undefined;
        const href = typeof from === "string" ? from : typeof from === "object" && from !== null && "href" in from ? String(from.href) : "the given source";
        throw stategateError(
          "NOT_LOADED",
          `the wasm module could not be loaded from ${href}: ${describe(e)}. With a bundler that does not follow new URL("…", import.meta.url) (esbuild), import wasmUrl from "${entry}/wasm" (--loader:.wasm=file) and call load(wasmUrl) from "${entry}/web"`,
        );
      });
    return loading;
  };
  return { api, load, loadSync };
}
