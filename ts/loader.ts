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

/** `Object.prototype.toString`'s tag of `v`: it names built-ins of any realm (an iframe's too). */
function tag(v: unknown): string {
  return Object.prototype.toString.call(v).slice(8, -1);
}

/** The URL `source` names (a string, a `URL` or any object with a string `href`), else `undefined`. */
function hrefOf(source: unknown): string | undefined {
  if (typeof source === "string") return source;
  if (typeof source !== "object" || source === null || !("href" in source)) return undefined;
  const href = (source as { href: unknown }).href;
  return typeof href === "string" ? href : undefined;
}

/** `source` as bytes a compiler takes (a view of its memory; shared memory copied), else `undefined`. */
function bytesOf(source: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength).slice();
  const t = tag(source);
  if (t === "ArrayBuffer" || t === "SharedArrayBuffer") return new Uint8Array(source as ArrayBuffer).slice();
  return undefined;
}

/** What a source is, for an error: its URL, its size, or its kind. Never throws. */
function named(source: unknown): string {
  try {
    const href = hrefOf(source);
    if (href !== undefined) return href === "" ? "an empty URL" : href;
    const t = tag(source);
    if (t === "Request" || t === "Response") return (source as { url: string }).url || `a ${t} without a URL`;
    if (t === "WebAssembly.Module") return "a compiled WebAssembly.Module";
    const bytes = bytesOf(source);
    if (bytes) return `${bytes.length} bytes`;
    return source === undefined ? "no source" : `a ${source === null ? "null" : typeof source}`;
  } catch {
    return "a source that cannot be read";
  }
}

/**
 * How to read a `file:` URL where the runtime reads files (Node ≥ 20.16, Deno, Bun: their `fetch`
 * cannot), through `process.getBuiltinModule` so no browser bundle meets an import of `node:fs`.
 * `undefined` for any other source.
 */
function fileReader(source: unknown): (() => Uint8Array) | undefined {
  const href = hrefOf(source) ?? "";
  if (!href.startsWith("file:")) return undefined;
  type Fs = { readFileSync(url: URL): Uint8Array };
  const fs = (globalThis as { process?: { getBuiltinModule?: (id: string) => Fs | undefined } }).process?.getBuiltinModule?.("node:fs");
  return fs && (() => fs.readFileSync(new URL(href)));
}

/** What `e` says, with the cause a failed `fetch` keeps apart (`fetch failed`: connection refused…). */
function reason(e: unknown): string {
  const cause = e instanceof Error && e.cause !== undefined ? `: ${describe(e.cause)}` : "";
  return describe(e) + cause;
}

/**
 * `source` compiled: a `WebAssembly.Module` as it is; bytes; a `Response`; a URL (a `file:` URL
 * read from disk where the runtime can) or a `Request` fetched. Any realm's built-ins.
 */
async function compile(source: unknown): Promise<WebAssembly.Module> {
  if (tag(source) === "WebAssembly.Module") return source as WebAssembly.Module;
  const read = fileReader(source);
  if (read) return WebAssembly.compile(read() as Uint8Array<ArrayBuffer>);
  const bytes = bytesOf(source);
  if (bytes) return WebAssembly.compile(bytes);
  const href = hrefOf(source);
  const response = href !== undefined || tag(source) === "Request" ? await fetch((href ?? source) as string) : source;
  if (tag(response) !== "Response") throw new TypeError("it is not a URL, a Request, a Response, bytes or a compiled WebAssembly.Module");
  const r = response as Response;
  if (!r.ok) throw new Error(`fetching ${r.url || "it"} answered ${r.status} ${r.statusText}`.trimEnd());
  // Compiled as it downloads where the server says exactly that it is wasm (compileStreaming
  // refuses any other Content-Type, parameters too; a body is read only once).
  if (typeof WebAssembly.compileStreaming === "function" && r.headers.get("Content-Type") === "application/wasm") return WebAssembly.compileStreaming(r);
  return WebAssembly.compile(await r.arrayBuffer());
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
   * module it instantiates even when that fails (a wrong file, the other entry's module), and
   * could never load the right one after. (A module made to look like this one can still get
   * past it: the check tells modules apart, it does not authenticate them.)
   */
  exports: readonly string[];
  /** The API over the glue, each call first running `before` (the loaded check). */
  bind: (before: () => void) => A;
  /** Runs once the module is instantiated, before the API is handed out. */
  ready?: () => void;
}

/**
 * The loader of one wasm module: see {@link LoaderOptions}. Loads may overlap: each compiles its
 * own source, and one instantiation runs at a time — the first module compiled and checked is
 * instantiated; a load whose module comes after it returns the API it made, or instantiates its
 * own if that failed. `loadSync` while `load()` instantiates is refused (it would put a second
 * instance under the first's objects); before or after, it works.
 */
export function wasmLoader<A>({ glue, file, entry, exports, bind, ready }: LoaderOptions<A>): Loader<A> {
  let loaded = false;
  /** The glue's asynchronous instantiation in progress. */
  let instantiating: Promise<A> | undefined;
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
    if (instantiating) throw stategateError("NOT_LOADED", "load() is instantiating the wasm module: await it instead of calling loadSync()");
    try {
      const bytes = tag(module) === "WebAssembly.Module" ? undefined : bytesOf(module);
      if (!bytes && tag(module) !== "WebAssembly.Module") throw new TypeError("it is not bytes or a compiled WebAssembly.Module");
      const compiled = checked(bytes ? new WebAssembly.Module(bytes) : (module as WebAssembly.Module));
      return loadedBy(() => glue.initSync({ module: compiled as never }));
    } catch (e) {
      throw stategateError("NOT_LOADED", `the wasm module could not be instantiated from ${named(module)}: ${reason(e)}`);
    }
  };
  /** Instantiates `module` through the glue, one instantiation at a time (see above). */
  const instantiate = async (module: WebAssembly.Module): Promise<A> => {
    while (instantiating) {
      try {
        return await instantiating;
      } catch {
        // That one failed: this module may do.
      }
    }
    if (loaded) return api;
    instantiating = glue.default({ module_or_path: module as never }).then(() => loadedBy(() => {}));
    try {
      return await instantiating;
    } finally {
      instantiating = undefined;
    }
  };
  const load = async (source?: WasmSource | Promise<WasmSource>): Promise<A> => {
    if (loaded) return api;
    let from: unknown = source;
    try {
      from = await (source === undefined ? file() : source);
      return await instantiate(checked(await compile(from)));
    } catch (e) {
      // Another load made the module while this one failed: the API, as for any later call.
      if (loaded) return api;
      throw stategateError(
        "NOT_LOADED",
        `the wasm module could not be loaded from ${named(from)}: ${reason(e)}. With a bundler that does not follow new URL("…", import.meta.url) (esbuild), import wasmUrl from "${entry}/wasm" (--loader:.wasm=file) and call load(wasmUrl) from "${entry}/web"`,
      );
    }
  };
  return { api, load, loadSync };
}
