/**
 * `IndexedDbLog`: the browser persistence adapter (DESIGN §4, docs/log.md). Events are kept as
 * their JSON text under their sequence in object store `events`; the latest checkpoint's bytes
 * under `latest` in object store `checkpoints`. Every write resolves when its transaction has
 * committed. Only I/O lives here: the core reads what `append` is given (`eventRecords`), and
 * checking what is loaded is `StateStore.restore`'s job.
 */
import type * as Wasm from "./stategate_wasm.js";
import type { StoreEvent } from "./stategate_wasm.js";
import { stategateError } from "./errors.js";

/** What {@link IndexedDbLog.load} resolves with. */
export interface LoadedIndexedDbLog {
  /** The latest checkpoint's bytes, or `null` when none was saved. */
  checkpoint: Uint8Array | null;
  /** Every event, as JSON Lines in sequence order. */
  events: string;
}

/**
 * An event log and checkpoint store in one IndexedDB database (browsers and workers).
 *
 * @example
 * const log = await IndexedDbLog.open("my-agent");
 * const store = new StateStore({ onEvents: (events) => log.append(events) });
 * await log.saveCheckpoint(store.checkpoint());
 * const { checkpoint, events } = await log.load();
 * const again = StateStore.restore(checkpoint, events);
 */
export interface IndexedDbLog {
  /**
   * Appends events (an array of events or their JSON Lines), each under its sequence, in one
   * transaction; resolves once committed. Rewriting a sequence replaces it. Rejects with
   * `TAMPERED_LOG` (not events), `STORAGE_ERROR`.
   */
  append(events: StoreEvent[] | string): Promise<void>;
  /** Saves checkpoint bytes as the latest checkpoint; resolves once committed. Rejects with `INVALID_OPTION`, `STORAGE_ERROR`. */
  saveCheckpoint(checkpoint: Uint8Array): Promise<void>;
  /**
   * Loads `{checkpoint: Uint8Array | null, events: string}` (events as JSON Lines in sequence
   * order), ready for `StateStore.restore(checkpoint, events)` or `StateStore.replay(events)`.
   * Rejects with `STORAGE_ERROR`.
   */
  load(): Promise<LoadedIndexedDbLog>;
  /** Closes the connection. */
  close(): void;
  /**
   * Lets go of the connection without closing it (as `free()` of the package's other classes);
   * later calls throw `FREED`. `[Symbol.dispose]()` is the same call, where the runtime has it.
   */
  free(): void;
}

/** The `IndexedDbLog` class: `IndexedDbLog.open(name)`, `IndexedDbLog.destroy(name)`. */
export interface IndexedDbLogConstructor {
  readonly prototype: IndexedDbLog;
  /** Opens (creating if needed) the database `name`. Rejects with `INVALID_OPTION` (not a string), `STORAGE_ERROR`. */
  open(name: string): Promise<IndexedDbLog>;
  /** Deletes the database `name` (close open logs first). Resolves once deleted. Rejects with `INVALID_OPTION`, `STORAGE_ERROR`. */
  destroy(name: string): Promise<void>;
}

const EVENTS = "events";
const CHECKPOINTS = "checkpoints";

function storageError(what: string, cause: unknown): Error {
  let detail = "unknown error";
  try {
    const m = (cause as { message?: unknown } | null | undefined)?.message;
    if (typeof m === "string") detail = m;
  } catch {
    // A message that cannot be read says nothing.
  }
  return stategateError("STORAGE_ERROR", `IndexedDB ${what} failed: ${detail}`);
}

/** Waits for a request's `success` (its result) or `error`. */
function request<T>(req: IDBRequest<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(storageError(what, req.error));
  });
}

/** Waits for a transaction to commit (`complete`), or fails on `error` / `abort`. */
function committed(tx: IDBTransaction, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(storageError(what, tx.error));
    tx.onabort = () => reject(storageError(what, tx.error));
  });
}

function factory(): IDBFactory {
  const f = (globalThis as { indexedDB?: IDBFactory }).indexedDB;
  if (f === undefined || f === null) {
    throw stategateError("STORAGE_ERROR", "IndexedDB is not available here (it exists in browsers and workers; in Node use FileLog)");
  }
  return f;
}

function nameOf(name: unknown): string {
  if (typeof name !== "string") throw stategateError("INVALID_OPTION", "name must be a string");
  return name;
}

/** Runs `f`, an IndexedDB call that may throw (a closed connection, a bad key), as a `STORAGE_ERROR`. */
function idb<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw storageError(what, e);
  }
}

/** The `IndexedDbLog` class over one loaded wasm module's exports (unguarded: the binding guards it). @internal */
export function indexedDbLogClass(wasm: Pick<typeof Wasm, "eventRecords">): IndexedDbLogConstructor {
  class IndexedDbLog {
    #db: IDBDatabase;

    private constructor(db: IDBDatabase) {
      this.#db = db;
    }

    static async open(name: string): Promise<IndexedDbLog> {
      const db = nameOf(name);
      const open = idb("open", () => factory().open(db, 1));
      open.onupgradeneeded = () => {
        const db = open.result;
        for (const store of [EVENTS, CHECKPOINTS]) if (!db.objectStoreNames.contains(store)) db.createObjectStore(store);
      };
      return new IndexedDbLog(await request(open, "open"));
    }

    static async destroy(name: string): Promise<void> {
      const db = nameOf(name);
      await request(idb("destroy", () => factory().deleteDatabase(db)), "destroy");
    }

    async append(events: StoreEvent[] | string): Promise<void> {
      const records = wasm.eventRecords(events);
      const t = idb("transaction", () => this.#db.transaction(EVENTS, "readwrite"));
      idb("append", () => {
        const store = t.objectStore(EVENTS);
        for (const [sequence, text] of records) store.put(text, sequence);
      });
      await committed(t, "append");
    }

    async saveCheckpoint(checkpoint: Uint8Array): Promise<void> {
      if (!(checkpoint instanceof Uint8Array)) {
        throw stategateError("INVALID_OPTION", "a checkpoint is the Uint8Array store.checkpoint() returns");
      }
      const bytes = new Uint8Array(checkpoint);
      const t = idb("transaction", () => this.#db.transaction(CHECKPOINTS, "readwrite"));
      idb("saveCheckpoint", () => t.objectStore(CHECKPOINTS).put(bytes, "latest"));
      await committed(t, "saveCheckpoint");
    }

    async load(): Promise<LoadedIndexedDbLog> {
      const [cp, ev] = idb("load", () => {
        const t = this.#db.transaction([EVENTS, CHECKPOINTS]);
        return [t.objectStore(CHECKPOINTS).get("latest"), t.objectStore(EVENTS).getAll()] as const;
      });
      const [checkpoint, lines] = await Promise.all([request(cp, "load"), request(ev, "load")]);
      let events = "";
      for (const line of lines) events += `${typeof line === "string" ? line : ""}\n`;
      return { checkpoint: checkpoint === undefined ? null : (checkpoint as Uint8Array), events };
    }

    close(): void {
      this.#db.close();
    }

    free(): void {}
  }
  const dispose = (Symbol as unknown as { dispose?: symbol }).dispose;
  if (typeof dispose === "symbol") {
    Object.defineProperty(IndexedDbLog.prototype, dispose, { configurable: true, writable: true, value: IndexedDbLog.prototype.free });
  }
  return IndexedDbLog as unknown as IndexedDbLogConstructor;
}
