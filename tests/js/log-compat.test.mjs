// Logs written by an earlier build, on the built package (issue 17: the store holds its events
// compactly and writes their JSON on demand; shapes, hashes, checkpoints and logs must not
// change). tests/fixtures/logs/ holds a run written by the package of main at cb69b05, on a plain
// chain and on a keyed one, with a checkpoint after event 10 (see make.mjs there).
//
// Run: node --test tests/js/log-compat.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { StateStore, verifyLog } from "../../pkg/index.js";

const dir = new URL("../fixtures/logs/", import.meta.url);
const read = (name) => fs.readFileSync(new URL(name, dir), "utf8");
const meta = JSON.parse(read("main-cb69b05.json"));
const chainKey = new Uint8Array(32).fill(meta.chain_key_byte);
const runs = [
  { file: "main-cb69b05.jsonl", expected: meta.plain, opts: {} },
  { file: "main-cb69b05-keyed.jsonl", expected: meta.keyed, opts: { chainKey } },
];

/** What the writer's store held, and its log written back as the very text read. */
function check(store, expected, text) {
  assert.equal(store.version, expected.version);
  assert.equal(store.lastHash, expected.lastHash);
  assert.deepEqual(store.systemView(), expected.system);
  assert.deepEqual(store.private(store.claimOwnerKey("agent")), expected.private);
  assert.equal(store.eventsJsonl(), text);
  assert.equal(store.events().map((e) => JSON.stringify(e) + "\n").join(""), text);
}

test("a log main wrote replays (JSON Lines and objects), verifies, and is written back byte for byte", () => {
  for (const { file, expected, opts } of runs) {
    const text = read(file);
    const objects = text.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(verifyLog(text, opts), { ok: true }, file);
    assert.deepEqual(verifyLog(objects, opts), { ok: true }, file);
    check(StateStore.replay(text, { channels: meta.channels, ...opts }), expected, text);
    check(StateStore.replay(objects, { channels: meta.channels, ...opts }), expected, text);
  }
  // Without its key a keyed log breaks at its first event.
  assert.deepEqual(verifyLog(read("main-cb69b05-keyed.jsonl")), { ok: false, index: 0, sequence: 1, reason: "hash" });
});

test("a checkpoint main wrote restores with its tail; a store that goes on writes lines main reads", () => {
  const text = read("main-cb69b05.jsonl");
  const checkpoint = new Uint8Array(fs.readFileSync(new URL("main-cb69b05-checkpoint-10.json", dir)));
  const restored = StateStore.restore(checkpoint, text, { channels: meta.channels });
  assert.equal(restored.lastHash, meta.plain.lastHash);
  assert.deepEqual(restored.systemView(), meta.plain.system);
  assert.equal(restored.eventsJsonl(), text.split("\n").slice(10).join("\n"));
  // Going on from the replayed log: what onEvents hands out, stringified as FileLog writes it,
  // is the line eventsJsonl writes, and the whole log still verifies and replays.
  const lines = [];
  const s = StateStore.replay(text, { channels: meta.channels, onEvents: (events) => lines.push(...events.map((e) => JSON.stringify(e) + "\n")) });
  s.apply({ author: "user", update: { messages: [{ role: "user", content: "one more — ünïcode" }] } });
  assert.equal(lines.join(""), s.eventsJsonl({ since: meta.plain.version }));
  const all = text + lines.join("");
  assert.deepEqual(verifyLog(all), { ok: true });
  assert.equal(StateStore.replay(all, { channels: meta.channels }).lastHash, s.lastHash);
});
