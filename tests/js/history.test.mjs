// The store's history on the built package, in Node: hash-chained events, replay, past views,
// checkpoints, restore, the export for transport, and the file persistence adapter (FileLog),
// including a crash that tears the last line and a crash in the middle of a tool batch.
//
// Run: node --test tests/js/history.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StateStore, verifyLog } from "../../pkg/index.js";
import { FileLog } from "../../pkg/file-log.js";

const call = (id) => ({ id, type: "function", function: { name: "fetch", arguments: `{"url":"https://example.com/${id}"}` } });
const result = (id) => ({ role: "tool", tool_call_id: id, content: `page ${id}` });

function session(opts = {}) {
  let t = 1_700_000_000_000;
  const store = new StateStore({ runId: "r1", clock: () => t++, ...opts });
  store.apply({ author: "user", update: { messages: [{ role: "user", content: "fetch three pages" }], run: { status: "running" } } });
  store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("c1"), call("c2"), call("c3")] }] } });
  return store;
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "stategate-"));
const view = (s) => JSON.stringify([s.version, s.systemView(), s.lastHash]);

test("events carry the envelope and chain; verifyLog names the first broken link", () => {
  const s = session();
  s.apply({ author: "tool", update: { messages: [result("c1")] } });
  const events = s.events();
  assert.deepEqual(events.map((e) => e.type), ["user_input", "tool_call", "tool_result"]);
  assert.equal(events[0].prev_hash, "0".repeat(64));
  assert.equal(events[1].prev_hash, events[0].hash);
  assert.equal(events[2].event_id, "r1:3");
  assert.equal(events[2].correlation_id, "c1");
  assert.equal(events[2].causation_id, "r1:2");
  assert.equal(events[0].created_at, 1_700_000_000_000);
  assert.deepEqual(verifyLog(events), { ok: true });
  assert.deepEqual(verifyLog(s.eventsJsonl()), { ok: true });
  const forged = structuredClone(events);
  forged[1].author = "mallory";
  assert.deepEqual(verifyLog(forged), { ok: false, index: 1, sequence: 2, reason: "hash" });
  assert.deepEqual(verifyLog([events[0], events[2]]), { ok: false, index: 1, sequence: 3, reason: "sequence" });
  assert.deepEqual(s.events({ since: 1, until: 2 }).map((e) => e.sequence), [2]);
  assert.deepEqual(s.events({ type: "tool_result" }).map((e) => e.sequence), [3]);
});

test("replay gives the same state and ids, twice; a tampered log is refused", () => {
  const s = session();
  const a = StateStore.replay(s.events());
  const b = StateStore.replay(s.eventsJsonl());
  assert.equal(view(a), view(s));
  assert.equal(view(b), view(s));
  assert.equal(a.get("messages")[0].id, "r1:1:0");
  const jsonl = s.eventsJsonl().replace("fetch three pages", "fetch four pages!");
  assert.throws(() => StateStore.replay(jsonl), (e) => e instanceof Error && e.code === "TAMPERED_LOG" && e.details.index === 0);
});

test("replay(jsonl) of a log of several MiB, read a piece at a time: the store replay(events) gives, and the line that breaks", () => {
  // Multi-byte text (2, 3 and 4 bytes a character, and a lone surrogate, stored as U+FFFD) at
  // every offset, so characters straddle the 1 MiB pieces the text is read in.
  const s = new StateStore({ runId: "big", clock: () => 1_700_000_000_000 });
  for (let i = 0; i < 3000; i++) {
    s.apply({ author: "user", update: { messages: [{ role: "user", content: "é€🎈".repeat(200 + (i % 7)) + (i % 500 === 0 ? "\ud800" : "") }] } });
  }
  const jsonl = s.eventsJsonl();
  assert.ok(Buffer.byteLength(jsonl) > 4 * 2 ** 20, `${Buffer.byteLength(jsonl)} bytes`);
  const fromText = StateStore.replay(jsonl);
  assert.equal(fromText.lastHash, s.lastHash);
  assert.equal(view(fromText), view(StateStore.replay(s.events())));
  assert.equal(fromText.version, 3000);
  // A line past the first pieces that is not an event: named by its line number, as a whole text.
  const lines = jsonl.split("\n");
  lines.splice(2500, 0, "", '{"event_id": 1}');
  assert.throws(() => StateStore.replay(lines.join("\n")), (e) => e.code === "TAMPERED_LOG" && e.details.index === 2500 && /: line 2502 of the log \(event 2500\)/.test(e.message));
});

test("at(sequence) is a read-only view of the past", () => {
  const s = session();
  const past = s.at(1);
  assert.equal(past.version, 1);
  assert.equal(past.get("messages").length, 1);
  assert.throws(() => past.apply({ author: "x", update: { facts: { a: 1 } } }), (e) => e.code === "READ_ONLY");
  assert.throws(() => s.at(9), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => s.at("1"), (e) => e.code === "INVALID_OPTION");
});

test("checkpoint bytes restore the store; flipped or unknown-version bytes are refused", () => {
  const s = session();
  const bytes = s.checkpoint();
  assert.ok(bytes instanceof Uint8Array);
  const r = StateStore.restore(bytes);
  assert.equal(view(r), view(s));
  const flipped = bytes.slice();
  flipped[Math.floor(flipped.length / 2)] ^= 1;
  assert.throws(() => StateStore.restore(flipped), (e) => e.code === "CORRUPT_CHECKPOINT");
  const v2 = JSON.parse(new TextDecoder().decode(bytes));
  v2.format_version = 2;
  assert.throws(() => StateStore.restore(new TextEncoder().encode(JSON.stringify(v2))), (e) => e.code === "UNSUPPORTED_FORMAT_VERSION");
  assert.throws(() => StateStore.restore(bytes.slice(0, 100)), (e) => e.code === "CORRUPT_CHECKPOINT");
});

test("private channels are in checkpoints, never in the export for transport; keys are claimed again", () => {
  const s = session();
  const key = s.registerChannel({ name: "memory_contents", reducer: "merge", visibility: "private", owner: "memory" });
  s.apply({ author: "memory", update: { memory_contents: { "AGENTS.md": "CANARY-77c1f0" } } });
  const exported = JSON.stringify(s.exportForTransport());
  assert.ok(!exported.includes("CANARY") && !exported.includes("memory_contents"));
  assert.ok(new TextDecoder().decode(s.checkpoint()).includes("CANARY-77c1f0"));
  assert.ok(!new TextDecoder().decode(s.checkpoint()).includes(key));
  const r = StateStore.restore(s.checkpoint());
  const k2 = r.claimOwnerKey("memory");
  assert.equal(r.private(k2).memory_contents["AGENTS.md"], "CANARY-77c1f0");
  assert.throws(() => r.claimOwnerKey("memory"), (e) => e.code === "NOT_OWNER");
});

test("FileLog: a crash after the first of three tool results keeps it and reports the others dangling", () => {
  const dir = tmp();
  const log = FileLog.open(dir);
  const s = session({ onEvents: (events) => log.append(events) });
  log.saveCheckpoint(s.checkpoint());
  s.apply({ author: "tool:c1", update: { messages: [result("c1")] } });
  log.close(); // the process dies here: c2 and c3 never ran to completion

  const again = FileLog.open(dir);
  const { checkpoint, events, torn } = again.load();
  assert.equal(torn, false);
  const r = StateStore.restore(checkpoint, events);
  assert.equal(r.version, 3);
  const dangling = r.danglingToolCalls();
  assert.deepEqual(dangling.map((d) => d.toolCallId), ["c2", "c3"]);
  const { report } = r.repair({ reasons: Object.fromEntries(dangling.map((d) => [d.toolCallId, "interrupted"])) });
  assert.deepEqual(report.map((f) => [f.kind, f.toolCallId]), [["interrupted", "c2"], ["interrupted", "c3"]]);
  const tools = r.get("messages").filter((m) => m.role === "tool");
  assert.deepEqual(tools.map((m) => [m.tool_call_id, m.status ?? "success"]), [["c2", "error"], ["c3", "error"], ["c1", "success"]]);
  assert.equal(tools[2].content, "page c1"); // the recorded result is kept, nothing re-run
  again.close();
});

test("FileLog: a torn last line is detected, dropped, and the intact prefix restores", () => {
  const dir = tmp();
  const log = FileLog.open(dir);
  const s = session({ onEvents: (events) => log.append(events) });
  s.apply({ author: "tool:c1", update: { messages: [result("c1")] } });
  log.close();
  const file = path.join(dir, "events.jsonl");
  const whole = fs.readFileSync(file, "utf8");
  const lines = whole.trimEnd().split("\n");
  assert.equal(lines.length, 3);
  fs.writeFileSync(file, lines.slice(0, 2).join("\n") + "\n" + lines[2].slice(0, 40)); // crash mid-write

  const again = FileLog.open(dir);
  const { checkpoint, events, torn } = again.load();
  assert.equal(torn, true);
  assert.equal(checkpoint, null);
  const r = StateStore.replay(events);
  assert.equal(r.version, 2);
  assert.equal(view(r), view(s.at(2)));
  assert.equal(fs.readFileSync(file, "utf8"), lines.slice(0, 2).join("\n") + "\n"); // truncated to the prefix
  // Appending continues the log cleanly.
  const live = StateStore.replay(events, { onEvents: (events) => again.append(events) });
  live.apply({ author: "tool:c1", update: { messages: [result("c1")] } });
  again.close();
  assert.equal(view(StateStore.replay(FileLog.open(dir).load().events)), view(live));
});

test("onEvents is write-ahead: when it throws, the command is rolled back; audit sees refusals", () => {
  const refused = [];
  let fail = false;
  const s = session({
    onEvents: () => {
      if (fail) throw new Error("disk full");
    },
    audit: (r) => refused.push(r),
  });
  const before = view(s);
  fail = true;
  assert.throws(() => s.apply({ author: "tool", update: { messages: [result("c1")] } }), (e) => e.code === "STORAGE_ERROR" && /disk full/.test(e.message));
  assert.equal(view(s), before);
  fail = false;
  assert.throws(() => s.apply({ author: "tool", update: { messages: [result("zz")] } }), (e) => e.code === "UNKNOWN_TOOL_CALL");
  assert.deepEqual(refused.map((r) => [r.author, r.code, r.channels]), [["tool", "STORAGE_ERROR", ["messages"]], ["tool", "UNKNOWN_TOOL_CALL", ["messages"]]]);
  assert.equal(s.events().length, 2);
});
