// Differential test: the messages channel of stategate's `StateStore` vs LangGraph's
// `messagesStateReducer` (@langchain/langgraph, the JS `add_messages`).
//
// 1,000 random sequences of updates from a seeded PRNG (deterministic). Each update is a list of
// 1–3 ops among: append (a new given id, or no id), replace-same-id (a message carrying the id of
// a message already there — given or generated — or appended earlier in the same update), remove
// (an id that is there), remove-all. Messages are plain human / ai text messages. Every update is
// applied to a fresh-per-sequence store as LangChain dicts (`{type, content, id?}`, `{remove: id}`
// or `{type: "remove", id}`, `{removeAll: true}` or `{type: "remove", id: "__remove_all__"}`) and
// to `messagesStateReducer` as HumanMessage / AIMessage / RemoveMessage instances
// (REMOVE_ALL_MESSAGES). Results are compared as (role, content, id when the generator gave one)
// sequences; a message without a given id is targeted by its position in the list, with each
// side's own id.
//
// Documented differences from LangGraph (counted, not failures):
//   * duplicate ids after a remove-all in one update: LangGraph returns the ops after the last
//     remove-all verbatim, so a message and its later same-id replacement are both kept; the store
//     applies add_messages semantics to them (the later one replaces the earlier in place).
//   * a remove after a remove-all in one update: LangGraph keeps the RemoveMessage itself in the
//     returned list (and the message it names); the store removes the message.
//   * ids generated for messages without one are deterministic (per run) instead of uuid4.
// In those classified updates the store must still follow its own documented semantics, checked
// against a small reference model (add_messages with deferred removal and in-place replacement,
// remove-all clearing everything before it). After a classified update, LangGraph's state is
// re-seeded from the store's so the sequence can go on.
//
// Also: removes of unknown ids (never seen, or removed in an earlier update), in updates without
// a remove-all: both sides must throw an Error, the store with UNKNOWN_MESSAGE_ID and unchanged
// (version, messages, events). Every 50th sequence is replayed on a new store with the same runId
// to check that generated ids are deterministic.
//
// The counts are written to test-results/store-differential-summary.json.
//
// Run: node --test tests/js/store-differential.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HumanMessage, AIMessage, RemoveMessage } from "@langchain/core/messages";
import { messagesStateReducer, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { StateStore } from "../../pkg/index.js";
import { mulberry32 } from "../support/prng.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SEED = 0x5eed57a7;
const N_SEQUENCES = 1000;
const REPLAY_EVERY = 50;

// ---------------------------------------------------------------------------------------------
// Ops. A neutral op is one of
//   {kind: "append", role, content, id?}            (id: given by the generator, or none)
//   {kind: "replace", role, content, target}        (a message carrying an existing id)
//   {kind: "remove", target}
//   {kind: "removeAll"}
//   {kind: "removeUnknown", id}
// where target = {ours, theirs, given} holds each side's id of the targeted message.
// `style` picks the spelling of removes on our side: "ours" ({remove}, {removeAll}) or "lc"
// ({type: "remove", id}).

function toOurOp(op, style) {
  switch (op.kind) {
    case "append":
      return op.id === undefined ? { type: op.role, content: op.content } : { type: op.role, content: op.content, id: op.id };
    case "replace":
      return { type: op.role, content: op.content, id: op.target.ours };
    case "remove":
      return style === "lc" ? { type: "remove", id: op.target.ours } : { remove: op.target.ours };
    case "removeAll":
      return style === "lc" ? { type: "remove", id: REMOVE_ALL_MESSAGES } : { removeAll: true };
    case "removeUnknown":
      return style === "lc" ? { type: "remove", id: op.id } : { remove: op.id };
  }
  throw new Error(`bad op ${op.kind}`);
}

function toTheirOp(op) {
  const Msg = (role) => (role === "human" ? HumanMessage : AIMessage);
  switch (op.kind) {
    case "append":
      return op.id === undefined ? new (Msg(op.role))({ content: op.content }) : new (Msg(op.role))({ content: op.content, id: op.id });
    case "replace":
      return new (Msg(op.role))({ content: op.content, id: op.target.theirs });
    case "remove":
      return new RemoveMessage({ id: op.target.theirs });
    case "removeAll":
      return new RemoveMessage({ id: REMOVE_ALL_MESSAGES });
    case "removeUnknown":
      return new RemoveMessage({ id: op.id });
  }
  throw new Error(`bad op ${op.kind}`);
}

// ---------------------------------------------------------------------------------------------
// Generator of one update, given both sides' current lists (which agree as signatures).
function generateUpdate(rand, ctx, ours, theirs) {
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const chance = (p) => rand() < p;
  const role = () => (chance(0.5) ? "human" : "ai");
  const content = () => `c${ctx.n}.${ctx.u}.${ctx.k++}`;

  // Targets: messages in the list before the update, plus messages with a given id appended
  // earlier in this update. `present` = not removed so far in this update.
  let pool = ours.map((m, i) => ({ ours: m.id, theirs: theirs[i].id, given: ctx.given.has(m.id) ? m.id : undefined, present: true }));
  // About 1 update in 25: remove-all, then a message and an op on the same id, in one update
  // (the cases where LangGraph's semantics differ; too rare to show up by chance otherwise).
  if (chance(0.04)) {
    const id = `s${ctx.n}-m${ctx.idSeq++}`;
    ctx.given.add(id);
    const t = { ours: id, theirs: id, given: id, present: true };
    const last = chance(0.5) ? { kind: "replace", role: role(), content: content(), target: t } : { kind: "remove", target: t };
    return [{ kind: "removeAll" }, { kind: "append", role: role(), content: content(), id }, last];
  }
  const nOps = 1 + Math.floor(rand() * 3);
  const ops = [];
  for (let k = 0; k < nOps; k++) {
    const r = rand();
    const present = pool.filter((t) => t.present);
    if (r < 0.4 || pool.length === 0) {
      if (chance(0.6)) {
        const id = `s${ctx.n}-m${ctx.idSeq++}`;
        ctx.given.add(id);
        ops.push({ kind: "append", role: role(), content: content(), id });
        pool.push({ ours: id, theirs: id, given: id, present: true });
      } else {
        ops.push({ kind: "append", role: role(), content: content() });
      }
    } else if (r < 0.65) {
      const t = pick(pool);
      ops.push({ kind: "replace", role: role(), content: content(), target: t });
      t.present = true;
    } else if (r < 0.88 && present.length > 0) {
      const t = pick(present);
      ops.push({ kind: "remove", target: t });
      t.present = false;
    } else if (r >= 0.88 && chance(0.5)) {
      ops.push({ kind: "removeAll" });
      pool = [];
    } else {
      const id = `s${ctx.n}-m${ctx.idSeq++}`;
      ctx.given.add(id);
      ops.push({ kind: "append", role: role(), content: content(), id });
      pool.push({ ours: id, theirs: id, given: id, present: true });
    }
  }
  // Sometimes: a remove of an unknown id, in an update without a remove-all.
  if (!ops.some((o) => o.kind === "removeAll") && chance(0.08)) {
    const gone = [...ctx.removedGiven].filter((id) => !ops.some((o) => o.id === id || o.target?.given === id));
    const id = gone.length > 0 && chance(0.5) ? pick(gone) : `ghost-${ctx.n}-${ctx.u}`;
    ops.splice(Math.floor(rand() * (ops.length + 1)), 0, { kind: "removeUnknown", id });
  }
  return ops;
}

/** Differing-semantics class of an update, or null. */
function classify(ops) {
  const last = ops.findLastIndex((o) => o.kind === "removeAll");
  if (last === -1) return null;
  const after = ops.slice(last + 1);
  if (after.some((o) => o.kind === "remove")) return "remove_after_remove_all";
  const ids = after.filter((o) => o.kind === "replace" || (o.kind === "append" && o.id !== undefined)).map((o) => (o.kind === "replace" ? o.target.ours : o.id));
  if (new Set(ids).size !== ids.length) return "duplicate_after_remove_all";
  return null;
}

// The store's documented semantics, on our side's ids. Messages without an id get id undefined.
function model(list, ops) {
  let out = list.map((m) => ({ role: m.role, content: m.content, id: m.id }));
  let removed = new Set();
  for (const op of ops) {
    if (op.kind === "removeAll") {
      out = [];
      removed = new Set();
    } else if (op.kind === "remove") {
      if (!out.some((m) => m.id === op.target.ours)) throw new Error(`model: unknown id ${op.target.ours}`);
      removed.add(op.target.ours);
    } else {
      const id = op.kind === "replace" ? op.target.ours : op.id;
      const msg = { role: op.role === "human" ? "user" : "assistant", content: op.content, id };
      const i = id === undefined ? -1 : out.findIndex((m) => m.id === id);
      if (i === -1) out.push(msg);
      else {
        out[i] = msg;
        removed.delete(id);
      }
    }
  }
  return out.filter((m) => m.id === undefined || !removed.has(m.id));
}

// ---------------------------------------------------------------------------------------------
// Signatures
const theirRole = (m) => {
  const t = m.getType();
  return t === "human" ? "user" : t === "ai" ? "assistant" : t;
};
const shown = (id, given) => (given.has(id) ? id : "-");
const ourSig = (list, given) => list.map((m) => `${m.role}|${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}|${shown(m.id, given)}`).join("\n");
const theirSig = (list, given) => list.map((m) => `${theirRole(m)}|${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}|${shown(m.id, given)}`).join("\n");
const modelSig = (list, given) => list.map((m) => `${m.role}|${m.content}|${m.id === undefined ? "-" : shown(m.id, given)}`).join("\n");
const opsText = (ops) => ops.map((o) => (o.target ? { ...o, target: { ours: o.target.ours, theirs: o.target.theirs } } : o));

// ---------------------------------------------------------------------------------------------
test(`store messages channel vs LangGraph messagesStateReducer on ${N_SEQUENCES} random sequences`, () => {
  const rand = mulberry32(SEED);
  const summary = {
    seed: `0x${SEED.toString(16)}`,
    sequences: N_SEQUENCES,
    updates: 0,
    ops: { append_with_id: 0, append_without_id: 0, replace_same_id: 0, replace_generated_id: 0, remove: 0, remove_generated_id: 0, remove_all: 0, langchain_remove_spelling: 0 },
    agree: { updates: 0, with_remove_all: 0, remove_then_readd_in_place: 0, max_list_length: 0 },
    differences: {
      duplicate_after_remove_all: { updates: 0, langgraph_differed: 0, store_matches_model: 0 },
      remove_after_remove_all: { updates: 0, langgraph_differed: 0, store_matches_model: 0 },
    },
    unknown_remove: { updates: 0, store_threw_unknown_message_id: 0, langgraph_threw: 0, store_unchanged: 0 },
    id_checks: { generated_ids: 0, ids_result_checked: 0 },
    determinism_replays: { sequences: 0, identical: 0 },
    disagreements: 0,
    model_mismatches: 0,
  };
  const failures = [];
  const fail = (kind, info) => {
    if (failures.length < 5) failures.push({ kind, ...info });
  };

  for (let n = 0; n < N_SEQUENCES; n++) {
    const runId = `diff-${n}`;
    const store = new StateStore({ runId });
    let theirs = [];
    const ctx = { n, u: 0, k: 0, idSeq: 0, given: new Set(), removedGiven: new Set() };
    const applied = []; // our-side commands, for the replay
    const nUpdates = 1 + Math.floor(rand() * 8);

    for (let u = 0; u < nUpdates; u++) {
      ctx.u = u;
      summary.updates++;
      const ours = store.get("messages");
      const ops = generateUpdate(rand, ctx, ours, theirs);
      const style = rand() < 0.25 ? "lc" : "ours";
      const ourOps = ops.map((o) => toOurOp(o, style));
      const theirOps = ops.map(toTheirOp);
      for (const o of ops) {
        if (o.kind === "append") summary.ops[o.id === undefined ? "append_without_id" : "append_with_id"]++;
        else if (o.kind === "replace") summary.ops[o.target.given ? "replace_same_id" : "replace_generated_id"]++;
        else if (o.kind === "remove") summary.ops[o.target.given ? "remove" : "remove_generated_id"]++;
        else if (o.kind === "removeAll") summary.ops.remove_all++;
        if (style === "lc" && o.kind.startsWith("remove")) summary.ops.langchain_remove_spelling++;
      }
      const where = { n, u, runId, before: ours.map((m) => [m.role, m.content, m.id]), ops: opsText(ops), ourOps };

      // Unknown-id removes: both sides throw; the store is unchanged.
      if (ops.some((o) => o.kind === "removeUnknown")) {
        summary.unknown_remove.updates++;
        const before = JSON.stringify({ v: store.version, m: store.get("messages"), e: store.events(), view: store.systemView() });
        let ourErr;
        try {
          store.apply({ author: "diff", update: { messages: ourOps } });
        } catch (e) {
          ourErr = e;
        }
        let theirErr;
        try {
          messagesStateReducer(theirs, theirOps);
        } catch (e) {
          theirErr = e;
        }
        if (ourErr instanceof Error && ourErr.code === "UNKNOWN_MESSAGE_ID") summary.unknown_remove.store_threw_unknown_message_id++;
        else fail("unknown remove: store did not throw UNKNOWN_MESSAGE_ID", { ...where, got: ourErr ? `${ourErr.code}: ${ourErr.message}` : "no error" });
        if (theirErr instanceof Error) summary.unknown_remove.langgraph_threw++;
        else fail("unknown remove: LangGraph did not throw", where);
        const after = JSON.stringify({ v: store.version, m: store.get("messages"), e: store.events(), view: store.systemView() });
        if (after === before) summary.unknown_remove.store_unchanged++;
        else fail("unknown remove: store changed", where);
        continue;
      }

      let result;
      try {
        result = store.apply({ author: "diff", update: { messages: ourOps } });
      } catch (e) {
        summary.disagreements++;
        fail("store threw", { ...where, error: `${e.code}: ${e.message}` });
        break;
      }
      applied.push(ourOps);
      const next = messagesStateReducer(theirs, theirOps); // valid input by construction: never throws
      const oursAfter = store.get("messages");
      const expected = model(ours, ops);
      const cls = classify(ops);

      // The store against its own documented semantics (every update).
      const matchesModel = ourSig(oursAfter, ctx.given) === modelSig(expected, ctx.given) && oursAfter.length === expected.length;
      if (!matchesModel) {
        summary.model_mismatches++;
        fail("store differs from its documented semantics", { ...where, cls, ours: ourSig(oursAfter, ctx.given), model: modelSig(expected, ctx.given) });
      }
      // Ids: every message has a distinct non-empty id; given ids are kept; `ids` names the
      // messages written, in order.
      const ids = oursAfter.map((m) => m.id);
      if (!ids.every((id) => typeof id === "string" && id.length > 0) || new Set(ids).size !== ids.length) {
        summary.disagreements++;
        fail("bad ids in the store", { ...where, ids });
      }
      const written = ops.filter((o) => o.kind === "append" || o.kind === "replace");
      if (!ops.some((o) => o.kind === "removeAll")) {
        summary.id_checks.ids_result_checked++;
        const want = written.map((o) => (o.kind === "replace" ? o.target.ours : o.id));
        const okLen = Array.isArray(result.ids) && result.ids.length === want.length;
        const okIds = okLen && want.every((id, i) => id === undefined ? typeof result.ids[i] === "string" && result.ids[i].length > 0 : result.ids[i] === id);
        if (!okIds) {
          summary.disagreements++;
          fail("apply() ids do not name the written messages in order", { ...where, want, got: result.ids });
        }
        summary.id_checks.generated_ids += want.filter((id) => id === undefined).length;
      }

      const a = ourSig(oursAfter, ctx.given);
      const b = theirSig(next, ctx.given);
      if (cls) {
        const d = summary.differences[cls];
        d.updates++;
        if (a !== b) d.langgraph_differed++;
        if (matchesModel) d.store_matches_model++;
        // Re-seed LangGraph from the store so the sequence can go on with equal states.
        theirs = oursAfter.map((m) => new (m.role === "user" ? HumanMessage : AIMessage)({ content: m.content, id: m.id }));
      } else {
        if (a === b) {
          summary.agree.updates++;
          if (ops.some((o) => o.kind === "removeAll")) summary.agree.with_remove_all++;
          const removedThenReadded = ops.some((o, i) => o.kind === "remove" && ops.slice(i + 1).some((p) => p.kind === "replace" && p.target === o.target));
          if (removedThenReadded) summary.agree.remove_then_readd_in_place++;
        } else {
          summary.disagreements++;
          fail("store and LangGraph disagree", { ...where, ours: a, langgraph: b });
          break; // the lists no longer line up by position
        }
        theirs = next;
      }
      summary.agree.max_list_length = Math.max(summary.agree.max_list_length, oursAfter.length);
      // Track given ids that are gone (for unknown-id removes later).
      const now = new Set(ids);
      for (const id of ctx.given) if (!now.has(id)) ctx.removedGiven.add(id);
      for (const id of now) ctx.removedGiven.delete(id);
    }

    // Determinism: the same commands on a new store with the same runId give the same messages,
    // generated ids included.
    if (n % REPLAY_EVERY === 0) {
      summary.determinism_replays.sequences++;
      const replay = new StateStore({ runId });
      try {
        for (const ourOps of applied) replay.apply({ author: "diff", update: { messages: ourOps } });
        if (JSON.stringify(replay.get("messages")) === JSON.stringify(store.get("messages"))) summary.determinism_replays.identical++;
        else fail("replay differs", { n, ours: store.get("messages"), replay: replay.get("messages") });
      } catch (e) {
        fail("replay threw", { n, error: `${e.code}: ${e.message}` });
      }
      replay.free();
    }
    store.free();
  }

  fs.mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
  fs.writeFileSync(path.join(ROOT, "test-results/store-differential-summary.json"), JSON.stringify({ ...summary, first_failures: failures }, null, 2) + "\n");

  const detail = () => JSON.stringify(failures, null, 2);
  assert.equal(summary.disagreements, 0, `disagreements; first ones:\n${detail()}`);
  assert.equal(summary.model_mismatches, 0, `store differs from its documented semantics; first ones:\n${detail()}`);
  assert.equal(summary.unknown_remove.store_threw_unknown_message_id, summary.unknown_remove.updates, `unknown removes:\n${detail()}`);
  assert.equal(summary.unknown_remove.langgraph_threw, summary.unknown_remove.updates, `unknown removes:\n${detail()}`);
  assert.equal(summary.unknown_remove.store_unchanged, summary.unknown_remove.updates, `unknown removes:\n${detail()}`);
  assert.equal(summary.determinism_replays.identical, summary.determinism_replays.sequences, `replays:\n${detail()}`);
  for (const [cls, d] of Object.entries(summary.differences)) {
    assert.equal(d.store_matches_model, d.updates, `${cls}: the store must follow its own semantics`);
  }
  // The generator really exercises every case.
  assert.ok(summary.agree.updates >= 2000, `only ${summary.agree.updates} agreeing updates`);
  assert.ok(summary.agree.with_remove_all >= 100, `only ${summary.agree.with_remove_all} agreeing updates with a remove-all`);
  assert.ok(summary.agree.remove_then_readd_in_place >= 20, `only ${summary.agree.remove_then_readd_in_place} remove-then-re-add updates`);
  assert.ok(summary.ops.replace_generated_id >= 100 && summary.ops.remove_generated_id >= 100, "ops on generated ids");
  for (const [cls, d] of Object.entries(summary.differences)) assert.ok(d.updates >= 10, `only ${d.updates} ${cls} updates`);
  assert.ok(summary.unknown_remove.updates >= 50, `only ${summary.unknown_remove.updates} unknown-id removes`);
});
