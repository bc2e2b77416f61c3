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
 * chain never forks: every event a writer inserts continues the table's prefix its store holds.
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
   * identifier (`[a-z_][a-z0-9_]*`, at most 63 characters). Default `"public"`.
   */
  schema?: string;
}

/**
 * Options of {@link PostgresLog.open}: what `new StateStore(init)` takes for a new run. For a run
 * that has events in the table the store is restored from them, and only `channels` (the
 * channels the log writes beyond the default schema), `chainKey` (the run's key, for a keyed
 * chain), `clock` and `audit` apply. `onEvents` is
 * the log's own (refused here) and `runId` is `open`'s argument (refused when different).
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

/** An event row's sequence (`pg` gives `bigint` columns as text). */
const whole = (v: unknown): number => (typeof v === "number" ? v : Number(v));

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
   * checkpoint). Rejects with `INVALID_OPTION` for a `runId` that is not a non-empty string,
   * `STORAGE_ERROR`.
   */
  async load(runId: string): Promise<LoadedRun> {
    this.#checkOpen("load");
    if (typeof runId !== "string" || runId === "") throw stategateError("INVALID_OPTION", "PostgresLog.load takes a run id (a non-empty string)");
    try {
      const cp = await this.#pool.query(`SELECT sequence, checkpoint FROM ${this.#t.checkpoints} WHERE run_id = $1`, [runId]);
      const row = cp.rows[0];
      const checkpointSequence = row ? whole(row.sequence) : 0;
      const checkpoint = row ? new Uint8Array(row.checkpoint as Uint8Array) : null;
      const events = await this.#eventsAfter(runId, checkpointSequence);
      return { checkpoint, checkpointSequence, events: events.text, version: events.last || checkpointSequence };
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
    if (typeof runId !== "string" || runId === "") throw stategateError("INVALID_OPTION", "PostgresLog.open takes a run id (a non-empty string)");
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
    let store: Store;
    if (loaded.checkpoint) store = StateStore.restore(loaded.checkpoint, loaded.events, restoreInit);
    else if (loaded.events !== "") store = StateStore.replay(loaded.events, restoreInit);
    else store = new StateStore({ ...init, runId, onEvents });
    if (store.runId !== runId) {
      store.free();
      throw stategateError("TAMPERED_LOG", `PostgresLog.open: the rows of run ${JSON.stringify(runId)} hold events of run ${JSON.stringify(store.runId)}`);
    }
    return new PostgresRun(this, store, loaded.checkpointSequence);
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

  /** The events of `runId` after `sequence`, as JSON Lines, and the last sequence read (0: none). */
  async #eventsAfter(runId: string, sequence: number): Promise<{ text: string; last: number }> {
    const { rows } = await this.#pool.query(`SELECT sequence, event FROM ${this.#t.events} WHERE run_id = $1 AND sequence > $2 ORDER BY sequence`, [runId, sequence]);
    let text = "";
    for (const r of rows) text += (r.event as string) + "\n";
    return { text, last: rows.length ? whole(rows[rows.length - 1].sequence) : 0 };
  }

  // The database side of a PostgresRun (module-private: not a member of the class).
  static {
    ioOf = (log: PostgresLog): RunIo => ({
      checkOpen: (what) => log.#checkOpen(what),
      eventsAfter: (runId, sequence) => log.#eventsAfter(runId, sequence),
      insert: async (events) => {
        const e0 = events[0];
        await log.#pool.query(
          `INSERT INTO ${log.#t.events} (run_id, sequence, prev_hash, hash, event)
           SELECT $1, s, decode(p, 'hex'), decode(h, 'hex'), e FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) AS t(s, p, h, e)`,
          [e0.run_id, events.map((e) => e.sequence), events.map((e) => e.prev_hash), events.map((e) => e.hash), events.map((e) => JSON.stringify(e))],
        );
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
  insert(events: StoreEvent[]): Promise<void>;
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
   * reach the table. Do not `free()` it while the run is in use.
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

  /** @internal Made by {@link PostgresLog.open}. */
  constructor(log: PostgresLog, store: Store, checkpointed: number) {
    if (!(log instanceof PostgresLog)) throw stategateError("INVALID_OPTION", "PostgresRun is made by PostgresLog.open");
    this.#log = log;
    this.#io = ioOf(log);
    this.store = store;
    this.runId = store.runId;
    this.#checkpointed = checkpointed;
    this.#messageChannels = new Set();
    this.#refreshChannels();
  }

  /**
   * Applies one command: previews its event, inserts it, and the store takes it. Resolves with
   * what `store.apply` returns, `{version, ids}`. Rejects with `VERSION_CONFLICT` when another
   * writer already wrote that sequence (the store is unchanged: `await run.sync()` and retry),
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
   * Brings the store up to date: takes the table's events after `store.version` (those other
   * writers committed). Resolves with `{version, applied}`. Rejects with `STORAGE_ERROR`, and
   * `TAMPERED_LOG` when the rows do not continue the store's chain (the store is unchanged).
   */
  sync(): Promise<Synced> {
    return this.#serial("sync", async () => {
      const { text } = await this.#io.eventsAfter(this.runId, this.store.version).catch((e) => Promise.reject(storageError(`run ${JSON.stringify(this.runId)}: reading the events after ${this.store.version}`, e)));
      if (text === "") return { version: this.store.version, applied: 0 };
      const r = this.store.ingest(text);
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
    try {
      await this.#io.insert(events);
    } catch (e) {
      if ((e as { code?: unknown })?.code === "23505") {
        throw stategateError(
          "VERSION_CONFLICT",
          `run ${JSON.stringify(this.runId)}: another writer got there first (event ${events[0].sequence} is already in the table); await run.sync() to take its changes, then retry the command`,
        );
      }
      throw storageError(`run ${JSON.stringify(this.runId)}: inserting events ${events[0].sequence}…${events[events.length - 1].sequence}`, e);
    }
    this.store.ingest(events);
    if (this.#log.checkpointEvery > 0 && this.store.version - this.#checkpointed >= this.#log.checkpointEvery) {
      try {
        await this.#saveCheckpoint();
        this.checkpointError = null;
      } catch (e) {
        this.checkpointError = e as Error;
      }
    }
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

