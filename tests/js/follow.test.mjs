// Live followers (issue 18, docs/follow.md), against the built package (pkg/):
//
//   (a) Node: a server store with a private channel and a follower through the async-iterator
//       path (followRun): after a run of messages, tool calls, an approval, todos, facts, a batch
//       and private writes, the follower's modelView / systemView / notifications / version /
//       lastHash equal the server's, and the private marker is in nothing it received; a lost
//       message is a LOG_GAP, asked again from the follower's version; a dropped transport is
//       asked again (re-sent events skipped); a tampered event stops it with TAMPERED_LOG; a keyed
//       chain is checked by links only without its key, by hash with it; a new snapshot resets it; a
//       channel the server registers mid-run makes the follower ask for a fresh snapshot (and a
//       snapshot that still lacks it stops it); unknown options are refused. The SSE hub (stategate/sse) over raw node:http: Last-Event-ID and
//       ?since= resume with only the missing events, a snapshot otherwise, `end` once closed, and a
//       slow client dropped rather than buffered without bound; followEventSource over the hub
//       reconnecting without since (a snapshot) for a channel registered mid-run.
//   (b) End to end in headless Chromium (playwright-core, Debian's chromium): a node:http server
//       with the hub and a server store, a page loading pkg/browser.js that follows it with
//       followEventSource while the server applies commands; the connection killed from the
//       server mid-run, the page reconnects from its last sequence and gets only the missing
//       events; then the page's model view and system view equal the server's and the marker is
//       nowhere in the page (DOM, the follower's state, every SSE message it received).
//
// Env: CHROMIUM_PATH (default /usr/bin/chromium). Run: node --test tests/js/follow.test.mjs

import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { StateStore, followRun, followEventSource } from "../../pkg/index.js";
import { SseHub } from "../../pkg/sse.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const MARKER = `PRIVATE-MARKER-${Math.random().toString(36).slice(2, 12)}`;
const BIG = 20_000; // every wait: a condition, never a fixed sleep

/** Resolves once `f()` is true (polled), or fails naming `what`. */
async function until(f, what, ms = BIG) {
  const t0 = Date.now();
  while (!(await f())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The server's run: `steps[i](store)` applies one change (or a batch). Private writes carry MARKER. */
const steps = [
  (s) => s.apply({ author: "app", update: { run: { status: "running" } } }),
  (s) => s.apply({ author: "user", update: { messages: [{ role: "user", content: "Book me a flight to Rome next Friday." }] } }),
  (s) => s.apply({ author: "planner", update: { scratch: `${MARKER}: the user is flexible on price` } }),
  (s) => s.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "search_flights", arguments: '{"to":"FCO","day":"friday"}' } }] }] } }),
  (s) => s.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "AZ 611 09:40 €180; FR 1234 06:15 €60" }] } }),
  (s) => s.apply({ author: "app", update: { todos: [{ content: "pick a flight", status: "in_progress" }, { content: "book it", status: "pending" }], facts: { destination: "Rome", day: "friday" } } }),
  (s) => s.apply({ author: "model", update: { messages: [{ role: "assistant", content: "AZ 611 fits best.", tool_calls: [{ id: "c2", type: "function", function: { name: "book_flight", arguments: '{"flight":"AZ 611"}' } }] }] } }),
  (s) => s.apply({ author: "guard", update: { approvals: { ap1: { tool_call_id: "c2", status: "pending" } }, run: { status: "waiting_approval" } } }),
  (s) => s.apply({ author: "planner", update: { scratch: `${MARKER}: waiting on the user's approval` } }),
  (s) => s.apply({ author: "user", update: { approvals: { ap1: { tool_call_id: "c2", status: "approved" } } } }),
  (s) => s.apply({ author: "app", update: { run: { status: "running" } } }),
  (s) => s.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c2", content: "Booked: AZ 611, seat 14C, ref QX7T2" }] } }),
  (s) => s.applyBatch([
    { author: "app", update: { todos: [{ content: "pick a flight", status: "completed" }, { content: "book it", status: "completed" }] } },
    { author: "app", update: { files: { "/booking.md": "AZ 611, seat 14C, ref QX7T2" }, facts: { booking: "QX7T2" } } },
  ]),
  (s) => s.apply({ author: "model", update: { messages: [{ role: "assistant", content: "Booked AZ 611 on Friday, seat 14C (ref QX7T2)." }] } }),
  (s) => s.apply({ author: "planner", update: { scratch: `${MARKER}: done` } }),
  (s) => s.apply({ author: "user", update: { messages: [{ role: "user", content: "Thanks! Add a hotel near Termini too." }] } }),
];

/** A server store with the private channel `scratch` (owner planner); `notify` runs after each change is kept. */
function serverStore(runId, notify = () => {}, init = {}) {
  let t = 1_760_000_000_000;
  const store = new StateStore({ runId, clock: () => (t += 1000), onEvents: () => notify(), ...init });
  const key = store.registerChannel({ name: "scratch", reducer: "replace", visibility: "private", owner: "planner", type: "string" });
  return { store, key };
}

/** Wakes the sources waiting for the server store's next change (after the change is kept). */
function bus() {
  let waiting = [];
  return {
    notify: () =>
      queueMicrotask(() => {
        const w = waiting;
        waiting = [];
        for (const f of w) f();
      }),
    changed: (signal) =>
      new Promise((resolve) => {
        waiting.push(resolve);
        signal.addEventListener("abort", resolve, { once: true });
      }),
  };
}

/**
 * The caller's transport over an in-memory server: the snapshot when asked with `null`, then the
 * events after the cursor as they come. `tap(message, connection)` may change or drop (`null`)
 * a message; every message yielded is recorded in `log.sent` as its JSON text, every ask in `log.asks`.
 */
function memorySource(store, b, log, { tap = (m) => m, from = (since) => since } = {}) {
  return async function* (since, signal) {
    const connection = log.asks.push(since) - 1;
    let cursor = since === null ? null : from(since);
    if (cursor === null) {
      const snapshot = store.exportForTransport();
      cursor = snapshot.last_sequence;
      const m = tap({ snapshot }, connection);
      if (m) {
        log.sent.push(JSON.stringify(m));
        yield m;
      }
    }
    while (!signal.aborted) {
      if (store.version > cursor) {
        const events = store.transportEvents({ since: cursor });
        cursor = events.at(-1).sequence;
        const m = tap({ events }, connection);
        if (m) {
          log.sent.push(JSON.stringify(m));
          yield m;
        }
      } else await b.changed(signal);
    }
  };
}

const VIEWS = [
  { budget: 4000, format: "anthropic", system: "You are a travel agent." },
  { budget: 4000 },
  { budget: 400, format: "ai-sdk" },
];

/** The follower's read API equals the server's. */
function assertSame(follower, server) {
  assert.equal(follower.version, server.version);
  assert.equal(follower.lastHash, server.lastHash);
  assert.equal(follower.runId, server.runId);
  for (const opts of VIEWS) assert.deepEqual(follower.modelView(opts), server.modelView(opts), JSON.stringify(opts));
  assert.deepEqual(follower.systemView(), server.systemView());
  assert.deepEqual(follower.messages("openai"), server.messages("openai"));
  assert.deepEqual(follower.notifications(), server.notifications());
  assert.deepEqual(follower.get("todos"), server.get("todos"));
}

/** The marker is nowhere in `texts`, though the server does hold it (so the check is not vacuous). */
function assertNoMarker(server, key, texts, what) {
  assert.match(JSON.stringify(server.private(key)), new RegExp(MARKER), "the server's private channel holds the marker");
  assert.match(server.eventsJsonl(), new RegExp(MARKER), "the server's own log carries its private writes");
  for (const [i, t] of texts.entries()) assert.ok(!t.includes(MARKER), `the private marker is in ${what} #${i}`);
  assert.deepEqual(server.privateLeaks(texts), [], `the server's leak scan finds a private value in ${what}`);
}

const caughtUp = (follower, server, what) => until(() => follower.version === server.version, `${what}: the follower at the server's version ${server.version}`);

describe("followRun over the caller's async iterator", () => {
  test("follows a whole run: the same model view, system view, version and hash; nothing private received", async () => {
    const b = bus();
    const { store: server, key } = serverStore("follow-run", b.notify);
    for (const step of steps.slice(0, 5)) step(server);
    const log = { asks: [], sent: [] };
    const seen = [];
    const follower = followRun(memorySource(server, b, log), { onChange: (c) => seen.push(c) });
    const store = await follower.ready;
    assert.equal(store.version, 5, "the snapshot brings the follower to the server's version");
    assert.deepEqual(seen[0], { kind: "snapshot", version: 5, applied: 0, hashChecked: 0 });
    const changes = follower.changes();
    for (const step of steps.slice(5)) {
      step(server);
      await new Promise((r) => setImmediate(r)); // live: each change reaches the follower before the next
    }
    await caughtUp(follower, server, "after every step");
    assert.equal(follower.state, "live");
    assert.equal(follower.store, store, "no reset: the same store");
    assertSame(follower.store, server);
    // Every change was announced, in order, each counting its new events (the batch: 2).
    const events = seen.slice(1);
    assert.deepEqual(events.map((c) => c.kind), events.map(() => "events"));
    assert.equal(events.reduce((n, c) => n + c.applied, 0), server.version - 5);
    // Every event's hash recomputed, the two private writes' too (through their commitments).
    assert.equal(events.reduce((n, c) => n + c.hashChecked, 0), server.version - 5);
    assert.deepEqual(events.map((c) => c.version), [...events.map((c) => c.version)].sort((x, y) => x - y));
    const first = await changes.next();
    assert.equal(first.done, false);
    assert.equal(first.value.kind, "events");
    // A slow consumer holds one merged change: the latest version.
    assert.equal(first.value.version, server.version);
    // Nothing private left the server: not in any message, not in the follower's state.
    const f = follower.store;
    assertNoMarker(server, key, [...log.sent, JSON.stringify(f.systemView()), JSON.stringify(f), f.eventsJsonl(), JSON.stringify(f.modelView({ budget: 100000 }))], "what the follower received or holds");
    // The redacted events say what they lost, with the write's commitment (no salt goes out);
    // their hashes are the server's.
    const redacted = log.sent.flatMap((t) => JSON.parse(t).events ?? []).filter((e) => e.redacted);
    assert.equal(redacted.length, 2, "the private writes after the snapshot arrive redacted");
    for (const e of redacted) {
      assert.deepEqual(Object.keys(e.redacted), ["scratch"]);
      assert.match(e.redacted.scratch, /^[0-9a-f]{64}$/);
      assert.equal(e.salted, undefined);
    }
    assert.deepEqual(f.events().map((e) => e.hash), server.events({ since: 5 }).map((e) => e.hash));
    // Read-only: every write is refused, the store unchanged.
    assert.throws(() => f.apply({ author: "user", update: { messages: [{ role: "user", content: "hi" }] } }), (e) => e.code === "READ_ONLY");
    assert.equal(f.version, server.version);
    follower.close();
    await follower.done;
    assert.equal(follower.state, "closed");
    assert.deepEqual(await changes.next(), { value: undefined, done: true });
    assert.deepEqual(log.asks, [null]);
  });

  test("a lost message is a LOG_GAP: the follower asks again from its version and catches up", async () => {
    const b = bus();
    const { store: server, key } = serverStore("follow-gap", b.notify);
    for (const step of steps.slice(0, 3)) step(server);
    const log = { asks: [], sent: [] };
    let lost = 0;
    // The first connection loses its second events message (the follower gets the third).
    const tap = (m, connection) => (connection === 0 && m.events && ++lost === 2 ? null : m);
    const retries = [];
    const follower = followRun(memorySource(server, b, log, { tap }), { onRetry: (e, n) => retries.push([e.code, n]) });
    await follower.ready;
    let behind;
    for (const [i, step] of steps.slice(3).entries()) {
      step(server);
      await new Promise((r) => setImmediate(r));
      if (i === 0) behind = server.version; // what the follower has when the next message is lost
    }
    await caughtUp(follower, server, "after the gap");
    assert.deepEqual(log.asks, [null, behind], "asked again from the last sequence it applied");
    assert.deepEqual(retries, [["LOG_GAP", 1]]);
    assertSame(follower.store, server);
    assertNoMarker(server, key, log.sent, "a message sent");
    follower.close();
  });

  test("a dropped transport is asked again from the follower's version; re-sent events are skipped", async () => {
    const b = bus();
    const { store: server } = serverStore("follow-drop", b.notify);
    for (const step of steps.slice(0, 2)) step(server);
    const log = { asks: [], sent: [] };
    let fail = true;
    const source = memorySource(server, b, log, { from: (since) => Math.max(0, since - 2) }); // re-sends two it has
    const dropping = async function* (since, signal) {
      let n = 0;
      for await (const m of source(since, signal)) {
        yield m;
        if (fail && ++n === 3) {
          fail = false;
          throw new Error("socket hang up");
        }
      }
    };
    const seen = [];
    const retried = [];
    const follower = followRun(dropping, { retryDelayMs: 5, onChange: (c) => seen.push(c), onRetry: (e) => retried.push(e.code) });
    await follower.ready;
    let dropped;
    for (const step of steps.slice(2, 10)) {
      step(server);
      await new Promise((r) => setImmediate(r));
      if (!fail && dropped === undefined) dropped = follower.version;
    }
    await caughtUp(follower, server, "after the reconnect");
    assert.deepEqual(retried, ["NETWORK_ERROR"]);
    assert.deepEqual(log.asks, [null, dropped]);
    assert.equal(seen.reduce((n, c) => n + c.applied, 0), server.version - 2, "each event counted once, the re-sent ones skipped");
    assertSame(follower.store, server);
    follower.close();
  });

  test("a tampered event stops the follower with TAMPERED_LOG; its store stays as it was", async () => {
    const b = bus();
    const { store: server } = serverStore("follow-tamper", b.notify);
    steps[0](server);
    const log = { asks: [], sent: [] };
    // The tool result's text changed on the way, its hash left as the server's.
    const tap = (m) => (m.events ? { events: JSON.parse(JSON.stringify(m.events).replace("AZ 611 09:40 €180", "AZ 611 09:40 €999")) } : m);
    const follower = followRun(memorySource(server, b, log, { tap }));
    const changes = follower.changes();
    await follower.ready;
    for (const step of steps.slice(1, 5)) {
      step(server);
      await new Promise((r) => setImmediate(r));
    }
    await assert.rejects(follower.done, (e) => e.code === "TAMPERED_LOG" && /event/i.test(e.message));
    assert.equal(follower.state, "failed");
    assert.equal(follower.version, 4, "every event before the tampered one applied, nothing of it");
    assert.equal(follower.store.lastHash, server.at(4).lastHash);
    const drained = [];
    await assert.rejects(async () => {
      for await (const c of changes) drained.push(c);
    }, (e) => e.code === "TAMPERED_LOG");
    assert.deepEqual(log.asks, [null], "never asked again: a tampered log is not retried");
  });

  test("a keyed chain: followed without its key, every event is checked by its links only; with it, by its hash too", async () => {
    const chainKey = crypto.getRandomValues(new Uint8Array(32));
    const { store: server } = serverStore("follow-keyed", undefined, { chainKey });
    steps[0](server);
    const snapshot = server.exportForTransport();
    for (const step of steps.slice(1, 8)) step(server);
    const messages = [{ snapshot }, { events: server.transportEvents({ since: snapshot.last_sequence }) }];
    const counts = async (storeOptions) => {
      const seen = [];
      const follower = followRun(() => messages, { storeOptions, onChange: (c) => seen.push(c) });
      await follower.done;
      assertSame(follower.store, server);
      return [seen.reduce((n, c) => n + c.applied, 0), seen.reduce((n, c) => n + c.hashChecked, 0)];
    };
    const applied = server.version - snapshot.last_sequence;
    const redacted = messages[1].events.filter((e) => e.redacted).length;
    assert.equal(redacted, 1, "the private write, redacted");
    assert.deepEqual(await counts(undefined), [applied, 0], "without the key: links only");
    assert.deepEqual(await counts({ chainKey }), [applied, applied], "with the key: every hash, the redacted event's through its commitment");
    // An edit that leaves the hash as it was: found with the key; without it, the links hold and
    // it is not (the documented limit: serve followers over a connection you trust).
    const forged = JSON.parse(JSON.stringify(messages).replace("AZ 611 09:40 €180", "AZ 611 09:40 €999"));
    const refused = followRun(() => forged, { storeOptions: { chainKey } });
    await assert.rejects(refused.done, (e) => e.code === "TAMPERED_LOG");
    const fooled = followRun(() => forged);
    await fooled.done;
    assert.match(JSON.stringify(fooled.store.messages("openai")), /€999/);
    assert.equal(fooled.store.lastHash, server.lastHash);
  });

  test("a new snapshot of the same run resets the follower; one of another run is TAMPERED_LOG; a message that is not {snapshot} | {events} stops it", async () => {
    const a = serverStore("run-a").store;
    const c = serverStore("run-b").store;
    steps[0](a);
    const early1 = a.exportForTransport();
    for (const step of steps.slice(1, 4)) step(a);
    for (const step of steps.slice(0, 4)) step(c);
    let release;
    const gate = new Promise((r) => (release = r));
    const follower = followRun(async function* () {
      yield { snapshot: early1 };
      await gate;
      yield { snapshot: JSON.stringify(a.exportForTransport()) }; // its JSON text works too
      yield { snapshot: c.exportForTransport() }; // another run at the same source: refused
    });
    const first = await follower.ready;
    assert.equal(first.runId, "run-a");
    assert.equal(first.version, 1);
    const changes = follower.changes();
    release();
    assert.deepEqual((await changes.next()).value, { kind: "snapshot", version: 4, applied: 0, hashChecked: 0 });
    assertSame(follower.store, a);
    await assert.rejects(follower.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "run_id" && /snapshot of run "run-b" while following run "run-a"/.test(e.message));
    assert.equal(follower.state, "failed");
    assert.equal(follower.store.runId, "run-a", "the store is kept as it was");
    assertSame(follower.store, a);

    const odd = followRun(function* () {
      yield { snapshot: a.exportForTransport() };
      yield { neither: true };
    });
    await assert.rejects(odd.done, (e) => e.code === "INVALID_OPTION" && /not \{snapshot\} or \{events\}/.test(e.message));
    assert.equal(odd.store.version, 4);
    assert.throws(() => followRun("not a function"), (e) => e.code === "INVALID_OPTION");
    assert.throws(() => followRun(() => [], { retries: -1 }), (e) => e.code === "INVALID_OPTION");
    assert.throws(() => followRun(() => [], { allowRewind: "yes" }), (e) => e.code === "INVALID_OPTION" && /allowRewind/.test(e.message));
    const early = followRun(function* () {
      yield { events: [] };
    });
    await assert.rejects(early.done, (e) => e.code === "INVALID_OPTION" && /before the first snapshot/.test(e.message));
    await assert.rejects(early.ready, (e) => e.code === "INVALID_OPTION");
  });

  test("a snapshot behind the follower (older, or its version with another hash) is TAMPERED_LOG unless allowRewind", async () => {
    const a = serverStore("run-r").store;
    for (const step of steps.slice(0, 2)) step(a);
    const old = a.exportForTransport();
    // Another history of the same run, forked after event 1, at a's version 4.
    const fork = StateStore.replay(a.events().slice(0, 1));
    for (const step of steps.slice(2, 4)) step(a);
    fork.apply({ author: "user", update: { messages: [{ role: "user", content: "another turn" }] } });
    fork.apply({ author: "user", update: { facts: { other: true } } });
    fork.apply({ author: "user", update: { facts: { other: false } } });
    assert.equal(fork.version, a.version);
    const newer = a.exportForTransport();
    const follow = (second, opts) => followRun(() => [{ snapshot: newer }, { snapshot: second }], opts);

    const older = follow(old);
    await assert.rejects(older.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "last_sequence" && /snapshot at sequence 2, behind the follower's 4/.test(e.message) && /allowRewind/.test(e.message));
    assert.equal(older.version, 4, "the store is kept as it was");
    assertSame(older.store, a);
    const forked = follow(fork.exportForTransport());
    await assert.rejects(forked.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "last_hash" && e.message.includes(`another last_hash (${fork.lastHash.slice(0, 12)}…, not ${a.lastHash.slice(0, 12)}…)`));
    assertSame(forked.store, a);
    // The same snapshot again is no rewind.
    const same = follow(newer);
    await same.done;
    assertSame(same.store, a);

    // Opted in: the follower goes back to the older snapshot, and it is told as a snapshot change.
    const seen = [];
    const rewound = follow(old, { allowRewind: true, onChange: (ch) => seen.push([ch.kind, ch.version]) });
    await rewound.done;
    assert.deepEqual(seen, [["snapshot", 4], ["snapshot", 2]]);
    assert.equal(rewound.store.version, 2);
    assert.equal(rewound.store.lastHash, old.last_hash);
    const refork = follow(fork.exportForTransport(), { allowRewind: true });
    await refork.done;
    assert.equal(refork.store.lastHash, fork.lastHash);
    // Another run stays refused, allowRewind or not.
    const other = serverStore("run-other").store;
    steps[0](other);
    const switched = follow(other.exportForTransport(), { allowRewind: true });
    await assert.rejects(switched.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "run_id");
    fork.free();
  });

  test("followEventSource shares the checks of a reset: a snapshot of another run, or an older one, stops it", async () => {
    const a = serverStore("es-a").store;
    steps[0](a);
    const old = a.exportForTransport();
    steps[1](a);
    const b = serverStore("es-b").store;
    steps[0](b);
    const over = (sent) =>
      class {
        constructor() {
          this.readyState = 0;
          this.listeners = {};
          setTimeout(() => {
            this.readyState = 1;
            for (const s of sent) this.listeners.snapshot?.({ data: JSON.stringify(s) });
          }, 0);
        }
        addEventListener(type, f) {
          this.listeners[type] = f;
        }
        close() {
          this.readyState = 2;
        }
      };
    const switched = followEventSource("http://127.0.0.1:1/events", { EventSource: over([a.exportForTransport(), b.exportForTransport()]) });
    await assert.rejects(switched.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "run_id");
    assert.equal(switched.store.runId, "es-a");
    const older = followEventSource("http://127.0.0.1:1/events", { EventSource: over([a.exportForTransport(), old]) });
    await assert.rejects(older.done, (e) => e.code === "TAMPERED_LOG" && e.details.field === "last_sequence");
    assert.equal(older.store.version, 2);
  });

  test("a channel the server registers mid-run: the follower's UNKNOWN_CHANNEL asks for a fresh snapshot (source(null)) and goes on from it", async () => {
    const b = bus();
    const { store: server, key } = serverStore("follow-schema", b.notify);
    for (const step of steps.slice(0, 3)) step(server);
    const log = { asks: [], sent: [] };
    const seen = [];
    const retries = [];
    const follower = followRun(memorySource(server, b, log), { onChange: (c) => seen.push([c.kind, c.version]), onRetry: (e, n) => retries.push([e.code, n, e.details?.channel]) });
    await follower.ready;
    steps[3](server);
    await caughtUp(follower, server, "before the new channel");
    const before = follower.store;
    // registerChannel writes no event: the follower learns of the channel only from the next event writing it.
    server.registerChannel({ name: "itinerary", reducer: "replace", type: "string" });
    server.apply({ author: "planner", update: { itinerary: "FCO Friday 09:40" } });
    await caughtUp(follower, server, "after the event writing the new channel");
    assert.equal(follower.state, "live");
    assert.deepEqual(log.asks, [null, null], "asked for a snapshot again (since = null), not for the events after its version");
    assert.deepEqual(retries, [["UNKNOWN_CHANNEL", 1, "itinerary"]]);
    assert.notEqual(follower.store, before, "a reset: a new store, with the new channel");
    assert.equal(follower.store.get("itinerary"), "FCO Friday 09:40");
    assert.deepEqual(seen, [["snapshot", 3], ["events", 4], ["snapshot", 5]]);
    // And it goes on live from there, the new channel written again.
    for (const step of steps.slice(4, 8)) step(server);
    server.apply({ author: "planner", update: { itinerary: "FCO Friday 09:40, seat 14C" } });
    await caughtUp(follower, server, "live after the reset");
    assertSame(follower.store, server);
    assert.equal(follower.store.get("itinerary"), "FCO Friday 09:40, seat 14C");
    assert.deepEqual(log.asks, [null, null]);
    assertNoMarker(server, key, log.sent, "a message sent");
    follower.close();
  });

  test("a fresh snapshot that still lacks the channel the events write: UNKNOWN_CHANNEL stops the follower (no loop)", async () => {
    const server = serverStore("follow-schema-stale").store;
    steps[0](server);
    const stale = server.exportForTransport(); // before the channel exists
    server.registerChannel({ name: "itinerary", reducer: "replace" });
    server.apply({ author: "planner", update: { itinerary: "FCO" } });
    const events = server.transportEvents({ since: stale.last_sequence });
    const asks = [];
    const follower = followRun((since) => (asks.push(since), [{ snapshot: stale }, { events }]));
    await assert.rejects(follower.done, (e) => e.code === "UNKNOWN_CHANNEL" && e.details.channel === "itinerary" && /^UNKNOWN_CHANNEL: event 0 writes channel 'itinerary'.*\(even in the fresh snapshot the source sent for it/.test(e.message));
    assert.deepEqual(asks, [null, null], "one fresh snapshot asked for, then refused");
    assert.equal(follower.state, "failed");
    assert.equal(follower.version, 1, "the store stays as the snapshot left it");
    // With retries: 0 the source is never asked again: the follower fails at once.
    const once = [];
    const strict = followRun((since) => (once.push(since), [{ snapshot: stale }, { events }]), { retries: 0 });
    await assert.rejects(strict.done, (e) => e.code === "UNKNOWN_CHANNEL");
    assert.deepEqual(once, [null]);
  });

  test("followRun and followEventSource refuse an unknown option, naming it", () => {
    assert.throws(() => followRun(() => [], { retry: 3 }), (e) => e.code === "INVALID_OPTION" && e.details.field === "retry" && /followRun: unknown option "retry" \(known: .*retries/.test(e.message));
    assert.throws(() => followRun(() => [], { maxQueued: 5 }), (e) => e.code === "INVALID_OPTION" && e.details.field === "maxQueued", "followEventSource's own options are not followRun's");
    const NoConnect = class {
      constructor() {
        throw new Error("never constructed: the options are refused first");
      }
    };
    assert.throws(() => followEventSource("http://127.0.0.1:1/events", { EventSource: NoConnect, retry: 3 }), (e) => e.code === "INVALID_OPTION" && e.details.field === "retry" && /followEventSource: unknown option "retry" \(known: .*maxQueued/.test(e.message));
    // The known ones are still taken (an undefined value too).
    followRun(() => [], { retries: 1, retryDelayMs: 1, allowRewind: false, onChange: undefined, onRetry: undefined, storeOptions: {} }).close();
  });

  test("a source that keeps failing: retried `retries` times, then NETWORK_ERROR", async () => {
    const asks = [];
    const follower = followRun((since) => {
      asks.push(since);
      return (async function* () {
        throw new Error("connection refused");
      })();
    }, { retries: 2, retryDelayMs: 1 });
    await assert.rejects(follower.done, (e) => e.code === "NETWORK_ERROR" && /connection refused/.test(e.message));
    assert.deepEqual(asks, [null, null, null]);
    assert.equal(follower.store, null);
  });
});

// ---------------------------------------------------------------------------------------------
// The SSE hub over raw node:http

/** Starts a server whose every request goes to `handler`; `{url, close}`. */
function listen(handler) {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({ url, server, close: () => new Promise((done) => (server.close(() => done()), server.closeAllConnections())) });
    }),
  );
}

/** Parses SSE text into messages `{event, id, data}` (comments and `retry:` left out). */
function parseSse(text) {
  const out = [];
  for (const block of text.split("\n\n")) {
    const m = { event: "message", id: undefined, data: [] };
    for (const line of block.split("\n")) {
      const [, field, value] = /^([a-z]+): ?(.*)$/.exec(line) ?? [];
      if (field === "event") m.event = value;
      else if (field === "id") m.id = value;
      else if (field === "data") m.data.push(value);
    }
    if (m.data.length) out.push({ ...m, data: m.data.join("\n") });
  }
  return out;
}

/** GETs the stream and resolves with its messages once `enough(messages)` (then disconnects). */
function readStream(url, headers, enough) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let text = "";
      if (res.statusCode !== 200) {
        res.resume();
        return resolve({ status: res.statusCode, messages: [] });
      }
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
        const messages = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
        if (enough(messages)) {
          req.destroy();
          resolve({ status: 200, messages, text });
        }
      });
    });
    req.on("error", (e) => (e.code === "ECONNRESET" ? undefined : reject(e)));
  });
}

describe("the SSE hub (stategate/sse)", () => {
  test("a snapshot first; Last-Event-ID and ?since= resume with only the missing events; `end` once closed", async () => {
    let hub;
    const { store: server, key } = serverStore("sse-raw", () => hub.notify());
    const connects = [];
    hub = new SseHub(server, { heartbeatMs: 0, retryMs: 250, onConnect: (i) => connects.push(i) });
    for (const step of steps.slice(0, 6)) step(server);
    const web = await listen((req, res) => hub.handle(req, res));
    try {
      const fresh = await readStream(`${web.url}/events`, {}, (m) => m.length >= 1);
      assert.equal(fresh.messages[0].event, "snapshot");
      assert.equal(fresh.messages[0].id, "6");
      assert.match(fresh.text, /^retry: 250\n\n/);
      const snap = JSON.parse(fresh.messages[0].data);
      assert.deepEqual([snap.format, snap.last_sequence, snap.last_hash], ["stategate-export", 6, server.lastHash]);
      // Resumed from sequence 3: one message, one data line per event 4…6, id the last.
      const resumed = await readStream(`${web.url}/events`, { "last-event-id": "3" }, (m) => m.length >= 1);
      assert.equal(resumed.messages[0].event, "events");
      assert.equal(resumed.messages[0].id, "6");
      assert.deepEqual(resumed.messages[0].data.split("\n").map((l) => JSON.parse(l).sequence), [4, 5, 6]);
      // Last-Event-ID wins over the query (EventSource resends it on reconnect; the URL is fixed).
      const both = await readStream(`${web.url}/events?since=1`, { "last-event-id": "5" }, (m) => m.length >= 1);
      assert.deepEqual(both.messages[0].data.split("\n").map((l) => JSON.parse(l).sequence), [6]);
      // Live: connected at 6 by ?since=6 (nothing to send at once), then events as they are applied.
      const live = readStream(`${web.url}/events?since=6`, {}, (m) => m.some((x) => x.id === "9"));
      await until(() => connects.length === 4, "the live client connected");
      for (const step of steps.slice(6, 9)) step(server);
      const got = await live;
      assert.deepEqual(got.messages.flatMap((m) => m.data.split("\n").map((l) => JSON.parse(l).sequence)), [7, 8, 9]);
      assert.ok(!got.text.includes(MARKER) && !fresh.text.includes(MARKER) && !resumed.text.includes(MARKER), "a private value went out");
      assert.deepEqual(Object.keys(JSON.parse(got.messages.at(-1).data.split("\n").at(-1)).redacted), ["scratch"], "the private write, redacted");
      // Ahead of the server, or not a number: a snapshot.
      const ahead = await readStream(`${web.url}/events?since=99`, {}, (m) => m.length >= 1);
      assert.equal(ahead.messages[0].event, "snapshot");
      assert.deepEqual(connects.map((c) => [c.since, c.resumed, c.events, c.version]), [[null, false, 0, 6], [3, true, 3, 6], [5, true, 1, 6], [6, true, 0, 6], [99, false, 0, 9]]);
      await until(() => hub.clients === 0, "every reader that went away let go");
      // Closed: a connected follower gets `end`, and so does a later request (nothing else).
      const open = readStream(`${web.url}/events?since=9`, {}, (m) => m.some((x) => x.event === "end"));
      await until(() => connects.length === 6, "a follower connected before the close");
      hub.close();
      assert.deepEqual((await open).messages.map((m) => m.event), ["end"]);
      const later = await readStream(`${web.url}/events`, {}, (m) => m.length >= 1);
      assert.deepEqual([later.status, later.messages.map((m) => [m.event, m.data])], [200, [["end", '{"reason":"closed"}']]]);
      assert.equal(JSON.stringify(server.private(key)).includes(MARKER), true);
    } finally {
      hub.close();
      await web.close();
    }
  });

  test("followEventSource over the hub: a channel the server registers mid-run reconnects without since (a snapshot) and goes on", async () => {
    let hub;
    const { store: server } = serverStore("es-schema", () => hub.notify());
    const connects = [];
    hub = new SseHub(server, { heartbeatMs: 0, retryMs: 50, onConnect: (i) => connects.push([i.since, i.resumed]) });
    for (const step of steps.slice(0, 3)) step(server);
    const web = await listen((req, res) => hub.handle(req, res));
    const urls = [];
    const received = [];
    // Node 20 has no EventSource: a minimal one over node:http (no reconnect of its own).
    class NodeEventSource {
      constructor(url) {
        urls.push(url.slice(web.url.length));
        this.readyState = 0;
        this.listeners = {};
        let text = "";
        this.req = http.get(url, { headers: { accept: "text/event-stream" } }, (res) => {
          this.readyState = 1;
          res.setEncoding("utf8");
          res.on("data", (d) => {
            text += d;
            const cut = text.lastIndexOf("\n\n") + 2;
            for (const m of parseSse(text.slice(0, cut))) {
              received.push(m.event);
              for (const f of this.listeners[m.event] ?? []) f({ data: m.data, lastEventId: m.id });
            }
            text = text.slice(cut);
          });
          res.on("end", () => this.fail());
        });
        this.req.on("error", () => this.fail());
      }
      fail() {
        if (this.readyState === 2) return;
        this.readyState = 2;
        for (const f of this.listeners.error ?? []) f({});
      }
      addEventListener(type, f) {
        (this.listeners[type] ??= []).push(f);
      }
      close() {
        this.readyState = 2;
        this.req.destroy();
      }
    }
    const retries = [];
    const follower = followEventSource(`${web.url}/events`, { EventSource: NodeEventSource, retryDelayMs: 5, onRetry: (e) => retries.push(e.code) });
    try {
      await follower.ready;
      steps[3](server);
      await caughtUp(follower, server, "live before the new channel");
      server.registerChannel({ name: "itinerary", reducer: "replace" });
      server.apply({ author: "planner", update: { itinerary: "FCO Friday 09:40" } });
      await caughtUp(follower, server, "after the event writing the new channel");
      assert.equal(follower.store.get("itinerary"), "FCO Friday 09:40");
      assert.deepEqual(urls, ["/events", "/events"], "reconnected without since");
      assert.deepEqual(connects, [[null, false], [null, false]], "the hub sent a snapshot on the reconnect");
      assert.deepEqual(received, ["snapshot", "events", "events", "snapshot"]);
      assert.deepEqual(retries, ["UNKNOWN_CHANNEL"]);
      for (const step of steps.slice(4, 7)) step(server);
      await caughtUp(follower, server, "live after the reset");
      assertSame(follower.store, server);
      assert.equal(follower.state, "live");
      assert.equal(urls.length, 2);
    } finally {
      follower.close();
      hub.close();
      await web.close();
    }
  });

  test("a client that does not read is dropped once its unsent data passes maxBufferedBytes", async () => {
    let hub;
    const { store: server } = serverStore("sse-slow", () => hub.notify());
    hub = new SseHub(server, { heartbeatMs: 0, maxBufferedBytes: 64 * 1024 });
    const web = await listen((req, res) => hub.handle(req, res));
    try {
      let res;
      const req = http.get(`${web.url}/events`, (r) => {
        res = r;
        r.pause(); // never reads: the socket's buffers fill, then the hub's
      });
      req.on("error", () => {});
      await until(() => hub.clients === 1 && res, "the slow client");
      const big = "x".repeat(256 * 1024);
      for (let i = 0; i < 200 && hub.clients === 1; i++) {
        server.apply({ author: "user", update: { messages: [{ role: "user", content: `${i} ${big}` }] } });
        await new Promise((r) => setImmediate(r));
      }
      await until(() => hub.clients === 0, "the slow client dropped");
      assert.equal(hub.dropped, 1);
      req.destroy();
    } finally {
      hub.close();
      await web.close();
    }
  });

  test("bad arguments are typed errors", () => {
    assert.throws(() => new SseHub({}), (e) => e.code === "INVALID_OPTION");
    const { store } = serverStore("sse-args");
    assert.throws(() => new SseHub(store, { maxBufferedBytes: 0 }), (e) => e.code === "INVALID_OPTION");
    assert.throws(() => SseHub(store), (e) => e.code === "INVALID_OPTION");
    const hub = new SseHub(store, { heartbeatMs: 0 });
    assert.throws(() => hub.handle({}, {}), (e) => e.code === "INVALID_OPTION");
    hub.close();
  });

  test("headers node:http would refuse are INVALID_OPTION naming the header, at construction; good ones are sent", async () => {
    const { store } = serverStore("sse-headers");
    const bad = [
      [{ "x-note": "a\r\nset-cookie: stolen=1" }, /value of "x-note" holds U\+000D/],
      [{ "x-note": "line\nbreak" }, /value of "x-note" holds U\+000A/],
      [{ "x-nul": "a\u0000b" }, /value of "x-nul" holds U\+0000/],
      [{ "x-wide": "caf\u00e9 \u2014 ok?" }, /value of "x-wide" holds U\+2014/],
      [{ "bad name": "x" }, /"bad name" is not an HTTP header name/],
      [{ "x-a\r\n": "x" }, /is not an HTTP header name/],
      [{ "": "x" }, /"" is not an HTTP header name/],
      [{ "x-n": 5 }, /value of "x-n" must be a string/],
    ];
    for (const [headers, message] of bad) assert.throws(() => new SseHub(store, { heartbeatMs: 0, headers }), (e) => e.code === "INVALID_OPTION" && message.test(e.message), JSON.stringify(headers));
    // Accepted ones go out with every stream (tab and Latin-1 are allowed in values, as node:http allows them).
    const hub = new SseHub(store, { heartbeatMs: 0, headers: { "access-control-allow-origin": "*", "x-tab": "a\tb", "x-latin1": "caf\u00e9" } });
    const web = http.createServer((req, res) => hub.handle(req, res));
    await new Promise((r) => web.listen(0, "127.0.0.1", r));
    try {
      const res = await new Promise((resolve, reject) => http.get(`http://127.0.0.1:${web.address().port}/`, resolve).on("error", reject));
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers["access-control-allow-origin"], "*");
      assert.equal(res.headers["x-tab"], "a\tb");
      assert.equal(Buffer.from(res.headers["x-latin1"], "latin1").toString("latin1"), "caf\u00e9");
      res.destroy();
    } finally {
      hub.close();
      await new Promise((r) => web.close(r));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// (b) End to end: a page in headless Chromium following a Node server through the hub

const TYPES = { ".js": "text/javascript; charset=utf-8", ".wasm": "application/wasm", ".html": "text/html; charset=utf-8" };

const PAGE = `<!doctype html><meta charset="utf-8"><title>follower</title><link rel="icon" href="data:,">
<p id="status">connecting</p><p id="run"></p><pre id="view"></pre><ul id="todos"></ul>
<script type="module">
import { followEventSource } from "/pkg/browser.js";
const received = [];
const errors = [];
// EventSource, recording every message it is given (before the follower sees it).
class Recording extends EventSource {
  constructor(url) {
    super(url);
    for (const type of ["snapshot", "events"]) this.addEventListener(type, (e) => received.push({ type, id: e.lastEventId, data: e.data }));
  }
}
const follower = followEventSource("/events", {
  EventSource: Recording,
  retryDelayMs: 100,
  onChange: () => {
    const s = follower.store;
    document.querySelector("#status").textContent = "version " + s.version;
    document.querySelector("#run").textContent = "run " + s.get("run").status;
    document.querySelector("#view").textContent = JSON.stringify(s.modelView({ budget: 4000, format: "anthropic" }).messages, null, 1);
    document.querySelector("#todos").replaceChildren(...(s.get("todos") ?? []).map((t) => Object.assign(document.createElement("li"), { textContent: t.content + ": " + t.status })));
  },
  onRetry: (e) => errors.push("retry " + e.code),
});
follower.done.catch((e) => errors.push(String(e)));
window.follow = { follower, received, errors };
</script>`;

describe("a page in headless Chromium follows a Node server (followEventSource + SseHub)", () => {
  let browser;
  let web;
  before(async () => {
    assert.ok(fs.existsSync(path.join(ROOT, "pkg", "browser.js")), "build the package first (scripts/build.sh)");
    assert.ok(fs.existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (scripts/setup.sh installs Debian's; or set CHROMIUM_PATH)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });
  after(async () => {
    await browser?.close().catch(() => {});
    await web?.close();
  });

  test("the page's model view and system view equal the server's; a killed connection resumes with only the missing events; nothing private in the page", async () => {
    let hub;
    const { store: server, key } = serverStore("follow-page", () => hub.notify());
    const connects = [];
    hub = new SseHub(server, { heartbeatMs: 1000, retryMs: 200, onConnect: (i) => connects.push(i) });
    web = await listen((req, res) => {
      const url = new URL(req.url, "http://x");
      if (url.pathname === "/events") return hub.handle(req, res);
      if (url.pathname === "/") return res.writeHead(200, { "content-type": TYPES[".html"] }).end(PAGE);
      const file = path.join(ROOT, "pkg", path.normalize(url.pathname.replace(/^\/pkg\//, "")));
      if (!url.pathname.startsWith("/pkg/") || !file.startsWith(path.join(ROOT, "pkg") + path.sep) || !fs.existsSync(file)) return res.writeHead(404).end();
      res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(fs.readFileSync(file));
    });
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && !/EventSource|ERR_/.test(m.text()) && problems.push(`console: ${m.text()}`));
    try {
      for (const step of steps.slice(0, 4)) step(server);
      await page.goto(`${web.url}/`);
      const pageVersion = () => page.evaluate(() => window.follow?.follower.version ?? null);
      await until(async () => (await pageVersion()) === server.version, "the page's first snapshot");
      // Live: the server applies while the page follows.
      for (const step of steps.slice(4, 10)) {
        step(server);
        await until(async () => (await pageVersion()) === server.version, `the page at ${server.version}`);
      }
      // Kill the connection from the server side, apply while the page is away.
      const cut = server.version;
      assert.equal(hub.drop(), 1);
      for (const step of steps.slice(10)) step(server);
      const missed = server.version - cut;
      assert.ok(missed >= 5, `missed ${missed}`);
      await until(async () => (await pageVersion()) === server.version, "the page caught up after the reconnect");

      // What the server sent on the reconnect: only the missing events.
      assert.deepEqual(connects.map((c) => [c.since, c.resumed, c.events]), [[null, false, 0], [cut, true, missed]]);
      const received = await page.evaluate(() => window.follow.received);
      assert.equal(received[0].type, "snapshot");
      assert.ok(received.slice(1).every((m) => m.type === "events"), "one snapshot, then only events");
      const sequences = received.slice(1).flatMap((m) => m.data.split("\n").map((l) => JSON.parse(l).sequence));
      const first = JSON.parse(received[0].data).last_sequence;
      assert.deepEqual(sequences, Array.from({ length: server.version - first }, (_, i) => first + 1 + i), "every event once, none re-sent");
      assert.equal(received.at(-1).id, String(server.version));

      // The page's follower equals the server.
      for (const opts of VIEWS) assert.deepEqual(await page.evaluate((o) => window.follow.follower.store.modelView(o), opts), server.modelView(opts), JSON.stringify(opts));
      assert.deepEqual(await page.evaluate(() => window.follow.follower.store.systemView()), server.systemView());
      assert.equal(await page.evaluate(() => window.follow.follower.store.lastHash), server.lastHash);
      assert.equal(await page.evaluate(() => window.follow.follower.state), "live");
      await until(async () => (await page.textContent("#status")) === `version ${server.version}`, "the page rendered");
      assert.match(await page.textContent("#view"), /Add a hotel near Termini/);
      assert.match(await page.textContent("#todos"), /book it: completed/);

      // Nothing private anywhere in the page.
      const texts = [
        await page.content(),
        await page.evaluate(() => document.body.innerText),
        JSON.stringify(received),
        await page.evaluate(() => JSON.stringify(window.follow.follower.store)),
        await page.evaluate(() => JSON.stringify(window.follow.follower.store.systemView())),
        await page.evaluate(() => window.follow.follower.store.eventsJsonl()),
      ];
      assertNoMarker(server, key, texts, "the page");
      assert.deepEqual(await page.evaluate(() => window.follow.errors), []);
      // The server closes the run's stream: the page's follower ends, its store still readable.
      hub.close();
      await until(async () => (await page.evaluate(() => window.follow.follower.state)) === "ended", "the page's follower ended");
      assert.equal(await page.evaluate(() => window.follow.follower.store.version), server.version);
      assert.deepEqual(problems, []);
    } finally {
      hub.close();
      await page.close();
    }
  });
});
