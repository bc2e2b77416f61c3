// Two instances of the module in one process (a second glue module, at another URL, shares
// the first's JS snippets): each instance's commands are read, and its events hashed, in its own
// memory. Found in this stop: the host SHA-256 hashed one instance's events in the other's memory
// (its hashes came out all zeros), and the plain-append reader wrote one instance's command into
// the other's. In a file of its own: the memories must be small and alike when the second one
// comes, as in a process that has done little yet (a larger first memory had hidden the first bug).
import test from "node:test";
import assert from "node:assert/strict";
import { StateStore } from "../../pkg/index.js";

const CLOCK = () => 1_700_000_000_000;

test("two instances of the module in one process: each reads commands and hashes events in its own memory", async () => {
  // A second glue module (another URL) shares the JS snippets of the first: what a snippet is
  // handed must come from the instance that calls it. The two write different commands (their
  // memories must not hold the same bytes at the same places), interleaved.
  const commands = (who, n) =>
    Array.from({ length: n }, (_, i) => ({
      author: `${who}${i}`,
      update: { messages: [{ role: i % 2 ? "assistant" : "user", content: `${who} says ${i}: ` + "a message the host hashes ".repeat(10 + i * (who === "a" ? 3 : 7)) }] },
    }));
  const [ours, theirs] = [commands("a", 6), commands("bb", 6)];
  const view = (s) => [s.lastHash, s.eventsJsonl(), JSON.stringify(s.toJSON())];
  const alone = (cmds) => {
    const s = new StateStore({ runId: "two", clock: CLOCK });
    for (const c of cmds) s.apply(c);
    const v = view(s);
    s.free();
    return v;
  };
  // What each gives in this instance before the other exists.
  const expected = [alone(ours), alone(theirs)];
  const fs = await import("node:fs");
  const crypto = await import("node:crypto");
  const other = await import(new URL("../../pkg/stategate_wasm.js?second-instance", import.meta.url).href);
  other.initSync({ module: fs.readFileSync(new URL("../../pkg/stategate_wasm_bg.wasm", import.meta.url)) });
  assert.equal(other.useHostSha256((b) => crypto.hash("sha256", b, "latin1")), true);
  const stores = [new StateStore({ runId: "two", clock: CLOCK }), new other.StateStore({ runId: "two", clock: CLOCK })];
  for (let i = 0; i < 6; i++) {
    stores[0].apply(ours[i]);
    stores[1].apply(theirs[i]);
  }
  assert.deepEqual(view(stores[0]), expected[0], "this instance");
  assert.deepEqual(view(stores[1]), expected[1], "the other instance");
  assert.deepEqual(alone(ours), expected[0], "this instance, alone again");
  for (const s of stores) s.free();
});
