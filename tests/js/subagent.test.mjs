// Sync subagents and multi-agent views through the package (issue 7): the child's filtered
// input, the write-back of only its final answer and changed channels, parallel subagents in
// one superstep, a canary that must not cross back, fork mode, and handoff views.
import { test } from "node:test";
import assert from "node:assert/strict";
import { StateStore, subagentInput, subagentResult } from "../../pkg/index.js";

function parent() {
  const p = new StateStore({ runId: "parent" });
  const skillsKey = p.registerChannel({ name: "skills_metadata", reducer: "replace", visibility: "private", owner: "skills" });
  p.apply({ author: "skills", update: { skills_metadata: ["lead"] } });
  p.apply({
    author: "app",
    update: {
      files: { "plan.md": "v1" },
      todos: [{ content: "ship", status: "pending" }],
      messages: [
        { role: "user", content: "Research A and B." },
        { type: "ai", content: "", tool_calls: [{ id: "task_a", name: "task", args: { description: "A", subagent_type: "a" } }, { id: "task_b", name: "task", args: { description: "B", subagent_type: "b" } }] },
      ],
    },
  });
  return { p, skillsKey };
}

function run(child, name, canary = "nothing") {
  child.registerChannel({ name: "skills_metadata", reducer: "replace", visibility: "private", owner: "skills" });
  child.apply({ author: "skills", update: { skills_metadata: [`skill-${name}`] } });
  child.apply({ author: "model", update: { messages: [{ type: "ai", content: "", tool_calls: [{ id: `${name}1`, name: "search", args: { token: canary } }] }] } });
  child.apply({ author: "tool", update: { messages: [{ type: "tool", tool_call_id: `${name}1`, content: `result for ${canary}` }], files: { [`${name}.md`]: `notes ${name}` } } });
  child.apply({ author: "model", update: { messages: [{ type: "ai", content: ` Done with ${name}. ` }] } });
}

test("the child starts from the shared channels and the description only", () => {
  const { p } = parent();
  const child = subagentInput(p, { description: "research A", agent: "a" });
  const view = child.systemView();
  assert.deepEqual(view.files, { "plan.md": "v1" });
  assert.deepEqual(view.todos, []);
  assert.equal(view.skills_metadata, undefined);
  assert.deepEqual(child.messages("openai"), [{ role: "user", content: "research A" }]);
  assert.equal(child.runId, "parent/a");
  assert.throws(() => subagentInput(p, { description: " " }), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => subagentInput(p, { description: "x", allow: ["skills_metadata"] }), (e) => e.code === "INVALID_OPTION" && !e.message.includes("lead"));
  assert.throws(() => subagentInput(p, { description: "x", colour: 1 }), (e) => e.code === "INVALID_OPTION");
});

test("two subagents in one superstep: two tool results, the parent's private skills untouched, no conflict", () => {
  const { p, skillsKey } = parent();
  const a = subagentInput(p, { description: "A", agent: "a" });
  const b = subagentInput(p, { description: "B", agent: "b" });
  run(a, "a");
  run(b, "b");
  const out = p.applyBatch([subagentResult(a, "task_a"), subagentResult(b, "task_b")]);
  assert.equal(out.ids.length, 2);
  assert.deepEqual(p.private(skillsKey).skills_metadata, ["lead"]);
  const results = p.messages("langchain").filter((m) => m.type === "tool").map((m) => [m.tool_call_id, m.content, m.name]);
  assert.deepEqual(results, [["task_a", "Done with a.", "task"], ["task_b", "Done with b.", "task"]]);
  assert.deepEqual(p.get("files"), { "plan.md": "v1", "a.md": "notes a", "b.md": "notes b" });
});

test("a canary in a child's inner tool call reaches nothing of the parent", () => {
  const canary = "CANARY-0b5d-never-cross";
  const { p, skillsKey } = parent();
  const a = subagentInput(p, { description: "A", agent: "a" });
  run(a, "a", canary);
  const cmd = subagentResult(a, "task_a");
  assert.ok(!JSON.stringify(cmd).includes(canary));
  p.apply(cmd);
  let error = "";
  try {
    p.apply(subagentResult(a, "task_unknown"));
  } catch (e) {
    error = `${e.message} ${JSON.stringify(e.details)}`;
  }
  assert.match(error, /UNKNOWN_TOOL_CALL/);
  const everything = JSON.stringify([p.systemView(), p.private(skillsKey), p.events(), p.eventsJsonl(), p.modelView({ budget: 8000 }), p.exportForTransport(), error]);
  assert.ok(everything.includes("Done with a."));
  assert.ok(!everything.includes(canary), "the canary crossed into the parent");
});

test("parallel subagents changing the same key conflict, naming both; the parent is unchanged", () => {
  const { p } = parent();
  const a = subagentInput(p, { description: "A", agent: "writer-a" });
  const b = subagentInput(p, { description: "B", agent: "writer-b" });
  for (const [c, n] of [[a, "a"], [b, "b"]]) c.apply({ author: "tool", update: { files: { "plan.md": `v2 by ${n}` } } });
  const before = JSON.stringify(p.toJSON());
  assert.throws(
    () => p.applyBatch([subagentResult(a, "task_a"), subagentResult(b, "task_b")]),
    (e) => e.code === "CONCURRENT_WRITE" && JSON.stringify(e.details.authors) === JSON.stringify(["writer-a", "writer-b"]),
  );
  assert.equal(JSON.stringify(p.toJSON()), before);
});

test("fork: the child's first messages are the parent's model view without the launching turn", () => {
  const { p } = parent();
  const child = subagentInput(p, { description: "A", agent: "a", mode: "fork" });
  const view = p.modelView({ budget: 32000, format: "langchain", sections: false }).messages;
  const mine = child.messages("langchain");
  const launch = view.findIndex((m) => m.tool_calls?.length);
  assert.deepEqual(mine.slice(0, -1), view.slice(0, launch));
  assert.match(mine.at(-1).content, /A$/);
});

test("handoff: other agents' turns are context in the receiver's view", () => {
  const s = new StateStore();
  s.apply({ author: "user", update: { messages: [{ role: "user", content: "Book Lisbon." }] } });
  s.apply({ author: "triage", update: { messages: [{ type: "ai", name: "triage", content: "Passing you on." }] } });
  s.apply({ author: "triage", correlationId: "h1", update: { active_agent: "booker" } });
  assert.equal(s.events().at(-1).type, "handoff");
  assert.equal(s.events().at(-1).payload.active_agent, "booker");
  const view = s.modelView({ budget: 1000, format: "openai", agent: "booker" }).messages;
  assert.deepEqual(view.at(-1), { role: "user", content: "For context:\n[triage] said: Passing you on." });
  const own = s.modelView({ budget: 1000, format: "openai", agent: "triage" }).messages;
  assert.equal(own.at(-1).role, "assistant");
});
