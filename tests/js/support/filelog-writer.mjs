// The child process of tests/js/filelog-kill.test.mjs: a writer that the test kills with SIGKILL.
//
//   node filelog-writer.mjs <dir> <seed> <iteration> [big]
//
// Opens the FileLog in <dir> (resuming it when it holds a log: restore from the checkpoint, or
// replay), then applies changes until killed — single `apply`s of messages and facts, and
// `applyBatch`es of 2–3 commands — and saves a checkpoint every ~25 changes. With `big`, tool
// result batches carry large results (0.1–0.5 MB each: a long write, which a SIGKILL can cut
// short — Linux stops a buffered write between pages when a fatal signal is pending).
//
// It reports on stdout, one line each, written synchronously (fs.writeSync) so that a line
// printed is a line the parent reads even if the kill follows at once:
//   R <version> <lastHash>          resumed (or started), ready
//   P <size> <tag> [big]            about to apply a change of <size> events (tag: batch id or -)
//   W <size> <bytes>                onEvents is about to append the change's events to the log,
//                                   which now holds <bytes> bytes
//   A <version> <lastHash>          that change was acknowledged (apply / applyBatch returned)
//   C <version>                     a checkpoint of <version> was saved (saveCheckpoint returned)
//   E <message>                     an unexpected error (then exits 1)
// Every command of a batch carries correlationId `B:<iteration>:<n>:<k>/<size>` so the parent
// can check that each batch is in the log whole or not at all.

import fs from "node:fs";
import path from "node:path";
import { StateStore } from "../../../pkg/index.js";
import { FileLog } from "../../../pkg/file-log.js";
import { mulberry32 } from "../../support/prng.mjs";

const [dir, seedArg, iterArg, mode] = process.argv.slice(2);
const iter = Number(iterArg);
const rand = mulberry32(Number(seedArg) >>> 0);
const big = mode === "big";
const MAX_CHANGES = 5000; // a bound only; the parent kills the child long before

function say(line) {
  const buf = Buffer.from(line + "\n");
  let off = 0;
  while (off < buf.length) {
    try {
      off += fs.writeSync(1, buf, off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
    }
  }
}

const int = (n) => Math.floor(rand() * n);
const text = (n) => {
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];
  let s = "";
  while (s.length < n) s += words[int(words.length)] + " ";
  return s.slice(0, n);
};

try {
  const log = FileLog.open(dir);
  // Announces the write-ahead append (the moment a kill can cut the write) before making it. With
  // `big`, the events go as JSON Lines (append takes both), encoded before the announcement, so
  // the parent's kill after "W" lands closer to the write.
  const onEvents = (events) => {
    const payload = big ? events.map((e) => JSON.stringify(e) + "\n").join("") : events;
    say(`W ${events.length} ${fs.statSync(path.join(dir, "events.jsonl")).size}`);
    log.append(payload);
  };
  let store;
  if (fs.existsSync(path.join(dir, "events.jsonl")) && fs.statSync(path.join(dir, "events.jsonl")).size > 0) {
    const { checkpoint, events } = log.load();
    store = checkpoint ? StateStore.restore(checkpoint, events, { onEvents }) : StateStore.replay(events, { onEvents });
  } else {
    store = new StateStore({ runId: "r1", onEvents });
  }
  say(`R ${store.version} ${store.lastHash}`);

  let sinceCheckpoint = 0;
  for (let n = 0; n < MAX_CHANGES; n++) {
    const dangling = store.danglingToolCalls();
    const tag = `B:${iter}:${n}`;
    const batch = (cmds) => cmds.map((c, k) => ({ ...c, correlationId: `${tag}:${k}/${cmds.length}` }));
    const result = (id, size) => ({
      author: `tool:${id}`,
      update: { messages: [{ role: "tool", tool_call_id: id, content: `result of ${id}: ${text(size)}` }], facts: { [`last_${int(5)}`]: id } },
    });
    let change; // { cmds, batch: boolean }
    if (dangling.length > 0) {
      if (dangling.length >= 2 && rand() < 0.75) {
        const k = Math.min(dangling.length, 2 + int(2));
        const size = () => (big ? 500_000 + int(1_000_000) : rand() < 0.1 ? 8_000 + int(24_000) : 20 + int(200));
        change = { cmds: batch(dangling.slice(0, k).map((d) => result(d.toolCallId, size()))), batch: true };
      } else {
        change = { cmds: [result(dangling[0].toolCallId, 20 + int(200))], batch: false };
      }
    } else {
      const r = rand();
      if (store.version === 0 || r < 0.25) {
        const update = { messages: [{ role: "user", content: `question ${iter}.${n}: ${text(10 + int(80))}` }] };
        if (store.version === 0) update.run = { status: "running" };
        change = { cmds: [{ author: "user", update }], batch: false };
      } else if (r < 0.6) {
        const calls = Array.from({ length: 1 + int(3) }, (_, k) => ({
          id: `c${iter}_${n}_${k}`,
          type: "function",
          function: { name: "lookup", arguments: JSON.stringify({ q: text(5 + int(20)) }) },
        }));
        change = { cmds: [{ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: calls }] } }], batch: false };
      } else if (r < 0.7) {
        change = { cmds: [{ author: "model", update: { messages: [{ role: "assistant", content: text(20 + int(200)) }] } }], batch: false };
      } else if (r < 0.9) {
        const k = 2 + int(2);
        const cmds = Array.from({ length: k }, (_, j) => ({ author: `worker${j}`, update: { facts: { [`w${j}_${int(4)}`]: text(5 + int(40)) } } }));
        change = { cmds: batch(cmds), batch: true };
      } else {
        change = { cmds: [{ author: "ui", expectedVersion: store.version, update: { facts: { [`f${int(8)}`]: n } } }], batch: false };
      }
    }
    say(`P ${change.cmds.length} ${change.batch ? tag : "-"}${big && change.batch && dangling.length ? " big" : ""}`);
    if (change.batch) store.applyBatch(change.cmds);
    else store.apply(change.cmds[0]);
    say(`A ${store.version} ${store.lastHash}`);

    sinceCheckpoint += change.cmds.length;
    if (sinceCheckpoint >= 23 + int(5)) {
      log.saveCheckpoint(store.checkpoint());
      say(`C ${store.version}`);
      sinceCheckpoint = 0;
    }
  }
  say("D");
} catch (e) {
  say(`E ${e?.code ?? ""} ${String(e?.message ?? e).replace(/\n/g, " ")}`);
  process.exit(1);
}
