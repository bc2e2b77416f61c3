/**
 * `stategate/postgres-log`: runs of stategate stores in PostgreSQL, {@link PostgresLog} and
 * {@link PostgresRun} (ES module, and CommonJS as `postgres-log.cjs`). Node only, with the `pg`
 * package (an optional peer dependency, `npm i pg`): which is why it is not in the bare import.
 * docs/postgres-log.md has the tables, the write path and what it guarantees.
 * @example
 * import { PostgresLog } from "stategate/postgres-log";
 * const log = await PostgresLog.connect(process.env.DATABASE_URL);
 * const run = await log.open("run-42");
 * await run.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } });
 */
import { PostgresLog as UnguardedPostgresLog, PostgresRun as UnguardedPostgresRun } from "./postgres-log-class.js";
import { guardClass } from "./errors.js";

export type { PgPool, PgPoolClient, PgResult, PostgresLogOptions, OpenInit, LoadedRun, Synced } from "./postgres-log-class.js";
/** See {@link UnguardedPostgresLog}: every failure is a `StategateError` (`STORAGE_ERROR`, `INVALID_OPTION`, `TAMPERED_LOG`, …), as a rejection. */
export const PostgresLog = guardClass(UnguardedPostgresLog, ["connect", "migrate", "load", "open", "close"]);
/** A PostgreSQL log (what {@link PostgresLog.connect} resolves with). */
export type PostgresLog = UnguardedPostgresLog;
/** See {@link UnguardedPostgresRun}: made by `log.open(runId)`; every failure is a `StategateError`, as a rejection (`VERSION_CONFLICT`, `STORAGE_ERROR`, …). */
export const PostgresRun = guardClass(UnguardedPostgresRun, ["apply", "applyBatch", "sync", "checkpoint"]);
/** One run of a PostgreSQL log (what `log.open(runId)` resolves with). */
export type PostgresRun = UnguardedPostgresRun;
