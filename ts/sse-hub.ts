/**
 * The Server-Sent Events hub of live followers; the public, guarded class is `stategate/sse`
 * (`sse.ts`, which documents it). Node only, though it imports nothing: it writes to the
 * `node:http` request and response it is handed, typed here by the members it uses (so the
 * declarations check without `@types/node`; `IncomingMessage` and `ServerResponse` fit them).
 */
import type { StateStore, StoreEvent } from "./api.js";
import { isStategateError, stategateError } from "./errors.js";

/** What {@link SseHubOptions.onConnect} is told of each follower that connects. */
export interface SseConnect {
  /** The sequence the follower asked from (its `Last-Event-ID`, else the `since` query), or `null` for none. */
  since: number | null;
  /** True when it got only the events after `since`; false when it got a snapshot. */
  resumed: boolean;
  /** How many events were sent on connecting (0 with a snapshot, which holds them). */
  events: number;
  /** The store's version the follower was brought to. */
  version: number;
}

/** Options of `new SseHub(store, opts)`. */
export interface SseHubOptions {
  /** A comment line (`: ping`) to every follower this often, in ms, so proxies keep the stream open (default 15,000; 0: none). */
  heartbeatMs?: number;
  /** The `retry:` the hub sends: how long `EventSource` waits before reconnecting, in ms (default 1,000). */
  retryMs?: number;
  /**
   * A follower whose unsent data (bytes its socket has not taken) is over this when new events
   * are due is dropped, so a slow client cannot grow the server's memory without bound; it
   * reconnects from its last sequence and gets the events it missed (default 1 MiB).
   */
  maxBufferedBytes?: number;
  /**
   * Extra response headers of the event stream (CORS: `{"access-control-allow-origin": "…"}`):
   * names are HTTP tokens, values strings without control characters (CR, LF, NUL: checked by
   * the constructor, `INVALID_OPTION` naming the header).
   */
  headers?: Record<string, string>;
  /** Called as each follower connects, with what it was sent (for logs and tests). A throw is ignored. */
  onConnect?: (info: SseConnect) => void;
}

/** The part of `node:http`'s `IncomingMessage` the hub reads. */
export interface SseRequest {
  /** `"GET"` (another method is answered 405). */
  readonly method?: string;
  /** The path and query (`?since=<sequence>` is read). */
  readonly url?: string;
  /** The request headers, lower-cased names (`last-event-id` is read). */
  readonly headers?: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/** The part of `node:http`'s `ServerResponse` the hub writes to. */
export interface SseResponse {
  /** Sends the status line and headers. */
  writeHead(status: number, headers?: Record<string, string>): unknown;
  /** Writes a chunk of the stream. */
  write(chunk: string): unknown;
  /** Ends the response. */
  end(chunk?: string): unknown;
  /** Destroys the connection. */
  destroy(): unknown;
  /** Bytes written but not yet taken by the socket (the hub's back-pressure measure). */
  readonly writableLength: number;
  /** `"close"` / `"error"`: the connection went away. */
  on(event: "close" | "error", listener: () => void): unknown;
}

interface Client {
  res: SseResponse;
  /** The last sequence this client has been sent. */
  cursor: number;
}

const STREAM_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" };

const whole = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER;

/** An HTTP header name (RFC 9110 token), as `node:http` checks it. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A character `node:http` refuses in a header value: controls but tab (CR, LF, NUL, …), DEL, above U+00FF. */
const BAD_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Throws `INVALID_OPTION` naming the header unless `name: value` is one `node:http` would send
 * (checked when the hub is made, not at each `handle`).
 */
function checkHeader(name: string, value: unknown): void {
  if (!HEADER_NAME.test(name)) throw stategateError("INVALID_OPTION", `headers: ${JSON.stringify(name)} is not an HTTP header name (a token: letters, digits and !#$%&'*+-.^_\`|~)`);
  if (typeof value !== "string") throw stategateError("INVALID_OPTION", `headers: the value of ${JSON.stringify(name)} must be a string`);
  const bad = BAD_HEADER_CHAR.exec(value);
  if (bad) throw stategateError("INVALID_OPTION", `headers: the value of ${JSON.stringify(name)} holds U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}, which HTTP forbids in a header (no CR, LF or other control character)`);
}

/** `since` from `Last-Event-ID` (which wins: `EventSource` resends it on reconnect) or the `since` query parameter. */
function requestedSince(req: SseRequest): number | null {
  const header = req.headers?.["last-event-id"];
  const id = Array.isArray(header) ? header[0] : header;
  if (typeof id === "string" && /^\d{1,15}$/.test(id.trim())) return Number(id.trim());
  const query = /[?&]since=(\d{1,15})(?:&|#|$)/.exec(typeof req.url === "string" ? req.url : "");
  return query ? Number(query[1]) : null;
}

/** The SSE message that ends a run's stream (`hub.close()`): `followEventSource` then ends. */
const END = `event: end\ndata: {"reason":"closed"}\n\n`;

/** One SSE message of a snapshot: `id` its last sequence. */
function snapshotMessage(snapshot: Record<string, unknown>): string {
  return `event: snapshot\nid: ${Number(snapshot.last_sequence)}\ndata: ${JSON.stringify(snapshot)}\n\n`;
}

/** One SSE message of events: one `data:` line each (the reader gets their JSON Lines), `id` the last sequence. */
function eventsMessage(events: readonly StoreEvent[]): string {
  let text = `event: events\nid: ${events[events.length - 1].sequence}\n`;
  for (const e of events) text += `data: ${JSON.stringify(e)}\n`;
  return text + "\n";
}

/**
 * Serves a server store's run as Server-Sent Events (unguarded: `stategate/sse` exports it guarded). On
 * connecting, a follower gets the snapshot — or, when its `Last-Event-ID` (or `?since=`) names a
 * sequence whose following events the store still holds in memory, only those events — then every
 * new event as the store applies it, each message's `id:` its last sequence.
 *
 * The hub learns of new events from {@link SseHub.notify}: call it from the store's `onEvents`
 * (it only schedules a flush: the store is busy inside `onEvents`, so the hub reads
 * `transportEvents` in a microtask after the change is kept) or after your own writes.
 */
export class SseHub {
  #store: StateStore;
  #clients = new Set<Client>();
  #scheduled = false;
  #closed = false;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #dropped = 0;
  readonly #retryMs: number;
  readonly #maxBuffered: number;
  readonly #headers: Record<string, string>;
  readonly #onConnect?: (info: SseConnect) => void;

  /**
   * A hub for `store` (a `StateStore`: the run's own store on the server). Throws `INVALID_OPTION`
   * for something else or a bad option (a header that `node:http` would refuse, named).
   */
  constructor(store: StateStore, opts: SseHubOptions = {}) {
    if (store === null || typeof store !== "object" || typeof (store as { exportForTransport?: unknown }).exportForTransport !== "function" || typeof (store as { transportEvents?: unknown }).transportEvents !== "function") {
      throw stategateError("INVALID_OPTION", "SseHub takes the server's StateStore");
    }
    if (opts === null || typeof opts !== "object") throw stategateError("INVALID_OPTION", "SseHub options must be an object");
    const { heartbeatMs = 15_000, retryMs = 1_000, maxBufferedBytes = 1 << 20, headers = {}, onConnect } = opts;
    if (!whole(heartbeatMs) || heartbeatMs > 2 ** 31 - 1) throw stategateError("INVALID_OPTION", "heartbeatMs must be a whole number of ms (0: none)");
    if (!whole(retryMs)) throw stategateError("INVALID_OPTION", "retryMs must be a whole number of ms");
    if (!whole(maxBufferedBytes) || maxBufferedBytes < 1) throw stategateError("INVALID_OPTION", "maxBufferedBytes must be a whole number ≥ 1");
    if (headers === null || typeof headers !== "object") throw stategateError("INVALID_OPTION", "headers must be an object of strings");
    for (const [name, value] of Object.entries(headers)) checkHeader(name, value);
    if (onConnect !== undefined && typeof onConnect !== "function") throw stategateError("INVALID_OPTION", "onConnect must be a function");
    this.#store = store;
    this.#retryMs = retryMs;
    this.#maxBuffered = maxBufferedBytes;
    this.#headers = { ...headers };
    this.#onConnect = onConnect;
    if (heartbeatMs > 0) {
      this.#heartbeat = setInterval(() => {
        for (const c of this.#clients) this.#write(c, ": ping\n\n", false);
      }, heartbeatMs);
      (this.#heartbeat as { unref?: () => void }).unref?.();
    }
  }

  /** Followers connected now. */
  get clients(): number {
    return this.#clients.size;
  }

  /** Followers dropped so far for falling behind (`maxBufferedBytes`). */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Serves one follower's request (a `GET`; hand it every request for the stream's path). Answers
   * 405 to another method and 503 when the store cannot be read (freed); once the hub is closed,
   * a stream holding only the `end` message. Throws (`INVALID_OPTION`) only for a `res` that is
   * not a usable response.
   */
  handle(req: SseRequest, res: SseResponse): void {
    if (res === null || typeof res !== "object" || typeof res.writeHead !== "function") throw stategateError("INVALID_OPTION", "SseHub.handle takes node:http's request and response");
    const method = req?.method ?? "GET";
    if (method !== "GET") {
      res.writeHead(405, { allow: "GET", "content-type": "text/plain; charset=utf-8" });
      res.end("the event stream takes GET\n");
      return;
    }
    if (this.#closed) {
      res.writeHead(200, { ...STREAM_HEADERS, ...this.#headers });
      res.end(END);
      return;
    }
    const since = requestedSince(req);
    let first: string;
    let info: SseConnect;
    try {
      const version = this.#store.version;
      const events = since !== null && since <= version ? this.#eventsAfter(since, version) : null;
      if (events) {
        first = events.length ? eventsMessage(events) : "";
        info = { since, resumed: true, events: events.length, version };
      } else {
        const snapshot = this.#store.exportForTransport() as Record<string, unknown>;
        first = snapshotMessage(snapshot);
        info = { since, resumed: false, events: 0, version: Number(snapshot.last_sequence) };
      }
    } catch (e) {
      res.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "1" });
      res.end(`the run cannot be read: ${isStategateError(e) ? e.code : "error"}\n`);
      return;
    }
    const client: Client = { res, cursor: info.version };
    try {
      res.writeHead(200, { ...STREAM_HEADERS, ...this.#headers });
      res.write(`retry: ${this.#retryMs}\n\n${first}`);
      const gone = () => this.#clients.delete(client);
      res.on("close", gone);
      res.on("error", gone);
      this.#clients.add(client);
    } catch (e) {
      this.#clients.delete(client);
      this.#kill(client);
      throw e;
    }
    try {
      this.#onConnect?.(info);
    } catch {
      // documented: ignored
    }
    // Events applied while this one was being served (none in one synchronous call; cheap).
    this.notify();
  }

  /**
   * Tells the hub the store changed: schedules one flush (a microtask) that sends every
   * follower the events after its last sequence. Safe to call from `onEvents` (it touches
   * nothing of the store there) and any number of times.
   */
  notify(): void {
    if (this.#scheduled || this.#closed) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      try {
        this.#flush();
      } catch {
        // A store that cannot be read (freed): every stream ends; followers reconnect and get a 503.
        for (const c of [...this.#clients]) this.#end(c);
      }
    });
  }

  /**
   * Kills every follower's connection now (its socket destroyed, whatever was unsent lost) and
   * returns how many there were: each reconnects after `retryMs` from the last sequence it
   * received, and gets the events it missed. For a server going down for a moment, or a test.
   */
  drop(): number {
    const n = this.#clients.size;
    for (const c of [...this.#clients]) this.#kill(c);
    return n;
  }

  /**
   * The run's stream is over: sends every follower an `end` message (`event: end`; a
   * `followEventSource` follower then ends, its `done` resolved) and ends each stream; later
   * requests get only that message. Stops the heartbeat. Idempotent.
   */
  close(): void {
    this.#closed = true;
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
    for (const c of [...this.#clients]) {
      this.#write(c, END, false);
      this.#end(c);
    }
  }

  /** The events after `since` if the store still holds all of them (`[]` when none), else null. */
  #eventsAfter(since: number, version: number): StoreEvent[] | null {
    if (since === version) return [];
    let events: StoreEvent[];
    try {
      events = this.#store.transportEvents({ since });
    } catch (e) {
      if (isStategateError(e) && (e.code === "LOG_GAP" || e.code === "INVALID_OPTION")) return null;
      throw e;
    }
    if (events.length === 0 || events[0].sequence !== since + 1 || events[events.length - 1].sequence !== version) return null;
    return events;
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.#closed || this.#clients.size === 0) return;
    let version: number;
    try {
      version = this.#store.version;
    } catch {
      // The store was freed: nothing more to send; followers reconnect and get a 503.
      for (const c of [...this.#clients]) this.#end(c);
      return;
    }
    const byCursor = new Map<number, Client[]>();
    for (const c of this.#clients) {
      if (c.cursor >= version) continue;
      const group = byCursor.get(c.cursor) ?? [];
      group.push(c);
      byCursor.set(c.cursor, group);
    }
    for (const [cursor, group] of byCursor) {
      let text: string;
      try {
        const events = this.#eventsAfter(cursor, version);
        text = events ? eventsMessage(events) : snapshotMessage(this.#store.exportForTransport() as Record<string, unknown>);
      } catch {
        for (const c of group) this.#end(c);
        continue;
      }
      for (const c of group) if (this.#write(c, text, true)) c.cursor = version;
    }
  }

  /** Writes to a client; with `bounded`, drops it first when its unsent data is over the limit. */
  #write(c: Client, text: string, bounded: boolean): boolean {
    try {
      if (bounded && c.res.writableLength > this.#maxBuffered) {
        this.#dropped++;
        this.#kill(c);
        return false;
      }
      c.res.write(text);
      return true;
    } catch {
      this.#kill(c);
      return false;
    }
  }

  /** Ends a client's stream cleanly (what it was sent still arrives). */
  #end(c: Client): void {
    this.#clients.delete(c);
    try {
      c.res.end();
    } catch {
      this.#kill(c);
    }
  }

  /** Destroys a client's connection. */
  #kill(c: Client): void {
    this.#clients.delete(c);
    try {
      c.res.destroy();
    } catch {
      // nothing more can be done with this response
    }
  }
}
