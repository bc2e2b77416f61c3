/**
 * `FileLog`: the Node persistence adapter (DESIGN §4). An append-only JSON Lines event log
 * (`events.jsonl`) and the latest checkpoint (`checkpoint.bin`) in one directory. Every write is
 * flushed to disk (`fsync`) before it returns; a checkpoint is written to a temporary file and
 * renamed over the old one, so a crash leaves either the old or the new checkpoint, never half.
 * A crash in the middle of an append leaves a torn last line (no newline at its end):
 * {@link FileLog.load} detects it, drops it, truncates the file to the intact prefix and says so.
 * A change of several events (a batch) can be cut after some of its lines (a SIGKILL stops a
 * long write between pages), so before writing one, its byte range is recorded in
 * `events.intent` (synced): `load` drops the whole change when the log ends inside that range.
 * Anything else that does not read as events (a corrupted complete line, a file that is not
 * JSON Lines) is left untouched for `StateStore.replay` / `restore` to refuse.
 *
 * Only I/O lives here; what is loaded is checked by `StateStore.restore` (hash chain, digest).
 *
 * Node only: `import { FileLog } from "stategate/file-log"` (ES module or CommonJS).
 *
 * @example
 * import { FileLog } from "stategate/file-log";
 * const log = FileLog.open("./state");
 * const store = new StateStore({ onEvents: (events) => log.append(events) });
 * log.saveCheckpoint(store.checkpoint());
 * // after a restart:
 * const { checkpoint, events } = log.load();
 * const again = checkpoint ? StateStore.restore(checkpoint, events) : StateStore.replay(events);
 */
import fs from "node:fs";
import path from "node:path";
import type { StoreEvent } from "./stategate_wasm.js";
import { stategateError } from "./errors.js";

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
  return stategateError("STORAGE_ERROR", `${what} failed: ${(cause as Error)?.message ?? String(cause)}`);
}

/** `fs.writeSync` may write less than asked (disk full): write it all, or throw. */
function writeAll(fd: number, bytes: Uint8Array, position: number | null = null): void {
  for (let off = 0; off < bytes.length; ) {
    const n = fs.writeSync(fd, bytes, off, bytes.length - off, position === null ? null : position + off);
    if (n <= 0) throw new Error("short write");
    off += n;
  }
}

/** Syncs a directory's entries (a new file's name, a rename). */
function syncDir(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Size of the `events.intent` record: `{"from":…,"to":…}` padded, rewritten in place. */
const INTENT_SIZE = 64;

/** An event log and checkpoint in one directory (Node). Unguarded: the public one is `file-log.ts`. */
export class FileLog {
  /** The directory holding `events.jsonl` and `checkpoint.bin`. */
  readonly dir: string;
  #fd: number;
  /** `events.intent`, opened on first use; `#settled` once a crash's stale intent is cleared. */
  #intentFd = -1;
  #settled = false;

  private constructor(dir: string, fd: number) {
    this.dir = dir;
    this.#fd = fd;
  }

  /** Opens (creating) the log in `dir`. Throws `INVALID_OPTION` for a `dir` that is not a path, `STORAGE_ERROR`. */
  static open(dir: string): FileLog {
    if (typeof dir !== "string" || dir === "") throw stategateError("INVALID_OPTION", "FileLog.open takes a directory path (a non-empty string)");
    try {
      fs.mkdirSync(dir, { recursive: true });
      return new FileLog(dir, fs.openSync(path.join(dir, "events.jsonl"), "a"));
    } catch (e) {
      throw storageError(`opening ${dir}`, e);
    }
  }

  /**
   * Appends events (the array `onEvents` receives, or JSON Lines) in one write and flushes it to
   * disk. Throws `STORAGE_ERROR` for anything else, or when the file ends in a torn line (call
   * {@link FileLog.load} first to recover it).
   */
  append(events: readonly StoreEvent[] | string): void {
    if (typeof events !== "string" && !Array.isArray(events)) throw storageError("appending events", new TypeError("events must be an array of events or JSON Lines"));
    let text: string;
    try {
      text = typeof events === "string" ? events : events.map((e) => JSON.stringify(e) + "\n").join("");
    } catch (e) {
      throw storageError("appending events", e);
    }
    if (text.length === 0) return;
    // Only logged events go in: every line an event object as the store writes it (its fields
    // in the store's order), so junk can never make the log unreadable later.
    for (const line of text.split("\n")) {
      if (line !== "" && !line.startsWith('{"event_id":"')) throw storageError("appending events", new TypeError("every line must be a logged event (store.events() / onEvents), starting with its event_id"));
    }
    try {
      const bytes = Buffer.from(text.endsWith("\n") ? text : text + "\n", "utf8");
      const size = fs.fstatSync(this.#fd).size;
      if (size > 0) {
        const last = Buffer.alloc(1);
        const reader = fs.openSync(path.join(this.dir, "events.jsonl"), "r");
        try {
          fs.readSync(reader, last, 0, 1, size - 1);
        } finally {
          fs.closeSync(reader);
        }
        if (last[0] !== 0x0a) throw new Error("the log ends with a torn line; call load() first to recover it");
      }
      if (!this.#settled) {
        const { from, to } = this.#readIntent();
        if (from < size && size < to) throw new Error("the log ends with a torn change; call load() first to recover it");
        if (to > size) this.#writeIntent(size, size); // a crash before the change's first byte
        this.#settled = true;
      }
      // Several events: record their range first, so a crash after some of them drops them all.
      if (bytes.indexOf(0x0a) < bytes.length - 1) this.#writeIntent(size, size + bytes.length);
      writeAll(this.#fd, bytes);
      fs.fsyncSync(this.#fd);
    } catch (e) {
      throw storageError("appending events", e);
    }
  }

  /**
   * Replaces the checkpoint atomically (temporary file, fsync, rename). Throws `STORAGE_ERROR`
   * for bytes that are not a stategate checkpoint, so a good checkpoint is never replaced by junk.
   */
  saveCheckpoint(bytes: Uint8Array): void {
    const head = '{"format":"stategate-checkpoint"';
    if (!(bytes instanceof Uint8Array) || Buffer.from(bytes.subarray(0, head.length)).toString("utf8") !== head) {
      throw storageError("saving the checkpoint", new TypeError("bytes must be what store.checkpoint() returns"));
    }
    const target = path.join(this.dir, "checkpoint.bin");
    const tmp = target + ".tmp";
    try {
      const fd = fs.openSync(tmp, "w");
      try {
        writeAll(fd, bytes);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, target);
      syncDir(this.dir); // the rename itself survives a power loss
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
      // The log ends inside a change of several events that was being written: drop all of it.
      const intent = this.#readIntent();
      if (intent.from < end && end < intent.to) {
        fs.ftruncateSync(this.#fd, intent.from);
        fs.fsyncSync(this.#fd);
        this.#writeIntent(intent.from, intent.from);
        this.#settled = true;
        return { checkpoint, events: buf.subarray(0, intent.from).toString("utf8"), torn: true };
      }
      // Not a stategate JSON Lines log (its lines start with `{"event_id":`): leave it untouched.
      if (end > 0 && !buf.subarray(0, 12).toString("utf8").startsWith('{"event_id"')) return { checkpoint, events: buf.toString("utf8"), torn: false };
      // Only a last line without its newline is a torn write: a crash mid-append, so a change
      // that was never acknowledged (onEvents is write-ahead); drop it. A complete line that does
      // not parse is corruption, left for replay/restore to refuse.
      if (end > 0 && buf[end - 1] !== 0x0a) {
        const start = buf.lastIndexOf(0x0a, end - 1) + 1;
        end = start;
        torn = true;
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

  /** Closes the log file (a second call does nothing). */
  close(): void {
    if (this.#intentFd >= 0) fs.closeSync(this.#intentFd);
    this.#intentFd = -1;
    if (this.#fd < 0) return;
    fs.closeSync(this.#fd);
    this.#fd = -1;
  }

  /** The recorded range of the last multi-event append (an empty range when none or unreadable). */
  #readIntent(): { from: number; to: number } {
    const file = path.join(this.dir, "events.intent");
    if (this.#intentFd < 0 && !fs.existsSync(file)) return { from: 0, to: 0 };
    try {
      const r = JSON.parse(fs.readFileSync(file, "utf8"));
      if (Number.isSafeInteger(r?.from) && Number.isSafeInteger(r?.to)) return r;
    } catch {
      // created but never written: the change it was for was not written either
    }
    return { from: 0, to: 0 };
  }

  /** Rewrites the intent record in place (one small write, synced; the file's entry synced once). */
  #writeIntent(from: number, to: number): void {
    if (this.#intentFd < 0) {
      this.#intentFd = fs.openSync(path.join(this.dir, "events.intent"), fs.constants.O_RDWR | fs.constants.O_CREAT);
      syncDir(this.dir);
    }
    writeAll(this.#intentFd, Buffer.from(JSON.stringify({ from, to }).padEnd(INTENT_SIZE, " ")), 0);
    fs.fsyncSync(this.#intentFd);
  }
}
