/**
 * `stategate/file-log`: the Node persistence adapter, {@link FileLog} (ES module, and CommonJS
 * as `file-log.cjs`). Node only — it uses `node:fs`, which is why it is not in the bare import.
 * @example
 * import { StateStore } from "stategate";
 * import { FileLog } from "stategate/file-log";
 * const log = FileLog.open("./state");
 * const store = new StateStore({ onEvents: (events) => log.append(events) });
 */
import { FileLog as UnguardedFileLog } from "./file-log-class.js";
import { guardClass } from "./errors.js";

export type { LoadedLog } from "./file-log-class.js";
/** See {@link UnguardedFileLog}: every failure is a `StategateError` (`STORAGE_ERROR`, `INVALID_OPTION`, `FREED`). */
export const FileLog = guardClass(UnguardedFileLog);
/** A file log instance. */
export type FileLog = UnguardedFileLog;
