// The random LangChain histories of the differential test (tests/js/differential.test.mjs), shared
// with the skeleton test (tests/js/skeleton.test.mjs). A history is a list of neutral specs:
//   {kind:"human", id, content} | {kind:"ai", id, content, calls:[{id,name,args}]}
//   | {kind:"tool", id, callId, name, content}
// plus the features that actually occurred (dangling, late, orphan, duplicate, early, parallel).

const TOOL_NAMES = ["read_file", "ls", "grep", "write_todos", "search", "get_weather"];

export function generateHistory(rand, n) {
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const chance = (p) => rand() < p;
  // Which defects this history may contain (about 1 in 5 histories gets none of them).
  const allow = {
    late: chance(0.35),
    orphan: chance(0.35),
    duplicate: chance(0.35),
    early: chance(0.2),
  };
  const features = { dangling: 0, late: 0, orphan: 0, duplicate: 0, early: 0, parallel: 0 };
  const specs = [];
  let msgSeq = 0;
  let callSeq = 0;
  let orphanSeq = 0;
  const mid = () => `h${n}-m${msgSeq++}`;
  let pendingLate = []; // results to emit after the next human message
  const emitPendingLate = () => {
    for (const r of pendingLate) specs.push(r);
    pendingLate = [];
  };
  const maybeOrphan = () => {
    if (allow.orphan && chance(0.15)) {
      features.orphan++;
      specs.push({ kind: "tool", id: mid(), callId: `orphan-${n}-${orphanSeq++}`, name: pick(TOOL_NAMES), content: "orphan result" });
    }
  };

  const turns = 1 + Math.floor(rand() * 6);
  for (let t = 0; t < turns; t++) {
    maybeOrphan();
    specs.push({ kind: "human", id: mid(), content: `user turn ${t}` });
    if (pendingLate.length && chance(0.7)) emitPendingLate(); // right after the user message
    maybeOrphan();
    const steps = 1 + Math.floor(rand() * 3);
    for (let s = 0; s < steps; s++) {
      const nCalls = chance(0.25) ? 0 : 1 + Math.floor(rand() * 3);
      if (nCalls === 0) {
        specs.push({ kind: "ai", id: mid(), content: `answer ${t}.${s}`, calls: [] });
        maybeOrphan();
        continue;
      }
      if (nCalls > 1) features.parallel++;
      const calls = [];
      for (let c = 0; c < nCalls; c++) {
        calls.push({ id: `call-${n}-${callSeq++}`, name: pick(TOOL_NAMES), args: { q: c, t } });
      }
      // Decide each call's fate.
      const block = []; // results right after the AI message
      const early = []; // results placed before the AI message
      for (const call of calls) {
        const result = () => ({ kind: "tool", id: mid(), callId: call.id, name: call.name, content: `result of ${call.id}` });
        const r = rand();
        if (r < 0.3) {
          features.dangling++;
        } else if (allow.late && r < 0.45) {
          features.late++;
          pendingLate.push(result());
        } else if (allow.early && r < 0.55) {
          features.early++;
          early.push(result());
        } else {
          block.push(result());
          if (allow.duplicate && chance(0.25)) {
            features.duplicate++;
            const dup = { kind: "tool", id: mid(), callId: call.id, name: call.name, content: `duplicate of ${call.id}` };
            if (chance(0.5)) block.push(dup);
            else pendingLate.push(dup);
          }
        }
      }
      // Parallel results may come back in any order.
      for (let i = block.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [block[i], block[j]] = [block[j], block[i]];
      }
      for (const e of early) specs.push(e);
      specs.push({ kind: "ai", id: mid(), content: chance(0.5) ? "" : `calling tools ${t}.${s}`, calls });
      for (const b of block) specs.push(b);
      maybeOrphan();
    }
  }
  if (pendingLate.length) {
    specs.push({ kind: "human", id: mid(), content: "one more thing" });
    emitPendingLate();
  }
  maybeOrphan();
  return { specs, features };
}

/** The plain LangChain dict of a spec. */
export function toDict(s) {
  if (s.kind === "human") return { type: "human", content: s.content, id: s.id };
  if (s.kind === "ai") {
    return {
      type: "ai",
      content: s.content,
      id: s.id,
      tool_calls: s.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
    };
  }
  return { type: "tool", content: s.content, id: s.id, tool_call_id: s.callId, name: s.name };
}

