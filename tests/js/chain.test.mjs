// The keyed chain (issue 18), checked against the definition rather than against ourselves: an
// event's hash is HMAC-SHA-256 (node:crypto and WebCrypto, RFC 2104) of the canonical encoding
// of its other fields (compact JSON, keys sorted), or plain SHA-256 without a key; every
// single-byte change of a keyed log and of a keyed checkpoint is refused, and so is a log whose
// chain was recomputed by someone without the key. Also: FileLog persists a keyed run; in Node
// the log's SHA-256 is node:crypto's (issue 17), checked here to give the module's own hashes.
//
// Run: node --test tests/js/chain.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StateStore, verifyLog } from "../../pkg/index.js";
import { FileLog } from "../../pkg/file-log.js";
import { useHostSha256 } from "../../pkg/stategate_wasm.js";

const KEY = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 255);

/** The canonical encoding (docs/log.md): compact JSON, object keys sorted (ASCII keys here). */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  return JSON.stringify(v);
}
const unhashed = ({ hash, ...rest }) => rest;

function run(chainKey) {
  const store = new StateStore({ runId: "chain", clock: () => 1_700_000_000_000, ...(chainKey && { chainKey }) });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "Book a table for 2", id: "u1" }] } });
  store.apply({ author: "planner", update: { facts: { city: "Rome", people: 2 }, todos: [{ content: "call", status: "pending" }] } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: "Done", id: "a1" }] } });
  return store;
}

test("a keyed event's hash is HMAC-SHA-256 of its canonical bytes (node:crypto and WebCrypto agree); unkeyed, SHA-256", async () => {
  const keyed = run(KEY).events();
  const plain = run().events();
  const hmacKey = await crypto.subtle.importKey("raw", KEY, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  for (const [i, e] of keyed.entries()) {
    const bytes = canonical(unhashed(e));
    assert.equal(e.hash, crypto.createHmac("sha256", KEY).update(bytes).digest("hex"), `event ${i}`);
    const web = Buffer.from(await crypto.subtle.sign("HMAC", hmacKey, new TextEncoder().encode(bytes))).toString("hex");
    assert.equal(e.hash, web, `event ${i} (WebCrypto)`);
    assert.equal(e.prev_hash, i === 0 ? "0".repeat(64) : keyed[i - 1].hash);
  }
  for (const e of plain) assert.equal(e.hash, crypto.createHash("sha256").update(canonical(unhashed(e))).digest("hex"));
  assert.notEqual(keyed[0].hash, plain[0].hash);
});

test("every single-byte change of a keyed log is refused, and so is a chain recomputed without the key", () => {
  const store = run(KEY);
  const jsonl = store.eventsJsonl();
  assert.deepEqual(verifyLog(jsonl, { chainKey: KEY }), { ok: true });
  assert.equal(verifyLog(jsonl).ok, false, "a keyed log does not verify without its key");
  assert.equal(verifyLog(run().eventsJsonl(), { chainKey: KEY }).ok, false, "an unkeyed log does not verify with a key");
  assert.deepEqual(verifyLog(run().eventsJsonl()), { ok: true }, "an unkeyed log verifies as before");
  const bytes = Buffer.from(jsonl);
  let changed = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) continue;
    const bad = Buffer.from(bytes);
    bad[i] ^= 0x01;
    const text = bad.toString("utf8");
    let check;
    try {
      check = verifyLog(text, { chainKey: KEY });
    } catch (e) {
      check = { ok: false, code: e.code }; // not JSON Lines any more: refused by the reader
    }
    assert.equal(check.ok, false, `byte ${i} changed and the keyed chain did not notice`);
    assert.throws(() => StateStore.replay(text, { chainKey: KEY }), (e) => ["TAMPERED_LOG", "UNKNOWN_CHANNEL"].includes(e.code), `byte ${i}`);
    changed++;
  }
  assert.ok(changed > 1000, `${changed} bytes changed`);

  // A forger without the key edits an event and recomputes the whole chain with SHA-256.
  const forged = store.events();
  forged[1].payload.facts.city = "Paris";
  let prev = "0".repeat(64);
  for (const e of forged) {
    e.prev_hash = prev;
    e.hash = crypto.createHash("sha256").update(canonical(unhashed(e))).digest("hex");
    prev = e.hash;
  }
  assert.deepEqual(verifyLog(forged), { ok: true }, "the forgery is a valid unkeyed chain");
  assert.deepEqual(verifyLog(forged, { chainKey: KEY }), { ok: false, index: 0, sequence: 1, reason: "hash" });
  assert.throws(() => StateStore.replay(forged, { chainKey: KEY }), { code: "TAMPERED_LOG" });
  // … and with the key the same edit verifies: the key is what makes the difference.
  const resealed = store.events();
  resealed[1].payload.facts.city = "Paris";
  prev = "0".repeat(64);
  for (const e of resealed) {
    e.prev_hash = prev;
    e.hash = crypto.createHmac("sha256", KEY).update(canonical(unhashed(e))).digest("hex");
    prev = e.hash;
  }
  assert.deepEqual(verifyLog(resealed, { chainKey: KEY }), { ok: true });
});

test("every single-byte change of a keyed checkpoint is refused; it restores only with its key", () => {
  const store = run(KEY);
  const cp = store.checkpoint();
  assert.equal(JSON.parse(Buffer.from(cp).toString()).keyed, true);
  assert.equal(StateStore.restore(cp, undefined, { chainKey: KEY }).lastHash, store.lastHash);
  assert.throws(() => StateStore.restore(cp), (e) => e.code === "INVALID_OPTION" && e.details.field === "chainKey" && /chainKey/.test(e.message));
  for (let i = 0; i < cp.length; i++) {
    const bad = Uint8Array.from(cp);
    bad[i] ^= 0x01;
    assert.throws(() => StateStore.restore(bad, undefined, { chainKey: KEY }), (e) => ["CORRUPT_CHECKPOINT", "INVALID_OPTION", "UNSUPPORTED_FORMAT_VERSION"].includes(e.code), `byte ${i}`);
  }
  assert.throws(() => new StateStore({ chainKey: new Uint8Array(15) }), (e) => e.code === "INVALID_OPTION" && /15 bytes/.test(e.message));
  assert.throws(() => new StateStore({ chainKey: "secret" }), { code: "INVALID_OPTION" });
  assert.throws(() => verifyLog([], { chainKey: [1, 2, 3] }), { code: "INVALID_OPTION" });
});

test("FileLog keeps a keyed run: restore and replay with the key continue its chain", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-keyed-"));
  const log = FileLog.open(dir);
  const store = new StateStore({ runId: "k", chainKey: KEY, onEvents: (e) => log.append(e) });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "one" }] } });
  log.saveCheckpoint(store.checkpoint());
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "two" }] } });
  const { checkpoint, events } = log.load();
  const again = StateStore.restore(checkpoint, events, { chainKey: KEY, onEvents: (e) => log.append(e) });
  assert.equal(again.lastHash, store.lastHash);
  again.apply({ author: "user", update: { messages: [{ role: "user", content: "three" }] } });
  const all = log.load().events;
  assert.deepEqual(verifyLog(all, { chainKey: KEY }), { ok: true });
  assert.equal(StateStore.replay(all, { chainKey: KEY }).version, 3);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("in Node the log's SHA-256 is node:crypto's, for inputs of 256 bytes or more, with the very hashes of the module's own", () => {
  const long = "a message long enough that its event is hashed by the host: ".repeat(8);
  const build = () => {
    const store = new StateStore({ runId: "h", clock: () => 1_700_000_000_000 });
    store.apply({ author: "u", update: { todos: [] } }); // 249 canonical bytes
    store.apply({ author: "u", update: { messages: [{ role: "user", content: long, id: "u2" }] } });
    return store;
  };
  let calls = 0;
  const counted = (bytes) => (calls++, crypto.hash("sha256", bytes, "latin1"));
  try {
    // The package's loader installed node:crypto's; a counting one is taken in its place.
    assert.equal(useHostSha256(counted), true);
    calls = 0;
    const store = build();
    const events = store.events();
    assert.equal(calls, 1, "only the event of 256 bytes or more went to the host");
    assert.deepEqual(events.map((e) => canonical(unhashed(e)).length >= 256), [false, true]);
    for (const e of events) {
      assert.equal(e.hash, crypto.createHash("sha256").update(canonical(unhashed(e))).digest("hex"));
    }
    const lastHash = store.lastHash;
    const jsonl = store.eventsJsonl();

    // Refused: not SHA-256, or throwing, or not a function at all; the counting one stays.
    assert.equal(useHostSha256((b) => crypto.hash("sha1", b, "latin1").padEnd(32, "x")), false);
    assert.equal(useHostSha256(() => { throw new Error("no"); }), false);
    assert.equal(useHostSha256((b) => crypto.hash("sha256", b, "hex")), false, "hex is not the binary string");
    calls = 0;
    assert.equal(StateStore.replay(jsonl).lastHash, lastHash);
    assert.ok(calls >= 1, "the counting host is still the one in use");

    // A host that passed its checks and then fails is answered by the module's own SHA-256.
    let failing = false;
    assert.equal(useHostSha256((b) => { if (failing) throw new Error("gone"); return crypto.hash("sha256", b, "latin1"); }), true);
    failing = true;
    assert.equal(build().lastHash, lastHash);
    assert.equal(StateStore.replay(jsonl).lastHash, lastHash);

    // Without any host: the module's own gives the same chain.
    assert.equal(useHostSha256(null), true);
    assert.equal(build().lastHash, lastHash);
    assert.deepEqual(verifyLog(jsonl), { ok: true });
  } finally {
    useHostSha256((b) => crypto.hash("sha256", b, "latin1"));
  }
});

test("a runtime whose node:crypto lookup throws loads the package and keeps the module's own SHA-256 (the same hashes)", async () => {
  const { execFileSync } = await import("node:child_process");
  const script = `
    const real = process.getBuiltinModule;
    process.getBuiltinModule = (id) => { if (id === "node:crypto") throw new Error("not here"); return real(id); };
    const { StateStore } = await import(${JSON.stringify(new URL("../../pkg/index.js", import.meta.url).href)});
    const s = new StateStore({ runId: "r", clock: () => 1700000000000 });
    s.apply({ author: "user", update: { messages: [{ role: "user", content: "x".repeat(300) }] } });
    console.log(s.lastHash);`;
  const hashed = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim();
  const s = new StateStore({ runId: "r", clock: () => 1700000000000 });
  s.apply({ author: "user", update: { messages: [{ role: "user", content: "x".repeat(300) }] } });
  assert.equal(hashed, s.lastHash);
});
