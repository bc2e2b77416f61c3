/**
 * `FileLog`: the Node persistence adapter (DESIGN §4). An append-only JSON Lines event log
 * (`events.jsonl`) and the latest checkpoint (`checkpoint.bin`) in one directory. Every write is
 * flushed to disk (`fsync`) before it returns; a checkpoint is written to a temporary file and
 * renamed over the old one, so a crash leaves either the old or the new checkpoint, never half.
 * A crash in the middle of an append leaves a torn last line: {@link FileLog.load} detects it,
 * drops it, truncates the file to the intact prefix and says so.
 *
 * Only I/O lives here; what is loaded is checked by `StateStore.restore` (hash chain, digest).
 *
 * @example
 * const log = FileLog.open("./state");
 * const store = new StateStore({ onEvent: (e) => log.append([e]) });
 * log.saveCheckpoint(store.checkpoint());
 * // after a restart:
 * const { checkpoint, events } = log.load();
 * const again = checkpoint ? StateStore.restore(checkpoint, events) : StateStore.replay(events);
 */
import fs from "node:fs";
import path from "node:path";
import type { StoreEvent } from "./node/stategate_wasm.js";

/** What {@link FileLog.load} returns. */
export interface LoadedLog {
  /** The latest checkpoint's bytes, or `null` when none was saved. */
  checkpoint: Uint8Array | null;
  /** Every intact event, as JSON Lines in the order written. */
  events: string;
  /** True when the last line was torn by a crash and was dropped. */
  torn: boolean;
}

function storageError(what: string, cause: unknown): Error {
  const e = new Error(`STORAGE_ERROR: ${what} failed: ${(cause as Error)?.message ?? String(cause)}`) as Error & { code: string; details: object };
  e.name = "StategateError";
  e.code = "STORAGE_ERROR";
  e.details = {};
  return e;
}

/** An event log and checkpoint in one directory (Node). */
export class FileLog {
  /** The directory holding `events.jsonl` and `checkpoint.bin`. */
  readonly dir: string;
  #fd: number;

  private constructor(dir: string, fd: number) {
    this.dir = dir;
    this.#fd = fd;
  }

  /** Opens (creating) the log in `dir`. Throws `STORAGE_ERROR`. */
  static open(dir: string): FileLog {
    try {
      fs.mkdirSync(dir, { recursive: true });
      return new FileLog(dir, fs.openSync(path.join(dir, "events.jsonl"), "a"));
    } catch (e) {
      throw storageError(`opening ${dir}`, e);
    }
  }

  /** Appends events (objects or JSON Lines) and flushes them to disk. Throws `STORAGE_ERROR`. */
  append(events: readonly StoreEvent[] | string): void {
    const text = typeof events === "string" ? events : events.map((e) => JSON.stringify(e) + "\n").join("");
    if (text.length === 0) return;
    try {
      fs.writeSync(this.#fd, text.endsWith("\n") ? text : text + "\n");
      fs.fsyncSync(this.#fd);
    } catch (e) {
      throw storageError("appending events", e);
    }
  }

  /** Replaces the checkpoint atomically (temporary file, fsync, rename). Throws `STORAGE_ERROR`. */
  saveCheckpoint(bytes: Uint8Array): void {
    const target = path.join(this.dir, "checkpoint.bin");
    const tmp = target + ".tmp";
    try {
      const fd = fs.openSync(tmp, "w");
      try {
        fs.writeSync(fd, bytes);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, target);
    } catch (e) {
      throw storageError("saving the checkpoint", e);
    }
  }

  /**
   * Reads the checkpoint and the events. A last line without its newline, or one that is not
   * JSON, is a torn write: it is dropped and the file is truncated to the intact prefix.
   */
  load(): LoadedLog {
    try {
      const cpPath = path.join(this.dir, "checkpoint.bin");
      const checkpoint = fs.existsSync(cpPath) ? new Uint8Array(fs.readFileSync(cpPath)) : null;
      const logPath = path.join(this.dir, "events.jsonl");
      const buf = fs.readFileSync(logPath);
      let end = buf.length;
      let torn = false;
      if (end > 0 && buf[end - 1] !== 0x0a) {
        end = buf.lastIndexOf(0x0a, end - 1) + 1;
        torn = true;
      } else if (end > 0) {
        const start = buf.lastIndexOf(0x0a, end - 2) + 1;
        try {
          JSON.parse(buf.subarray(start, end - 1).toString("utf8"));
        } catch {
          end = start;
          torn = true;
        }
      }
      if (torn) {
        fs.ftruncateSync(this.#fd, end);
        fs.fsyncSync(this.#fd);
      }
      return { checkpoint, events: buf.subarray(0, end).toString("utf8"), torn };
    } catch (e) {
      throw storageError("loading the log", e);
    }
  }

  /** Closes the log file. */
  close(): void {
    fs.closeSync(this.#fd);
  }
}
