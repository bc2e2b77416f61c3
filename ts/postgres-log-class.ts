/**
 * `stategate/postgres-log`: the event log and checkpoints of stategate stores in PostgreSQL, for
 * several Node processes writing the same runs (ES module, and CommonJS as `postgres-log.cjs`).
 * It uses the `pg` package (an optional peer dependency: install it yourself, `npm i pg`), so the
 * bare import stays free of it.
 *
 * **How a change is written.** The store's `onEvents` hook is synchronous, so an async database
 * cannot be its write-ahead sink. A change goes: `store.preview(command)` (the events `apply`
 * would log now, store unchanged) → one `INSERT` of those events → `store.ingest(events)` (the
 * store takes them, checking each link and hash). The table is keyed by `(run_id, sequence)`, so
 * the database refuses a second writer of the same sequence: of two processes applying to one run
 * at once exactly one succeeds and the other gets a typed `VERSION_CONFLICT` (its store is
 * unchanged); `run.sync()` then brings its store up to date from the table and it retries. The
 * chain never forks: every event a writer inserts continues the table's prefix its store holds,
 * and the `INSERT` itself checks it — it writes only if the table's row before the first event
 * is the event it links to (else `TAMPERED_LOG`: a lost row, another history, a store changed
 * outside `run.apply`). Rows read are checked too: their `hash` / `prev_hash` columns must be
 * their event line's.
 *
 * **Tables** (created by {@link PostgresLog.migrate}, in `opts.schema`, default `public`):
 * - `stategate_events (run_id text, sequence bigint, prev_hash bytea, hash bytea, event text,
 *   PRIMARY KEY (run_id, sequence))`: one row per event; `event` is the event's exact JSON line
 *   (without its newline), so a replay reads the bytes written; the hash chain is in the columns
 *   (32 bytes each).
 * - `stategate_checkpoints (run_id text PRIMARY KEY, sequence bigint, hash bytea, checkpoint
 *   bytea, saved_at timestamptz)`: the latest checkpoint of each run (`store.checkpoint()`'s
 *   bytes), written every `checkpointEvery` events.
 * - `stategate_migrations (version integer PRIMARY KEY, applied_at timestamptz)`: the schema
 *   versions applied.
 *
 * @example
 * import { PostgresLog } from "stategate/postgres-log";
 * const log = await PostgresLog.connect(process.env.DATABASE_URL, { checkpointEvery: 500 });
 * const run = await log.open("run-42");                    // a new run, or resumed from the table
 * await run.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
 * run.store.get("messages");                                // the read API of the store
 * // another process applied meanwhile → VERSION_CONFLICT: await run.sync(), then retry
 * await log.close();
 */
import { StateStore, stategateError, isStategateError } from "stategate";
import type { Applied, BatchApplied, Command, ErrorDetails, Repaired, RestoreInit, StateStore as Store, StoreEvent, StoreInit, StoreRepairOptions } from "./api.js";
import { describe } from "./errors.js";

/** A query result of `pg`: the rows, as objects keyed by column name. */
export interface PgResult {
  /** The rows returned. */
  rows: Record<string, unknown>[];
  /** The number of rows returned or changed (`null` for some commands). */
  rowCount: number | null;
}

/** A connection checked out of a pool (`pg.PoolClient`): queries on one session. */
export interface PgPoolClient {
  /** Runs one query with `$1 …` parameters. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Gives the connection back to the pool (with an error: destroys it). */
  release(err?: Error | boolean): void;
}

/**
 * What {@link PostgresLog.connect} needs of a connection pool: `pg.Pool` (from the `pg` package,
 * 8.x) has it. Only these three methods are used, so another pool of the same shape works too.
 */
export interface PgPool {
  /** Runs one query on any connection of the pool. */
  query(text: string, values?: unknown[]): Promise<PgResult>;
  /** Checks a connection out (for the session-level advisory lock of the migrations). */
  connect(): Promise<PgPoolClient>;
  /** Closes every connection of the pool. */
  end(): Promise<void>;
}

/** Options of {@link PostgresLog.connect}. */
export interface PostgresLogOptions {
  /**
   * Save a checkpoint (the store's whole state, `store.checkpoint()`) after a change that takes
   * a run `checkpointEvery` or more events past its last checkpoint, so that {@link
   * PostgresLog.open} restores it and replays only the events after it. A whole number of
   * events ≥ 0; default 1000; 0 never saves one by itself ({@link PostgresRun.checkpoint} still
   * does).
   */
  checkpointEvery?: number;
  /**
   * The PostgreSQL schema holding the tables (created when missing): a lower-case SQL
   * identifier (`[a-z_][a-z0-9_]*`, at most 63 characters), not one of PostgreSQL's reserved
   * schemas (`information_schema`, any name starting `pg_`). Default `"public"`.
   */
  schema?: string;
}

/**
 * Options of {@link PostgresLog.open}: what `new StateStore(init)` takes for a new run. For a run
 * that has events in the table the store is restored from them, and only `channels` (the
 * channels the log writes beyond the default schema), `chainKey` (the run's key, for a keyed
 * chain), `clock` and `audit` apply. `onEvents` is
 * the log's own (refused here) and `runId` is `open`'s argument (refused when different).
 *
 * `channels` may hold private channels for any run (pass the same specs each time the run is
 * opened): a new run registers them (`registerChannel`, in the order given), a restored one
 * takes them as `replay` / `restore` do; either way the owner takes its key with {@link
 * PostgresRun.claimOwnerKey}.
 */
export type OpenInit = StoreInit & RestoreInit;

/** What {@link PostgresLog.load} returns: the latest checkpoint of a run and the events after it. */
export interface LoadedRun {
  /** The latest checkpoint's bytes (`store.checkpoint()`), or `null` when none was saved. */
  checkpoint: Uint8Array | null;
  /** The sequence of the last event the checkpoint holds (0 without a checkpoint). */
  checkpointSequence: number;
  /** Every event after the checkpoint, as JSON Lines in sequence order (each line as written). */
  events: string;
  /** The sequence of the last event of the run in the table (0 for a run with no events). */
  version: number;
}

/** What {@link PostgresRun.sync} returns. */
export interface Synced {
  /** The store's version after it. */
  version: number;
  /** The number of events it took from the table (0 when the store was up to date). */
  applied: number;
}

/** The version of the tables this build creates and reads. */
const SCHEMA_VERSION = 1;
/** `pg_advisory_lock` key of the migrations: the bytes of "stategat" as a signed 64-bit integer. */
const MIGRATION_LOCK = "8319395793566789748";
const DEFAULT_CHECKPOINT_EVERY = 1000;
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** The `prev_hash` of a run's first event (hex). */
const GENESIS = "0".repeat(64);
/** The database side of a run's log (set by the class's static block). */
let ioOf: (log: PostgresLog) => RunIo;

/** A failure of the database (or of the connection) as `STORAGE_ERROR`, naming what was done. */
function storageError(what: string, cause: unknown, details: ErrorDetails = {}): Error {
  if (isStategateError(cause)) return cause;
  // pg's errors carry the SQLSTATE (five characters), Node's socket errors their errno name.
  const code = (cause as { code?: unknown })?.code;
  const tag = typeof code !== "string" ? "" : /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : ` (${code})`;
  return stategateError("STORAGE_ERROR", `${what} failed${tag}: ${describe(cause)}`, details);
}

/**
 * Throws `INVALID_OPTION` unless `runId` is a run id the tables can hold: a non-empty string
 * without U+0000 (PostgreSQL's `text` cannot store it).
 */
function checkRunId(what: string, runId: unknown): asserts runId is string {
  if (typeof runId !== "string" || runId === "") throw stategateError("INVALID_OPTION", `${what} takes a run id (a non-empty string)`);
  if (runId.includes("\u0000")) throw stategateError("INVALID_OPTION", `${what}: the run id contains U+0000, which PostgreSQL text cannot hold`);
}

/** True for a private channel's spec. */
const isPrivateSpec = (spec: unknown): spec is { owner?: unknown } => spec !== null && typeof spec === "object" && (spec as { visibility?: unknown }).visibility === "private";

/**
 * A new run's store: `new StateStore(init)`, except that private channels of `init.channels`
 * (which the constructor refuses: it has no way to hand out their owner keys) are registered
 * with `registerChannel`, every channel in the order given, and their owner keys put in `keys`.
 */
function newStore(init: OpenInit, runId: string, onEvents: () => never, keys: Map<string, string>): Store {
  const { channels, ...rest } = init;
  if (!Array.isArray(channels) || !channels.some(isPrivateSpec)) return new StateStore({ ...init, runId, onEvents });
  const store = new StateStore({ ...rest, runId, onEvents });
  try {
    for (const spec of channels) {
      const owner = isPrivateSpec(spec) && typeof spec.owner === "string" ? spec.owner : undefined;
      const key = store.registerChannel(spec, owner === undefined ? undefined : keys.get(owner));
      if (owner !== undefined && typeof key === "string") keys.set(owner, key);
    }
  } catch (e) {
    store.free();
    throw e;
  }
  return store;
}

/** An event row's sequence (`pg` gives `bigint` columns as text). */
const whole = (v: unknown): number => (typeof v === "number" ? v : Number(v));

/** Hex digits shown of a hash whose first 12 digits are those of the one it is compared with. */
const SHOWN_IN_FULL = 72;

/**
 * Two hashes (hex) that differ, shown so the difference shows: their first 12 digits and `…`
 * when those differ; else each in full (up to 72 digits, then `…`) with its length in bytes —
 * a 33-byte column that starts with its event's 32-byte hash, or one differing in its last byte.
 * A value that is not a string is described.
 */
function contrast(a: unknown, b: unknown): [string, string] {
  if (typeof a !== "string" || typeof b !== "string") return [typeof a === "string" ? `${a.slice(0, 12)}…` : describe(a), typeof b === "string" ? `${b.slice(0, 12)}…` : describe(b)];
  if (a.slice(0, 12) !== b.slice(0, 12)) return [`${a.slice(0, 12)}…`, `${b.slice(0, 12)}…`];
  const full = (v: string) => `${v.length <= SHOWN_IN_FULL ? v : `${v.slice(0, SHOWN_IN_FULL)}…`} (${v.length % 2 === 0 ? `${v.length / 2} bytes` : `${v.length} hex digits`})`;
  return [full(a), full(b)];
}

/**
 * Throws `TAMPERED_LOG` when an event row's columns disagree with its event line: the line not
 * an event of `runId`, or its `sequence`, `prev_hash` or `hash` not the row's. `index` is the
 * row's position among those read (`details.index`); the message names the sequence.
 */
function checkRow(runId: string, index: number, sequence: number, prevHash: string, hash: string, line: string): void {
  const bad = (field: string, why: string) =>
    stategateError("TAMPERED_LOG", `run ${JSON.stringify(runId)}: the table's row at sequence ${sequence} ${why}: the row was edited or mixed up outside stategate`, { index, field });
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw bad("event", "holds an event column that is not JSON");
  }
  if (event === null || typeof event !== "object" || Array.isArray(event)) throw bad("event", "holds an event column that is not an event object");
  if (event.run_id !== runId) throw bad("run_id", `holds an event of run ${JSON.stringify(describe(event.run_id))}`);
  if (event.sequence !== sequence) throw bad("sequence", `holds the event of sequence ${JSON.stringify(describe(event.sequence))}`);
  if (event.prev_hash !== prevHash) {
    const [column, line] = contrast(prevHash, event.prev_hash);
    throw bad("prev_hash", `has prev_hash ${column} in its column but ${line} in its event`);
  }
  if (event.hash !== hash) {
    const [column, line] = contrast(hash, event.hash);
    throw bad("hash", `has hash ${column} in its column but ${line} in its event`);
  }
}

/**
 * Throws unless a checkpoint row holds its run's checkpoint: `CORRUPT_CHECKPOINT` (`details.field`
 * `"checkpoint"`) when its bytes are not UTF-8 JSON with `run_id`, `last_sequence` and
 * `last_hash`; `TAMPERED_LOG` naming the field when the bytes' `run_id` is not the row's run
 * (another run's row copied in), their `last_sequence` not the row's `sequence`, or their
 * `last_hash` not the row's `hash`. (The checkpoint's digest is checked by `restore`.)
 */
function checkCheckpointRow(runId: string, sequence: number, hash: string, bytes: Uint8Array): void {
  const id = JSON.stringify(runId);
  let head: { run_id?: unknown; last_sequence?: unknown; last_hash?: unknown };
  try {
    head = checkpointHead(bytes);
  } catch (e) {
    throw stategateError("CORRUPT_CHECKPOINT", `run ${id}: its checkpoint row (sequence ${sequence}) holds bytes that are not a checkpoint: ${describe(e)}`, { field: "checkpoint" });
  }
  const bad = (field: string, why: string) => stategateError("TAMPERED_LOG", `run ${id}: its checkpoint row ${why}: the row was edited or copied outside stategate (delete it: the run is then replayed from its events)`, { field });
  if (head.run_id !== runId) throw bad("run_id", `holds a checkpoint of run ${JSON.stringify(describe(head.run_id))}`);
  if (head.last_sequence !== sequence) throw bad("last_sequence", `at sequence ${sequence} holds a checkpoint of sequence ${describe(head.last_sequence)}`);
  if (head.last_hash !== hash) {
    const [column, bytesHash] = contrast(hash, head.last_hash);
    throw bad("last_hash", `has hash ${column} in its column but ${bytesHash} in its checkpoint`);
  }
}

/** A checkpoint's opening fields, as serialised (format, format_version, run_id, last_sequence, last_hash, …). */
const CHECKPOINT_HEAD = /^\{"format":"stategate-checkpoint","format_version":\d+,"run_id":("(?:[^"\\]|\\.)*"),"last_sequence":(\d+),"last_hash":"([0-9a-f]*)"/;

/**
 * The `run_id`, `last_sequence` and `last_hash` of a checkpoint's bytes (UTF-8 JSON): read from
 * its opening when the fields come first as the core writes them (a large checkpoint is not
 * parsed twice: `restore` parses it), else from the whole text. Throws when the bytes are not
 * UTF-8 JSON of an object.
 */
function checkpointHead(bytes: Uint8Array): { run_id?: unknown; last_sequence?: unknown; last_hash?: unknown } {
  const opening = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 4096));
  const m = CHECKPOINT_HEAD.exec(opening);
  if (m) return { run_id: JSON.parse(m[1]), last_sequence: Number(m[2]), last_hash: m[3] };
  const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new TypeError("not a JSON object");
  return value as Record<string, unknown>;
}

/** The ids of the messages an event wrote, as `apply` returns them (the messages channels' ops). */
function messageIds(event: StoreEvent, messageChannels: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  const payload = (event as { payload?: Record<string, unknown> }).payload ?? {};
  for (const [channel, ops] of Object.entries(payload)) {
    if (!messageChannels.has(channel) || !Array.isArray(ops)) continue;
    for (const op of ops as Record<string, unknown>[]) {
      if (op === null || typeof op !== "object") continue;
      const id = (m: unknown) => (m !== null && typeof m === "object" && typeof (m as { id?: unknown }).id === "string" ? [(m as { id: string }).id] : []);
      if ("replace" in op) ids.push(...id(op.replace));
      else if ("insertAfter" in op) ids.push(...id(op.message));
      else if (!("remove" in op) && !("removeAll" in op)) ids.push(...id(op));
    }
  }
  return ids;
}

/**
 * Runs of stategate stores in PostgreSQL: {@link PostgresLog.connect} once per process, then
 * {@link PostgresLog.open} a {@link PostgresRun} per run. Node only; needs `pg` 8.
 */
export class PostgresLog {
  /** The PostgreSQL schema of the tables. */
  readonly schema: string;
  /** Events between automatic checkpoints (0: none). */
  readonly checkpointEvery: number;
  #pool: PgPool;
  #ownsPool: boolean;
  #closed = false;
  #t: { events: string; checkpoints: string; migrations: string };

  private constructor(pool: PgPool, ownsPool: boolean, schema: string, checkpointEvery: number) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.schema = schema;
    this.checkpointEvery = checkpointEvery;
    const q = `"${schema}"`;
    this.#t = { events: `${q}.stategate_events`, checkpoints: `${q}.stategate_checkpoints`, migrations: `${q}.stategate_migrations` };
  }

  /**
   * Connects and runs the migrations ({@link PostgresLog.migrate}). `pool` is a `pg.Pool` (or a
   * pool of its shape, {@link PgPool}: you keep it and end it), or a connection string / a
   * `pg.Pool` config object (then `pg` is imported and the log makes and owns the pool: {@link
   * PostgresLog.close} ends it). Rejects with `INVALID_OPTION` for bad options, `STORAGE_ERROR`
   * when `pg` is not installed, the database cannot be reached, or its tables were made by a
   * newer stategate (a schema version above 1).
   */
  static async connect(pool: PgPool | string | Record<string, unknown>, opts: PostgresLogOptions = {}): Promise<PostgresLog> {
    if (opts === null || typeof opts !== "object") throw stategateError("INVALID_OPTION", "PostgresLog.connect: opts must be an object ({checkpointEvery?, schema?})");
    for (const key of Object.keys(opts)) {
      if (key !== "checkpointEvery" && key !== "schema") throw stategateError("INVALID_OPTION", `PostgresLog.connect: unknown option ${JSON.stringify(key)} (known: checkpointEvery, schema)`);
    }
    const every = opts.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY;
    if (!Number.isSafeInteger(every) || every < 0) throw stategateError("INVALID_OPTION", `PostgresLog.connect: checkpointEvery must be a whole number of events ≥ 0, got ${describe(every)}`);
    const schema = opts.schema ?? "public";
    if (typeof schema !== "string" || !IDENTIFIER.test(schema)) throw stategateError("INVALID_OPTION", `PostgresLog.connect: schema must match [a-z_][a-z0-9_]* (at most 63 characters), got ${JSON.stringify(describe(schema))}`);
    // PostgreSQL's own schemas (the catalog, TOAST, temporary ones): CREATE SCHEMA refuses pg_*
    // names, and a table put in information_schema or pg_catalog would sit among the system's.
    if (schema === "information_schema" || schema.startsWith("pg_")) throw stategateError("INVALID_OPTION", `PostgresLog.connect: schema ${JSON.stringify(schema)} is reserved by PostgreSQL (information_schema and every pg_ name): pick another`);
    let owned = false;
    let p: PgPool;
    if (pool !== null && typeof pool === "object" && typeof (pool as PgPool).query === "function" && typeof (pool as PgPool).connect === "function") {
      p = pool as PgPool;
    } else if (typeof pool === "string" || (pool !== null && typeof pool === "object")) {
      let pg: { Pool: new (config: unknown) => PgPool };
      try {
        const name = "pg"; // not a literal: the package's types do not need pg's
        const m = await import(name);
        pg = (m.default ?? m) as typeof pg;
      } catch (e) {
        throw storageError("PostgresLog.connect: importing the pg package (npm i pg)", e);
      }
      p = new pg.Pool(typeof pool === "string" ? { connectionString: pool } : pool);
      // pg.Pool emits "error" for an idle connection the server dropped; unheard, Node would end
      // the process. The next query on it fails on its own (STORAGE_ERROR), so it is only noted.
      (p as unknown as { on(event: string, f: (e: unknown) => void): void }).on("error", () => {});
      owned = true;
    } else {
      throw stategateError("INVALID_OPTION", "PostgresLog.connect takes a pg.Pool, a connection string or a pg.Pool config object");
    }
    const log = new PostgresLog(p, owned, schema, every);
    try {
      await log.migrate();
    } catch (e) {
      if (owned) await p.end().catch(() => {});
      throw e;
    }
    return log;
  }

  /**
   * Creates the schema and tables when missing, and records the schema version. Idempotent, and
   * safe when several processes start at once: the DDL runs under `pg_advisory_lock` on one
   * session, so only one process creates while the others wait and then find it done. Rejects
   * with `STORAGE_ERROR` (a database failure, or tables of a newer schema version).
   */
  async migrate(): Promise<void> {
    this.#checkOpen("migrate");
    let client: PgPoolClient;
    try {
      client = await this.#pool.connect();
    } catch (e) {
      throw storageError("PostgresLog: connecting to the database", e);
    }
    let broken: Error | undefined;
    try {
      await client.query("SELECT pg_advisory_lock($1::bigint)", [MIGRATION_LOCK]);
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        await client.query(`CREATE TABLE IF NOT EXISTS ${this.#t.migrations} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
        const { rows } = await client.query(`SELECT coalesce(max(version), 0) AS v FROM ${this.#t.migrations}`);
        const found = whole(rows[0]?.v ?? 0);
        if (found > SCHEMA_VERSION) throw stategateError("STORAGE_ERROR", `PostgresLog: the tables in schema "${this.schema}" are of schema version ${found}, made by a newer stategate; this one reads version ${SCHEMA_VERSION}`);
        if (found < 1) {
          await client.query("BEGIN");
          try {
            await client.query(`CREATE TABLE IF NOT EXISTS ${this.#t.events} (
              run_id text NOT NULL,
              sequence bigint NOT NULL CHECK (sequence > 0),
              prev_hash bytea NOT NULL,
              hash bytea NOT NULL,
              event text NOT NULL,
              PRIMARY KEY (run_id, sequence))`);
            await client.query(`CREATE TABLE IF NOT EXISTS ${this.#t.checkpoints} (
              run_id text PRIMARY KEY,
              sequence bigint NOT NULL,
              hash bytea NOT NULL,
              checkpoint bytea NOT NULL,
              saved_at timestamptz NOT NULL DEFAULT now())`);
            await client.query(`INSERT INTO ${this.#t.migrations} (version) VALUES (1) ON CONFLICT DO NOTHING`);
            await client.query("COMMIT");
          } catch (e) {
            await client.query("ROLLBACK").catch(() => {});
            throw e;
          }
        }
      } finally {
        await client.query("SELECT pg_advisory_unlock($1::bigint)", [MIGRATION_LOCK]);
      }
    } catch (e) {
      broken = e as Error;
      throw storageError(`PostgresLog: migrating the tables in schema "${this.schema}"`, e);
    } finally {
      // A session whose unlock failed may still hold the lock: destroy it rather than reuse it.
      client.release(broken);
    }
  }

  /**
   * The latest checkpoint of `runId` and every event after it, read from the tables (the
   * checkpoint first: events are only ever appended, so the events read after it continue it).
   * Pass them to `StateStore.restore(checkpoint, events)` (or `replay(events)` without a
   * checkpoint). Rejects with `INVALID_OPTION` for a `runId` that is not a non-empty string or
   * contains U+0000, `TAMPERED_LOG` for a row whose `sequence`, `prev_hash` or `hash` column is
   * not its event line's (naming the sequence; `details.index` its position in `events`), or a
   * checkpoint row that is not the run's own (`details.field`: `"run_id"` its bytes' run is
   * another, `"last_sequence"` / `"last_hash"` their sequence / hash is not the row's,
   * `"sequence"` it is past the table's last event), `CORRUPT_CHECKPOINT` for checkpoint bytes
   * that are not UTF-8 JSON (`details.field` `"checkpoint"`), `STORAGE_ERROR`.
   */
  async load(runId: string): Promise<LoadedRun> {
    this.#checkOpen("load");
    checkRunId("PostgresLog.load", runId);
    try {
      const cp = await this.#pool.query(`SELECT sequence, encode(hash, 'hex') AS hash, checkpoint FROM ${this.#t.checkpoints} WHERE run_id = $1`, [runId]);
      const row = cp.rows[0];
      const checkpointSequence = row ? whole(row.sequence) : 0;
      const checkpoint = row ? new Uint8Array(row.checkpoint as Uint8Array) : null;
      if (checkpoint) checkCheckpointRow(runId, checkpointSequence, row.hash as string, checkpoint);
      const events = await this.#eventsAfter(runId, checkpointSequence);
      let version = events.last;
      if (version === 0 && checkpoint) {
        // No event after the checkpoint: the table's last event must be the checkpoint's own.
        const { rows } = await this.#pool.query(`SELECT coalesce(max(sequence), 0) AS last FROM ${this.#t.events} WHERE run_id = $1`, [runId]);
        version = whole(rows[0]?.last ?? 0);
        if (version < checkpointSequence) {
          throw stategateError("TAMPERED_LOG", `run ${JSON.stringify(runId)}: its checkpoint of sequence ${checkpointSequence} is past the table's last event, ${version}: events were lost from the table (restored from an older backup than the checkpoints?), or the checkpoint row was copied in`, { field: "sequence" });
        }
      }
      return { checkpoint, checkpointSequence, events: events.text, version };
    } catch (e) {
      throw storageError(`PostgresLog.load(${JSON.stringify(runId)})`, e);
    }
  }

  /**
   * A run to write: its store restored from the latest checkpoint and the events after it (or
   * replayed, or a new store when the table has no event of `runId`), kept in step with the
   * table by {@link PostgresRun.apply} and {@link PostgresRun.sync}. `init` is as {@link
   * OpenInit} says. Rejects with `INVALID_OPTION`, `STORAGE_ERROR`, and what restore / replay
   * reject (`TAMPERED_LOG`, `CORRUPT_CHECKPOINT`, `UNKNOWN_CHANNEL`, …).
   */
  async open(runId: string, init: OpenInit = {}): Promise<PostgresRun> {
    this.#checkOpen("open");
    checkRunId("PostgresLog.open", runId);
    if (init === null || typeof init !== "object") throw stategateError("INVALID_OPTION", "PostgresLog.open: init must be an object (the options of new StateStore)");
    if (init.onEvents !== undefined) throw stategateError("INVALID_OPTION", "PostgresLog.open: onEvents is the log's own (changes go through run.apply / run.applyBatch)");
    if (init.runId !== undefined && init.runId !== runId) throw stategateError("INVALID_OPTION", `PostgresLog.open: init.runId ${JSON.stringify(init.runId)} is not the run opened, ${JSON.stringify(runId)}`);
    const loaded = await this.load(runId);
    const onEvents = () => {
      throw stategateError("STORAGE_ERROR", `run ${JSON.stringify(runId)} is kept in PostgreSQL by PostgresLog: change it with run.apply / run.applyBatch / run.repair / run.compact (a direct store.apply, applyBatch, repair, compact, artifact-recording modelView or task tool would not reach the table)`);
    };
    const restoreInit: RestoreInit = { onEvents };
    if (init.channels !== undefined) restoreInit.channels = init.channels;
    if (init.clock !== undefined) restoreInit.clock = init.clock;
    if (init.audit !== undefined) restoreInit.audit = init.audit;
    if (init.chainKey !== undefined) restoreInit.chainKey = init.chainKey;
    // A new run's private channels: the owner keys registerChannel hands out, for run.claimOwnerKey.
    const ownerKeys = new Map<string, string>();
    let store: Store;
    if (loaded.checkpoint) store = StateStore.restore(loaded.checkpoint, loaded.events, restoreInit);
    else if (loaded.events !== "") store = StateStore.replay(loaded.events, restoreInit);
    else store = newStore(init, runId, onEvents, ownerKeys);
    const restoredRun = store.runId; // read before free(): a freed store answers FREED
    if (restoredRun !== runId) {
      store.free();
      throw stategateError("TAMPERED_LOG", `PostgresLog.open: the rows of run ${JSON.stringify(runId)} hold events of run ${JSON.stringify(restoredRun)}`, { field: "run_id" });
    }
    return new PostgresRun(this, store, loaded.checkpointSequence, ownerKeys);
  }

  /**
   * Closes the log: ends the pool when {@link PostgresLog.connect} made it (a pool you passed is
   * yours to end). Runs opened from it can no longer write. A second call does nothing.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end().catch((e) => Promise.reject(storageError("PostgresLog.close: ending the pool", e)));
  }

  /** Throws `STORAGE_ERROR` once closed. @internal */
  #checkOpen(what: string): void {
    if (this.#closed) throw stategateError("STORAGE_ERROR", `PostgresLog.${what}: the log was closed`);
  }

  /**
   * The events of `runId` after `sequence`, as JSON Lines, and the last sequence read (0: none).
   * Each row's `sequence`, `prev_hash` and `hash` columns must be its event line's (the writer
   * checks the chain by the columns, the stores by the lines): a row where they disagree is
   * `TAMPERED_LOG` naming its sequence (`details.index`: its position among the rows read).
   */
  async #eventsAfter(runId: string, sequence: number): Promise<{ text: string; last: number }> {
    const { rows } = await this.#pool.query(
      `SELECT sequence, encode(prev_hash, 'hex') AS prev_hash, encode(hash, 'hex') AS hash, event FROM ${this.#t.events} WHERE run_id = $1 AND sequence > $2 ORDER BY sequence`,
      [runId, sequence],
    );
    let text = "";
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      const line = r.event as string;
      checkRow(runId, i, whole(r.sequence), r.prev_hash as string, r.hash as string, line);
      text += line + "\n";
    }
    return { text, last: rows.length ? whole(rows[rows.length - 1].sequence) : 0 };
  }

  // The database side of a PostgresRun (module-private: not a member of the class).
  static {
    ioOf = (log: PostgresLog): RunIo => ({
      checkOpen: (what) => log.#checkOpen(what),
      eventsAfter: (runId, sequence) => log.#eventsAfter(runId, sequence),
      insert: async (events) => {
        const e0 = events[0];
        // Inserted only when the table's row at (first sequence − 1) is the event the new ones
        // continue (its hash is the first one's prev_hash), or they start the run: checked in
        // the same statement, the predecessor row locked (FOR KEY SHARE) so it cannot be deleted
        // before the commit. The primary key serialises writers of the same sequence.
        const r = await log.#pool.query(
          `INSERT INTO ${log.#t.events} (run_id, sequence, prev_hash, hash, event)
           SELECT $1, s, decode(p, 'hex'), decode(h, 'hex'), e FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(s, p, h, e)
           WHERE ($6::bigint = 1 AND $7::text = '${GENESIS}')
              OR EXISTS (SELECT 1 FROM ${log.#t.events} WHERE run_id = $1 AND sequence = $6::bigint - 1 AND hash = decode($7::text, 'hex') FOR KEY SHARE)`,
          [e0.run_id, events.map((e) => e.sequence), events.map((e) => e.prev_hash), events.map((e) => e.hash), events.map((e) => JSON.stringify(e)), e0.sequence, e0.prev_hash],
        );
        return r.rowCount === events.length;
      },
      hashAt: async (runId, sequence) => {
        const { rows } = await log.#pool.query(`SELECT encode(hash, 'hex') AS hash FROM ${log.#t.events} WHERE run_id = $1 AND sequence = $2`, [runId, sequence]);
        return rows.length ? (rows[0].hash as string) : null;
      },
      saveCheckpoint: async (runId, sequence, hash, bytes) => {
        await log.#pool.query(
          `INSERT INTO ${log.#t.checkpoints} (run_id, sequence, hash, checkpoint) VALUES ($1, $2, decode($3, 'hex'), $4)
           ON CONFLICT (run_id) DO UPDATE SET sequence = EXCLUDED.sequence, hash = EXCLUDED.hash, checkpoint = EXCLUDED.checkpoint, saved_at = now()
           WHERE ${log.#t.checkpoints}.sequence < EXCLUDED.sequence`,
          [runId, sequence, hash, bytes],
        );
      },
    });
  }
}

/** What a run needs of its log. */
interface RunIo {
  checkOpen(what: string): void;
  eventsAfter(runId: string, sequence: number): Promise<{ text: string; last: number }>;
  /** Inserts the events when the table's row before the first is the one they continue; false (nothing inserted) when not. */
  insert(events: StoreEvent[]): Promise<boolean>;
  /** The hash (hex) of the table's event `sequence` of `runId`, `null` when there is no such row. */
  hashAt(runId: string, sequence: number): Promise<string | null>;
  saveCheckpoint(runId: string, sequence: number, hash: string, bytes: Uint8Array): Promise<void>;
}

/**
 * One run of a {@link PostgresLog}: its store (read it through {@link PostgresRun.store}) and the
 * calls that change it, each written to the table before the store takes it. Calls on one run
 * object run one after another (a promise queue), in the order made.
 */
export class PostgresRun {
  /** The run id. */
  readonly runId: string;
  /**
   * The store, for its read API (`get`, `messages`, `modelView`, `events`, `version`, …). A
   * change made on it directly (`store.apply`, `repair`, `compact`, a `modelView` that records
   * artifacts, task tools) is refused with `STORAGE_ERROR` naming `run.apply`: it would not
   * reach the table; so is `store.ingest` (the store takes events only through `run.sync` and
   * the run's own writes), and so is `store.registerChannel` (`STORAGE_ERROR`: it writes no
   * event, so the channel would live in this store only; declare it in `init.channels` of every
   * {@link PostgresLog.open} of the run). Do not `free()` it while the run is in use.
   */
  readonly store: Store;
  /**
   * The last failure of an automatic checkpoint (`STORAGE_ERROR`), or `null`. A checkpoint is
   * written after the change it follows is committed, so its failure does not fail the change;
   * it is tried again after the next change, and {@link PostgresRun.checkpoint} throws it.
   */
  checkpointError: Error | null = null;
  #log: PostgresLog;
  #io: RunIo;
  #queue: Promise<unknown> = Promise.resolve();
  #checkpointed: number;
  #messageChannels: Set<string>;
  /** Owner keys of a new run's private channels not yet claimed (see claimOwnerKey). */
  #ownerKeys: Map<string, string>;
  /** The store's own `ingest` (its `ingest` property refuses direct calls). */
  #ingest: (events: StoreEvent[] | string) => { version: number; applied: number };

  /** @internal Made by {@link PostgresLog.open}. */
  constructor(log: PostgresLog, store: Store, checkpointed: number, ownerKeys: Map<string, string> = new Map()) {
    if (!(log instanceof PostgresLog)) throw stategateError("INVALID_OPTION", "PostgresRun is made by PostgresLog.open");
    this.#log = log;
    this.#io = ioOf(log);
    this.store = store;
    this.runId = store.runId;
    this.#checkpointed = checkpointed;
    this.#ownerKeys = ownerKeys;
    // The store takes events only from the run (what it inserted, or read from the table): a
    // direct store.ingest is refused, as a direct store.apply is (by onEvents).
    const ingest = store.ingest;
    this.#ingest = (events) => ingest.call(store, events);
    Object.defineProperty(store, "ingest", {
      configurable: true,
      value: () => {
        throw stategateError("STORAGE_ERROR", `run ${JSON.stringify(store.runId)} is kept in PostgreSQL by PostgresLog: its store takes events only from the table (run.sync) and from run.apply / run.applyBatch; a direct store.ingest would not reach the table`);
      },
    });
    // registerChannel writes no event: a channel registered here would be in this store only,
    // and every other process (or a later open) would fail on the events writing it.
    Object.defineProperty(store, "registerChannel", {
      configurable: true,
      value: (spec?: unknown) => {
        const name = spec !== null && typeof spec === "object" && typeof (spec as { name?: unknown }).name === "string" ? ` ${JSON.stringify((spec as { name: string }).name)}` : "";
        throw stategateError("STORAGE_ERROR", `run ${JSON.stringify(store.runId)} is kept in PostgreSQL by PostgresLog: a channel${name} registered on its store would not reach the table (registerChannel writes no event), so no other process could open the run's events that write it; declare the channel in init.channels of every log.open of the run instead`);
      },
    });
    this.#messageChannels = new Set();
    this.#refreshChannels();
  }

  /**
   * Applies one command: previews its event, inserts it, and the store takes it. Resolves with
   * what `store.apply` returns, `{version, ids}`. Rejects with `VERSION_CONFLICT` when another
   * writer already wrote that sequence (the store is unchanged: `await run.sync()` and retry),
   * `TAMPERED_LOG` when the table's row before the event is missing or not the store's last
   * event (a lost row, another history, a store changed outside the run: `sync()` cannot mend
   * it, open the run again; nothing is written, the store is unchanged),
   * every error `store.apply` throws (checked before anything is written), `STORAGE_ERROR` when
   * the database fails (the change may or may not have been committed if the connection broke
   * during the commit: `sync()` tells).
   */
  apply(command: Command): Promise<Applied> {
    return this.#serial("apply", async () => {
      const events = this.store.preview(command);
      await this.#write(events);
      return { version: this.store.version, ids: events.flatMap((e) => messageIds(e, this.#messageChannels)) };
    });
  }

  /**
   * Applies a batch (one superstep) as `store.applyBatch` does, all of its events in one
   * `INSERT`: the whole batch is in the table or none of it. Resolves with `{version, ids}`
   * (`ids[k]`: the messages command `k` wrote). Rejects as {@link PostgresRun.apply} (and with
   * `details.command` for the command refused).
   */
  applyBatch(commands: Command[]): Promise<BatchApplied> {
    return this.#serial("applyBatch", async () => {
      const events = this.store.previewBatch(commands);
      await this.#write(events);
      return { version: this.store.version, ids: events.map((e) => messageIds(e, this.#messageChannels)) };
    });
  }

  /**
   * Repairs the stored messages as `store.repair(opts)` does (synthetic error results for
   * dangling calls — after a crash, `{reasons: {id: "interrupted"}}` for each of
   * `store.danglingToolCalls()` — misplaced results moved, duplicates removed), written as one
   * event: previewed, inserted, then taken by the store. Resolves with `{version, report, ids}`;
   * nothing to repair writes nothing. Rejects as {@link PostgresRun.apply}.
   */
  repair(opts?: StoreRepairOptions): Promise<Repaired> {
    return this.#serial("repair", async () => {
      const { events, ...repaired } = this.store.previewRepair(opts);
      await this.#write(events);
      return repaired;
    });
  }

  /**
   * Records a compaction as `store.compact(opts)` does (the model view becomes the summary and
   * the messages from `cut` on), through {@link PostgresRun.apply}. Resolves with `{version, ids}`.
   * Rejects with what `compact` throws (`INVALID_OPTION` for a cut inside a tool-call unit) and
   * as {@link PostgresRun.apply}.
   */
  compact(opts: { summary: string; cut: number; author?: string }): Promise<Applied> {
    return this.#serial("compact", async () => {
      const events = this.store.preview(this.store.compactionCommand(opts));
      await this.#write(events);
      return { version: this.store.version, ids: [] };
    });
  }

  /**
   * Hands out `owner`'s private-channel key, once per run object: the key its private channels
   * got when {@link PostgresLog.open} made the run (a new run, its private channels registered
   * from `init.channels`), else `store.claimOwnerKey(owner)` (a run restored from the table:
   * keys are never persisted). Use it with `store.private(key)` and in commands' `ownerKey`.
   * Throws `NOT_OWNER` when `owner` has no private channel or its key was already handed out.
   */
  claimOwnerKey(owner: string): string {
    const key = this.#ownerKeys.get(owner);
    if (key !== undefined) {
      this.#ownerKeys.delete(owner);
      return key;
    }
    return this.store.claimOwnerKey(owner);
  }

  /**
   * Brings the store up to date: takes the table's events after `store.version` (those other
   * writers committed). Resolves with `{version, applied}`. Rejects with `STORAGE_ERROR`, and
   * `TAMPERED_LOG` when the rows do not continue the store's chain or a row's `hash` /
   * `prev_hash` column is not its event's (the store is unchanged).
   */
  sync(): Promise<Synced> {
    return this.#serial("sync", async () => {
      const { text } = await this.#io.eventsAfter(this.runId, this.store.version).catch((e) => Promise.reject(storageError(`run ${JSON.stringify(this.runId)}: reading the events after ${this.store.version}`, e)));
      if (text === "") return { version: this.store.version, applied: 0 };
      const r = this.#ingest(text);
      this.#refreshChannels();
      return { version: r.version, applied: r.applied };
    });
  }

  /**
   * Saves a checkpoint of the store as it is now (when newer than the table's), whatever
   * `checkpointEvery` says. Resolves with the checkpoint's sequence. Rejects with `STORAGE_ERROR`.
   */
  checkpoint(): Promise<number> {
    return this.#serial("checkpoint", async () => {
      await this.#saveCheckpoint();
      return this.#checkpointed;
    });
  }

  /** Runs `f` after every call made before on this run; failures become typed rejections. */
  #serial<T>(what: string, f: () => Promise<T>): Promise<T> {
    const run = async () => {
      this.#io.checkOpen(`run.${what}`);
      try {
        return await f();
      } catch (e) {
        throw isStategateError(e) ? e : storageError(`run ${JSON.stringify(this.runId)}: ${what}`, e);
      }
    };
    const next = this.#queue.then(run, run);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** INSERT the previewed events (a unique violation is `VERSION_CONFLICT`), then ingest them. */
  async #write(events: StoreEvent[]): Promise<void> {
    if (events.length === 0) return;
    const first = events[0].sequence;
    let inserted: boolean;
    try {
      inserted = await this.#io.insert(events);
    } catch (e) {
      if ((e as { code?: unknown })?.code === "23505") {
        throw stategateError(
          "VERSION_CONFLICT",
          `run ${JSON.stringify(this.runId)}: another writer got there first (event ${events[0].sequence} is already in the table); await run.sync() to take its changes, then retry the command`,
        );
      }
      throw storageError(`run ${JSON.stringify(this.runId)}: inserting events ${events[0].sequence}…${events[events.length - 1].sequence}`, e);
    }
    if (!inserted) throw await this.#notContinued(first, events[0].prev_hash);
    this.#ingest(events);
    if (this.#log.checkpointEvery > 0 && this.store.version - this.#checkpointed >= this.#log.checkpointEvery) {
      try {
        await this.#saveCheckpoint();
        this.checkpointError = null;
      } catch (e) {
        this.checkpointError = e as Error;
      }
    }
  }

  /**
   * The `TAMPERED_LOG` of an insert refused because the table's row at `first − 1` is not the
   * store's last event (`prevHash`): says what the table holds there.
   */
  async #notContinued(first: number, prevHash: string): Promise<Error> {
    const at = first - 1;
    const id = JSON.stringify(this.runId);
    // undefined: the row could not be read (the refusal stands; only the explanation is lost).
    let found: string | null | undefined;
    try {
      found = at === 0 ? null : await this.#io.hashAt(this.runId, at);
    } catch {
      found = undefined;
    }
    const ours = `${prevHash.slice(0, 12)}…`;
    const why =
      at === 0
        ? `the store's first event does not start a chain (prev_hash ${ours})`
        : found === undefined
          ? `the table's event ${at} is not the store's last event (hash ${ours}), or is missing (reading it again failed)`
          : found === null
          ? `the table has no event ${at}, the store's last event (hash ${ours}): a row lost from the table (a restore from a backup?), or the store was changed outside run.apply (store.ingest)`
          : found === prevHash
            ? `the table's event ${at} was not the store's last event (hash ${ours}) when the insert ran`
            : `the table's event ${at} has hash ${contrast(found, prevHash).join(", not the store's last event's ")}: the table holds another history of the run (a lost row written again by another writer), or the store was changed outside run.apply`;
    return stategateError("TAMPERED_LOG", `run ${id}: events ${first}… not written: ${why}. The store and the table disagree and sync() cannot reconcile them: open the run again from the table (and repair the table if rows were lost)`, { field: "prev_hash" });
  }

  async #saveCheckpoint(): Promise<void> {
    const version = this.store.version;
    if (version === 0 || version <= this.#checkpointed) return;
    const bytes = this.store.checkpoint();
    try {
      await this.#io.saveCheckpoint(this.runId, version, this.store.lastHash, bytes);
    } catch (e) {
      throw storageError(`run ${JSON.stringify(this.runId)}: saving the checkpoint of ${version}`, e);
    }
    this.#checkpointed = version;
  }

  /** The channels whose reducer is `messages` (the ids `apply` returns are theirs). */
  #refreshChannels(): void {
    const channels = this.store.channels() as unknown as { name: string; reducer?: string }[];
    this.#messageChannels = new Set(channels.filter((c) => c.reducer === "messages").map((c) => c.name));
  }
}

