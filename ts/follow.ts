/**
 * Live followers (issue 18, docs/follow.md): a read-only store in one place — a browser page, a
 * worker, another process — that follows a run living in another (a server), from the messages
 * the server may send: its `exportForTransport()` snapshot, then its `transportEvents()` as they
 * are applied. Private channels never leave the server: the snapshot leaves them out and every
 * event that wrote one carries, in `redacted`, the channels it lost with their writes'
 * commitments.
 *
 * The follower checks what it applies (`StateStore.follow`, `store.ingest`): the run, every
 * sequence and `prev_hash` link, and each event's hash when it can be recomputed (an unkeyed
 * chain, or the key given; a redacted write through its commitment); a keyed chain followed
 * without its key is checked by its links only.
 *
 * Two ways in, both browser-safe (nothing here imports a `node:` module):
 *
 * - {@link followRun} over the caller's own transport: a function `source(since, signal)` that
 *   returns an async iterable of {@link FollowMessage}s, asked again from the follower's version
 *   whenever the follower falls behind (`LOG_GAP`) or the transport fails, and for a fresh
 *   snapshot (`since` `null`) when an event writes a channel the server registered after the
 *   follower's snapshot (`UNKNOWN_CHANNEL`);
 * - {@link followEventSource} over Server-Sent Events (`EventSource`), the reader of the hub in
 *   `stategate/sse` (Node).
 * @example
 * import { followEventSource } from "stategate";
 * const follower = followEventSource("/runs/r1/events", {
 *   onChange: () => render(follower.store.modelView({ budget: 4000 }).messages),
 * });
 */
import { StateStore, type StoreEvent } from "./api.js";
import type { FollowOptions as StoreFollowOptions } from "./stategate_wasm.js";
import { describe, guarded, isStategateError, stategateError, type StategateError } from "./errors.js";

/**
 * A run's snapshot as a server's `store.exportForTransport()` gives it: `{format:
 * "stategate-export", format_version, run_id, last_sequence, last_hash, channels, values,
 * digest}`, without private channels; or that object's JSON text.
 */
export type TransportSnapshot = Record<string, unknown> | string;

/**
 * One message of a followed run, in order:
 *
 * - `{snapshot}`: the run as it is now (`exportForTransport()`, the object or its JSON text). It
 *   replaces the follower's store (the first message, and a reset at any time after: of the
 *   same run, and not behind the follower unless `allowRewind` — else `TAMPERED_LOG`);
 * - `{events}`: logged events continuing the run (`transportEvents({since})`: an array of events,
 *   or their JSON Lines). Events the follower already has (same hash) are skipped.
 */
export type FollowMessage = { snapshot: TransportSnapshot } | { events: readonly StoreEvent[] | string };

/**
 * What a follower passes its source so it can stop waiting: an `AbortSignal` (aborted when the
 * follower closes, or gives up on this iteration to ask again). Typed without the DOM library.
 */
export interface FollowSignal {
  /** True once the follower no longer reads this iteration. */
  readonly aborted: boolean;
  /** `listener` runs once, when the signal aborts. */
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  /** Removes a listener added with `addEventListener`. */
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * The caller's transport: `source(since, signal)` returns the run's messages as an async (or
 * plain) iterable. `since` is `null` when the follower has no store yet, or when its schema is
 * behind (an event wrote a channel the server registered after the follower's snapshot:
 * `registerChannel` writes no event): start with a `{snapshot}`. Otherwise it is the follower's
 * version (the last sequence it applied): send the events after it — or a `{snapshot}` when they
 * are no longer at hand. The follower asks again, with its version, after a `LOG_GAP` and after
 * the iterable throws (a dropped connection), and with `null` after an `UNKNOWN_CHANNEL`; the
 * iterable ending means the run's stream is over. Stop producing once `signal` aborts.
 */
export type FollowSource = (since: number | null, signal: FollowSignal) => AsyncIterable<FollowMessage> | Iterable<FollowMessage>;

/** One change of a follower (what `onChange` and `changes()` give). */
export interface FollowChange {
  /** `"snapshot"`: the store was replaced (the first snapshot, or a reset); `"events"`: events were applied. */
  kind: "snapshot" | "events";
  /** The follower store's version (its last sequence) after the change. */
  version: number;
  /** New events applied by the change (0 for a snapshot alone; re-sent events are not counted). */
  applied: number;
  /**
   * How many of those had their hash recomputed and matched; the others (of a keyed chain
   * followed without its key, or a private write without a commitment) were checked by their
   * links only.
   */
  hashChecked: number;
}

/** Where a follower is: see {@link Follower.state}. */
export type FollowState = "connecting" | "live" | "retrying" | "ended" | "failed" | "closed";

/** Options of {@link followRun} and {@link followEventSource}. */
export interface FollowRunOptions {
  /**
   * Called after each change, synchronously (read `follower.store` there). A throw stops the
   * follower: `done` rejects with it (`INVALID_OPTION` naming it, unless it is a StategateError).
   */
  onChange?: (change: FollowChange, follower: Follower) => void;
  /**
   * Called with each failure before the source is asked again (`NETWORK_ERROR`, `LOG_GAP`, or
   * `UNKNOWN_CHANNEL` naming the channel in `details.channel` when a fresh snapshot is asked
   * for); for a "reconnecting" notice. `attempt` counts the retries in a row (from 1). Must not
   * throw.
   */
  onRetry?: (error: StategateError, attempt: number) => void;
  /**
   * How many times in a row the source is asked again without a message being applied in
   * between, after it throws, leaves a gap or sends an event writing a channel the store lacks;
   * past that the follower fails with the last error (`NETWORK_ERROR`, `LOG_GAP` or
   * `UNKNOWN_CHANNEL`; so `0` also fails on a channel registered mid-run). Default `Infinity`
   * (keep trying, as `EventSource` does).
   */
  retries?: number;
  /** The first wait before asking again after a failure, in ms (default 500); doubled each time in a row, up to 30,000. A first `LOG_GAP` or `UNKNOWN_CHANNEL` in a row is asked again at once. */
  retryDelayMs?: number;
  /** Options of `StateStore.follow` for each snapshot: `{clock?, chainKey?}` (a keyed chain's key, so its hashes are checked too). */
  storeOptions?: StoreFollowOptions;
  /**
   * Accept a later `{snapshot}` that goes back in time: one whose `last_sequence` is below the
   * follower's version, or equal to it with another `last_hash` (a server restored from an older
   * backup). Default `false`: such a snapshot stops the follower with `TAMPERED_LOG`
   * (`details.field` `"last_sequence"` / `"last_hash"`), the store kept as it was. A snapshot of
   * another run is refused either way (`details.field` `"run_id"`).
   */
  allowRewind?: boolean;
}

/** A running follower (returned by {@link followRun} and {@link followEventSource}). */
export interface Follower {
  /**
   * The follower store, read-only (every write throws `READ_ONLY`), or `null` before the first
   * snapshot. A snapshot replaces it: read `follower.store` each time rather than keeping it.
   */
  readonly store: StateStore | null;
  /** The last sequence applied (`store.version`), `null` before the first snapshot. */
  readonly version: number | null;
  /** `"connecting"` (no store yet), `"live"`, `"retrying"` (asking the source again), `"ended"` (the source ended), `"failed"` (see `done`), `"closed"`. */
  readonly state: FollowState;
  /** Resolves with the store once the first snapshot is applied; rejects if the follower fails or closes first. */
  readonly ready: Promise<StateStore>;
  /**
   * Resolves when the source ends or `close()` is called; rejects with the error that stopped
   * the follower: `TAMPERED_LOG` (naming the event; or a snapshot of another run, or behind the
   * follower, `details.field` saying which), `LOG_GAP` / `NETWORK_ERROR` / `UNKNOWN_CHANNEL`
   * past `retries`, `UNKNOWN_CHANNEL` when the events after a fresh snapshot asked for it still
   * write a channel that snapshot lacks (the source's snapshot and events disagree),
   * `INVALID_OPTION` / `INVALID_JSON` for a message that is not a {@link FollowMessage}. The store
   * stays readable as it was before the refused message. (Never an unhandled rejection.)
   */
  readonly done: Promise<void>;
  /**
   * The changes from now on, as an async iterator. A consumer slower than the changes gets them
   * merged (one change: the latest version, the counts added up since the last snapshot, and
   * `"snapshot"` if there was one), so it holds at most one. Ends when the follower ends or
   * closes; throws its error.
   */
  changes(): AsyncIterableIterator<FollowChange>;
  /** Stops following (aborts the source's signal). The store stays readable. Idempotent. */
  close(): void;
}

const MAX_DELAY_MS = 30_000;

type AbortControllerLike = { readonly signal: FollowSignal; abort(): void };
type Timers = { setTimeout(f: () => void, ms: number): unknown; clearTimeout(t: unknown): void };

function abortController(): AbortControllerLike {
  const AC = (globalThis as { AbortController?: new () => AbortControllerLike }).AbortController;
  if (typeof AC === "function") return new AC();
  // Runtimes without AbortController (none current): a minimal signal.
  const listeners = new Set<() => void>();
  const signal = {
    aborted: false,
    addEventListener: (_: "abort", f: () => void) => void listeners.add(f),
    removeEventListener: (_: "abort", f: () => void) => void listeners.delete(f),
  };
  return {
    signal,
    abort() {
      if (signal.aborted) return;
      signal.aborted = true;
      for (const f of listeners) f();
    },
  };
}

const nonNegativeWhole = (v: unknown) => typeof v === "number" && (v === Infinity || (Number.isInteger(v) && v >= 0));

/** The options {@link followRun} takes (the keys of {@link FollowRunOptions}). */
const FOLLOW_RUN_KEYS = ["onChange", "onRetry", "retries", "retryDelayMs", "storeOptions", "allowRewind"] as const;
/** The options {@link followEventSource} takes: followRun's and the transport's. */
const EVENT_SOURCE_KEYS = [...FOLLOW_RUN_KEYS, "EventSource", "maxQueued"] as const;

/**
 * Throws `INVALID_OPTION` naming the first own key of `opts` that is not in `known`
 * (`details.field`), as every other API does: a misspelt option (`retry`) is not ignored.
 */
function refuseUnknown(what: string, opts: object, known: readonly string[]): void {
  for (const key of Object.keys(opts)) {
    if (!known.includes(key)) throw stategateError("INVALID_OPTION", `${what}: unknown option ${JSON.stringify(key)} (known: ${known.join(", ")})`, { field: key });
  }
}

function readOptions(opts: FollowRunOptions | undefined): Required<Pick<FollowRunOptions, "retries" | "retryDelayMs" | "allowRewind">> & FollowRunOptions {
  if (opts === undefined) return { retries: Infinity, retryDelayMs: 500, allowRewind: false };
  if (opts === null || typeof opts !== "object") throw stategateError("INVALID_OPTION", "follow options must be an object");
  const { onChange, onRetry, retries = Infinity, retryDelayMs = 500, storeOptions, allowRewind = false } = opts;
  if (typeof allowRewind !== "boolean") throw stategateError("INVALID_OPTION", "allowRewind must be a boolean");
  if (onChange !== undefined && typeof onChange !== "function") throw stategateError("INVALID_OPTION", "onChange must be a function");
  if (onRetry !== undefined && typeof onRetry !== "function") throw stategateError("INVALID_OPTION", "onRetry must be a function");
  if (!nonNegativeWhole(retries)) throw stategateError("INVALID_OPTION", "retries must be a whole number ≥ 0 or Infinity");
  if (!nonNegativeWhole(retryDelayMs) || retryDelayMs === Infinity) throw stategateError("INVALID_OPTION", "retryDelayMs must be a whole number of ms ≥ 0");
  if (storeOptions !== undefined && (storeOptions === null || typeof storeOptions !== "object")) throw stategateError("INVALID_OPTION", "storeOptions must be an object");
  return { onChange, onRetry, retries, retryDelayMs, storeOptions, allowRewind };
}

/**
 * Why a later snapshot (`next`) may not replace the follower's store (`current`), or `undefined`
 * when it may: another run is always refused; one behind the follower (a lower version, or the
 * same version with another hash) unless `allowRewind`. Each a `TAMPERED_LOG` naming the field.
 */
function resetRefusal(current: StateStore, next: StateStore, allowRewind: boolean): StategateError | undefined {
  if (next.runId !== current.runId) {
    return stategateError("TAMPERED_LOG", `the source sent a snapshot of run ${JSON.stringify(next.runId)} while following run ${JSON.stringify(current.runId)}: a source serves one run (give each run its own URL)`, { field: "run_id" });
  }
  if (allowRewind) return undefined;
  if (next.version < current.version) {
    return stategateError("TAMPERED_LOG", `the source sent a snapshot at sequence ${next.version}, behind the follower's ${current.version}: it went back in time (a server restored from an older state?); pass allowRewind: true to accept that`, { field: "last_sequence" });
  }
  if (next.version === current.version && next.lastHash !== current.lastHash) {
    return stategateError("TAMPERED_LOG", `the source sent a snapshot at the follower's sequence ${next.version} with another last_hash (${next.lastHash.slice(0, 12)}…, not ${current.lastHash.slice(0, 12)}…): another history of the run; pass allowRewind: true to accept that`, { field: "last_hash" });
  }
  return undefined;
}

/** A message refused by the follower itself (never retried). */
class Refused {
  constructor(readonly error: StategateError) {}
}

/**
 * Follows a run from the caller's transport (see {@link FollowSource}): asks `source(null)` for
 * the snapshot and the events after it, applies each message as it arrives (a `{snapshot}`
 * replaces the store, `{events}` are ingested all or nothing), and asks `source(version)` again
 * after a `LOG_GAP` (at once) or a transport failure (after `retryDelayMs`). Events writing a
 * channel the store does not have (`UNKNOWN_CHANNEL`: the server registered it after the
 * follower's snapshot) make it ask `source(null)` for a fresh snapshot (at once), and go on from
 * it: the same run, not older, so it passes the reset checks. A `TAMPERED_LOG`, or a
 * message that is not a {@link FollowMessage}, stops it with that error — never a silent skip;
 * so does a later snapshot of another run, or one behind the follower's version (unless
 * `opts.allowRewind`).
 * Throws `INVALID_OPTION` for a `source` that is not a function, bad options, or an option that
 * is not one of {@link FollowRunOptions} (`details.field` naming it); everything later is
 * reported through `done` and `changes()`.
 * @example
 * const follower = followRun(async function* (since) {
 *   if (since === null) yield { snapshot: server.exportForTransport() };
 *   yield { events: server.transportEvents({ since: since ?? 0 }) };
 * });
 * await follower.done; // the iterable ended
 * follower.store.modelView({ budget: 4000 }); // the server's model view
 */
export const followRun: (source: FollowSource, opts?: FollowRunOptions) => Follower = guarded("followRun", (source: FollowSource, opts?: FollowRunOptions): Follower => {
  if (typeof source !== "function") throw stategateError("INVALID_OPTION", "followRun takes a source function: (since, signal) => an async iterable of {snapshot} | {events}");
  if (opts !== null && typeof opts === "object") refuseUnknown("followRun", opts, FOLLOW_RUN_KEYS);
  return startFollower(source, opts);
});

/** {@link followRun} once its options' keys are checked (by it, or by {@link followEventSource}). */
function startFollower(source: FollowSource, opts: FollowRunOptions | undefined): Follower {
  const o = readOptions(opts);
  const timers = globalThis as unknown as Timers;

  let store = null as StateStore | null;
  let state: FollowState = "connecting";
  let failure: StategateError | undefined;
  let controller: AbortControllerLike | undefined;
  let timer: unknown;
  let wakeDelay: (() => void) | undefined;
  // The store's schema is behind the source's (an event wrote a channel it lacks, UNKNOWN_CHANNEL:
  // registered on the server after the snapshot): ask source(null) for a fresh snapshot.
  let needSnapshot = false;
  // The store is the snapshot asked for so, and no event was applied since: an UNKNOWN_CHANNEL
  // now is the server's snapshot and events disagreeing, not a schema behind (fail, no loop).
  let refreshed = false;
  /** The channel of the last UNKNOWN_CHANNEL (`details.channel`), for the retry's error. */
  let unknownChannel: unknown;
  const waiters = new Set<{ pending: FollowChange | null; wake?: () => void }>();

  let resolveDone!: () => void;
  let rejectDone!: (e: StategateError) => void;
  const done = new Promise<void>((res, rej) => ((resolveDone = res), (rejectDone = rej)));
  done.catch(() => {});
  let resolveReady!: (s: StateStore) => void;
  let rejectReady!: (e: StategateError) => void;
  const ready = new Promise<StateStore>((res, rej) => ((resolveReady = res), (rejectReady = rej)));
  ready.catch(() => {});

  const finished = () => state === "ended" || state === "failed" || state === "closed";
  const wakeAll = () => {
    for (const w of waiters) w.wake?.();
  };
  const finish = (how: "ended" | "closed" | "failed", error?: StategateError) => {
    if (finished()) return;
    state = how;
    failure = error;
    controller?.abort();
    if (timer !== undefined) timers.clearTimeout(timer);
    wakeDelay?.();
    if (error) {
      rejectDone(error);
      rejectReady(error);
    } else {
      resolveDone();
      rejectReady(stategateError("INVALID_OPTION", `the follower ${how} before its first snapshot`));
    }
    wakeAll();
  };

  const follower: Follower = {
    get store() {
      return store;
    },
    get version() {
      return store ? store.version : null;
    },
    get state() {
      return state;
    },
    ready,
    done,
    changes() {
      const w: { pending: FollowChange | null; wake?: () => void } = { pending: null };
      waiters.add(w);
      const iterator: AsyncIterableIterator<FollowChange> = {
        async next() {
          for (;;) {
            if (w.pending) {
              const value = w.pending;
              w.pending = null;
              return { value, done: false };
            }
            if (finished() || !waiters.has(w)) {
              waiters.delete(w);
              if (state === "failed" && failure) throw failure;
              return { value: undefined, done: true };
            }
            await new Promise<void>((res) => (w.wake = res));
            w.wake = undefined;
          }
        },
        async return() {
          waiters.delete(w);
          w.wake?.();
          return { value: undefined, done: true };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
    close() {
      finish("closed");
    },
  };

  const announce = (change: FollowChange) => {
    for (const w of waiters) {
      const p = w.pending;
      w.pending = p
        ? change.kind === "snapshot"
          ? change
          : { kind: p.kind, version: change.version, applied: p.applied + change.applied, hashChecked: p.hashChecked + change.hashChecked }
        : change;
      w.wake?.();
    }
    if (o.onChange) {
      try {
        o.onChange(change, follower);
      } catch (e) {
        throw new Refused(isStategateError(e) ? e : stategateError("INVALID_OPTION", `onChange threw: ${describe(e)}`));
      }
    }
  };

  /**
   * Applies one message; `"gap"` when its events do not continue the store, `"schema"` when they
   * write a channel the store does not have (`needSnapshot` is then set).
   */
  const take = (message: unknown): "applied" | "gap" | "schema" | "nothing" => {
    let kind: "snapshot" | "events";
    let body: unknown;
    try {
      if (message === null || typeof message !== "object") throw new TypeError("not an object");
      const has = (k: string) => Object.prototype.hasOwnProperty.call(message, k);
      if (has("snapshot") === has("events")) throw new TypeError("it must have exactly one of snapshot and events");
      kind = has("snapshot") ? "snapshot" : "events";
      body = (message as Record<string, unknown>)[kind];
    } catch (e) {
      throw new Refused(stategateError("INVALID_OPTION", `the source gave a message that is not {snapshot} or {events}: ${describe(e)}`));
    }
    try {
      if (kind === "snapshot") {
        let snapshot = body;
        if (typeof snapshot === "string") {
          try {
            snapshot = JSON.parse(snapshot);
          } catch (e) {
            throw stategateError("INVALID_JSON", `the snapshot is not JSON: ${describe(e)}`);
          }
        }
        const next = StateStore.follow(snapshot as Record<string, unknown>, o.storeOptions);
        const refused = store ? resetRefusal(store, next, o.allowRewind) : undefined;
        if (refused) {
          next.free();
          throw new Refused(refused);
        }
        store = next;
        refreshed = needSnapshot;
        needSnapshot = false;
        if (state === "connecting" || state === "retrying") state = "live";
        resolveReady(next);
        announce({ kind: "snapshot", version: next.version, applied: 0, hashChecked: 0 });
        return "applied";
      }
      if (!store) throw stategateError("INVALID_OPTION", "the source sent events before the first snapshot (asked with since = null, it must start with {snapshot})");
      const result = store.ingest(body as StoreEvent[] | string);
      state = "live";
      if (result.applied === 0) return "nothing";
      refreshed = false;
      announce({ kind: "events", version: result.version, applied: result.applied, hashChecked: result.hashChecked });
      return "applied";
    } catch (e) {
      if (e instanceof Refused) throw e;
      if (isStategateError(e) && e.code === "LOG_GAP") return "gap";
      if (isStategateError(e) && e.code === "UNKNOWN_CHANNEL") {
        if (refreshed) {
          const why = e.message.replace(/^UNKNOWN_CHANNEL: /, "");
          throw new Refused(stategateError("UNKNOWN_CHANNEL", `${why} (even in the fresh snapshot the source sent for it: the source's snapshot and events disagree)`, e.details));
        }
        needSnapshot = true;
        unknownChannel = e.details?.channel;
        return "schema";
      }
      throw new Refused(isStategateError(e) ? e : stategateError("INVALID_OPTION", `applying a message: ${describe(e)}`));
    }
  };

  const wait = (ms: number) =>
    new Promise<void>((res) => {
      wakeDelay = res;
      timer = timers.setTimeout(res, ms);
    }).finally(() => {
      timer = undefined;
      wakeDelay = undefined;
    });

  (async () => {
    let attempt = 0;
    while (!finished()) {
      const c = (controller = abortController());
      let problem: StategateError | undefined;
      try {
        const iterable = source(store && !needSnapshot ? store.version : null, c.signal);
        if (iterable === null || typeof iterable !== "object" || (typeof (iterable as AsyncIterable<unknown>)[Symbol.asyncIterator] !== "function" && typeof (iterable as Iterable<unknown>)[Symbol.iterator] !== "function")) {
          throw new Refused(stategateError("INVALID_OPTION", "the source must return an async iterable (or an iterable) of {snapshot} | {events}"));
        }
        for await (const message of iterable as AsyncIterable<FollowMessage>) {
          if (finished()) break;
          const outcome = take(message);
          if (outcome === "applied") attempt = 0;
          if (outcome === "gap") {
            problem = stategateError("LOG_GAP", `the source's events do not continue the follower's version ${store?.version}: asking again from it`);
            break;
          }
          if (outcome === "schema") {
            const channel = typeof unknownChannel === "string" ? unknownChannel : undefined;
            problem = stategateError("UNKNOWN_CHANNEL", `the source's events write a channel the follower's store does not have${channel === undefined ? "" : ` (${JSON.stringify(channel)})`}, registered on the server after its snapshot: asking for a fresh snapshot (since = null)`, channel === undefined ? {} : { channel });
            break;
          }
        }
        if (!problem) {
          finish("ended");
          return;
        }
      } catch (e) {
        if (e instanceof Refused) {
          finish("failed", e.error);
          return;
        }
        if (finished()) return;
        problem = stategateError("NETWORK_ERROR", `the source failed: ${describe(e)}`);
      } finally {
        c.abort();
      }
      if (finished()) return;
      attempt++;
      if (attempt > o.retries) {
        finish("failed", problem);
        return;
      }
      state = "retrying";
      try {
        o.onRetry?.(problem, attempt);
      } catch {
        // documented: must not throw; a throw here does not stop the follower
      }
      // A first gap or schema refresh is asked again at once; anything else waits, longer each time in a row.
      if ((problem.code !== "LOG_GAP" && problem.code !== "UNKNOWN_CHANNEL") || attempt > 1) await wait(Math.min(MAX_DELAY_MS, o.retryDelayMs * 2 ** (attempt - 1)));
    }
  })().catch((e: unknown) => finish("failed", isStategateError(e) ? e : stategateError("INVALID_OPTION", `the follower stopped: ${describe(e)}`)));

  return follower;
}

/**
 * The part of the browser's `EventSource` {@link followEventSource} uses (typed without the DOM
 * library): `readyState` 0 connecting, 1 open, 2 closed.
 */
export interface EventSourceLike {
  /** 0 connecting (also while reconnecting), 1 open, 2 closed for good. */
  readonly readyState: number;
  /** Adds a listener for the named events (`"snapshot"`, `"events"`, `"end"`, `"error"`). */
  addEventListener(type: string, listener: (event: { data?: unknown; lastEventId?: string }) => void): void;
  /** Closes the connection; no reconnect follows. */
  close(): void;
}

/** Options of {@link followEventSource}: {@link FollowRunOptions} plus the transport's. */
export interface EventSourceFollowOptions extends FollowRunOptions {
  /** The `EventSource` class (default `globalThis.EventSource`; pass one where there is none, e.g. a polyfill in Node 20). */
  EventSource?: new (url: string) => EventSourceLike;
  /** Messages received and not yet applied past which the connection is dropped and the follower asks again from its version (default 10,000). */
  maxQueued?: number;
}

/** `url` with `since=<n>` in its query (kept for a relative URL). */
function withSince(url: string, since: number | null): string {
  if (since === null) return url;
  const hash = url.indexOf("#");
  const [head, tail] = hash < 0 ? [url, ""] : [url.slice(0, hash), url.slice(hash)];
  const kept = head.replace(/([?&])since=[^&]*(&|$)/, (_, a: string, b: string) => (b ? a : "")).replace(/[?&]$/, "");
  return `${kept}${kept.includes("?") ? "&" : "?"}since=${since}${tail}`;
}

/**
 * Follows a run served by the Server-Sent Events hub of `stategate/sse` (see docs/follow.md):
 * opens `new EventSource(url)`, takes its `snapshot` and `events` messages into a follower as
 * {@link followRun} does, and reconnects from the last sequence: `EventSource` itself resends
 * the last `id:` it got as `Last-Event-ID` (the hub then sends only the events after it); after a
 * `LOG_GAP`, or once the `EventSource` gives up (a refused request), the follower opens a new one
 * at `url?since=<version>`; after an `UNKNOWN_CHANNEL` (a channel registered on the server
 * mid-run), at `url` without `since`, so the hub sends a fresh snapshot. The hub's `end` message (`hub.close()`) ends the follower. Browser-safe; needs `EventSource` (browsers and workers have it; pass
 * `opts.EventSource` elsewhere). Throws `INVALID_OPTION` for a `url` that is not a string or URL,
 * an option that is not one of {@link EventSourceFollowOptions} (`details.field` naming it), or
 * when there is no `EventSource`.
 * @example
 * const follower = followEventSource("/runs/r1/events", { onChange: () => render(follower.store) });
 */
export const followEventSource: (url: string | { readonly href: string }, opts?: EventSourceFollowOptions) => Follower = guarded("followEventSource", (url: string | { readonly href: string }, opts?: EventSourceFollowOptions): Follower => {
  const href = typeof url === "string" ? url : url !== null && typeof url === "object" && typeof (url as { href?: unknown }).href === "string" ? (url as { href: string }).href : undefined;
  if (href === undefined) throw stategateError("INVALID_OPTION", "followEventSource takes the URL of the run's event stream (a string or a URL)");
  if (opts !== undefined && (opts === null || typeof opts !== "object")) throw stategateError("INVALID_OPTION", "follow options must be an object");
  if (opts !== undefined) refuseUnknown("followEventSource", opts, EVENT_SOURCE_KEYS);
  const ES = opts?.EventSource ?? (globalThis as { EventSource?: new (url: string) => EventSourceLike }).EventSource;
  if (typeof ES !== "function") throw stategateError("INVALID_OPTION", "no EventSource in this runtime: pass opts.EventSource (a polyfill), or use followRun with your own transport");
  const maxQueued = opts?.maxQueued ?? 10_000;
  if (!Number.isInteger(maxQueued) || maxQueued < 1) throw stategateError("INVALID_OPTION", "maxQueued must be a whole number ≥ 1");
  const { EventSource: _es, maxQueued: _mq, ...runOptions } = opts ?? {};
  // since = null (no store yet, or its schema is behind): no ?since=, so the hub sends a snapshot.
  return startFollower((since, signal) => eventSourceMessages(ES, withSince(href, since), signal, maxQueued), opts === undefined ? undefined : runOptions);
});

/** The messages of one `EventSource`, across its own reconnects, until it closes for good or `signal` aborts. */
async function* eventSourceMessages(ES: new (url: string) => EventSourceLike, url: string, signal: FollowSignal, maxQueued: number): AsyncGenerator<FollowMessage> {
  const queue: FollowMessage[] = [];
  let problem: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  let es: EventSourceLike;
  try {
    es = new ES(url);
  } catch (e) {
    throw new Error(`new EventSource(${JSON.stringify(url)}) threw: ${describe(e)}`);
  }
  const push = (message: FollowMessage) => {
    if (problem) return;
    if (queue.length >= maxQueued) {
      problem = new Error(`the follower fell behind (${maxQueued} messages not yet applied): reconnecting from its version`);
      es.close();
    } else queue.push(message);
    poke();
  };
  es.addEventListener("snapshot", (e) => push({ snapshot: String(e.data) }));
  es.addEventListener("events", (e) => push({ events: String(e.data) }));
  // The hub closed the run's stream (SseHub.close): the follower ends once what came before is applied.
  es.addEventListener("end", () => {
    ended = true;
    es.close();
    poke();
  });
  es.addEventListener("error", () => {
    // CONNECTING: EventSource reconnects by itself (sending Last-Event-ID). CLOSED: it gave up.
    if (es.readyState === 2 && !problem) {
      problem = new Error(`the event stream ${url} closed (the server refused the request or went away)`);
      poke();
    }
  });
  signal.addEventListener("abort", poke, { once: true });
  try {
    while (!signal.aborted) {
      if (queue.length) {
        yield queue.shift() as FollowMessage;
        continue;
      }
      if (problem) throw problem;
      if (ended) return;
      await new Promise<void>((res) => (wake = res));
      wake = undefined;
    }
  } finally {
    signal.removeEventListener("abort", poke);
    es.close();
  }
}
