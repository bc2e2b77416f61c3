// Differential test: stategate's sync-subagent write-back (subagentInput → child.apply →
// subagentResult) against the real npm deepagents 1.14.1 `task` tool.
//
// What it checks, and why: subagentResult claims to write a finished subagent back the way
// deepagents JS's `returnCommandWithStateUpdate` does (tool result = JSON.stringify of the
// structured response if non-null, else the last AI message with non-empty trimmed text, else
// "Task completed"; ToolMessage name "task"). Each table row below describes one child run; it is
// run through both implementations and the tool result contents are compared with each other
// and with a literal expected value. Rows where the two legitimately differ name both values
// and say why, so a change on either side fails loudly instead of drifting silently.
//
// Which state keys come back differs by design and is asserted separately: deepagents writes
// back filterStateForSubagent(result) — every non-excluded key, changed or not, child-only keys
// included, dicts whole — while stategate writes only the inherited channels the child changed,
// as a delta for the channel's reducer (so a deleted file is deleted in the parent too).
// Parallel subagents are compared too: deepagents' unchanged write-backs collide on a plain
// (LastValue) parent key, ours only on what both children changed.
//
// How deepagents is driven (no LLM, no network): createSubAgentMiddleware({generalPurposeAgent:
// false, subagents: [{name, description, runnable}]}) with a CompiledSubAgent whose runnable is a
// RunnableLambda returning a scripted final state; the task tool is the `task` entry of the
// middleware's `tools` (deepagents does not export createTaskTool).
// The tool reads the parent state with getCurrentTaskInput(), so it is invoked with a ToolCall
// ({type: "tool_call", id, name, args}: sets config.toolCall.id, so it returns a Command) from
// inside the single node of a tiny @langchain/langgraph StateGraph, passing the node's config.
// The node returns that Command, so the graph applies it to the parent state with the real
// reducers (messagesStateReducer, deepagents' exported filesValue.reducer).
//
// Run: node --test tests/js/subagent-differential.test.mjs

import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { Annotation, END, START, StateGraph, messagesStateReducer } from "@langchain/langgraph";
import { createSubAgentMiddleware, filesValue } from "deepagents";
import { StateStore, subagentInput, subagentResult } from "../../pkg/index.js";

const TOOL_CALL_ID = "call_task_1";
const AGENT = "worker";
const DESCRIPTION = "Find the answer and report it.";
const CANARY = "CANARY-7f3a9c-do-not-leak";

// Parent state shared by both sides. Files use deepagents' FileDataV2 shape.
const file = (content) => ({ content, mimeType: "text/plain", created_at: "2026-01-01T00:00:00Z", modified_at: "2026-01-01T00:00:00Z" });
const PARENT_FILES = { "/notes.md": file("parent notes"), "/plan.md": file("the plan") };
const PARENT_NOTES = "n0";
const PARENT_TODOS = [{ content: "delegate the search", status: "in_progress" }];
const PARENT_CALL = { id: TOOL_CALL_ID, name: "task", args: { description: DESCRIPTION, subagent_type: AGENT } };

// ---------------------------------------------------------------------------------------------
// Messages: each row gives the child's new messages as LangChain dicts; deepagents gets the
// equivalent @langchain/core class instances (what a compiled agent graph returns).
function toInstance(m) {
  switch (m.type) {
    case "ai":
      return new AIMessage({ content: m.content, tool_calls: m.tool_calls ?? [], id: m.id });
    case "tool":
      return new ToolMessage({ content: m.content, tool_call_id: m.tool_call_id, name: m.name });
    case "human":
      return new HumanMessage({ content: m.content });
    default:
      throw new Error(`no instance for message type ${m.type}`);
  }
}

// ---------------------------------------------------------------------------------------------
// deepagents side.
//   messages: the child's new messages (appended to its input messages, as a real agent does)
//   structuredResponse: set on the child's final state when not undefined
//   childState(input): extra keys of the child's final state (e.g. changed files)
//   raw: hand the messages to deepagents as plain dicts instead of class instances
async function runDeepagents({ messages = [], structuredResponse, childState, raw = false }) {
  let childInput;
  const runnable = RunnableLambda.from(async (input) => {
    childInput = input;
    const out = { ...input, ...(childState ? childState(input) : {}) };
    out.messages = [...input.messages, ...(raw ? messages : messages.map(toInstance))];
    if (structuredResponse !== undefined) out.structuredResponse = structuredResponse;
    return out;
  });
  const middleware = createSubAgentMiddleware({
    generalPurposeAgent: false,
    subagents: [{ name: AGENT, description: "A scripted worker.", runnable }],
  });
  const taskTool = middleware.tools.find((t) => t.name === "task");
  assert.ok(taskTool, "the subagent middleware exposes the task tool");

  const State = Annotation.Root({
    messages: Annotation({ reducer: messagesStateReducer, default: () => [] }),
    files: Annotation({ reducer: filesValue.reducer, default: () => ({}) }),
    notes: Annotation(),
    todos: Annotation(),
    scratch: Annotation(),
  });
  let command;
  const graph = new StateGraph(State)
    .addNode("tools", async (_state, config) => {
      command = await taskTool.invoke({ type: "tool_call", ...PARENT_CALL }, config);
      return command;
    })
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile();
  const parent = await graph.invoke({
    messages: [new HumanMessage("Please research this."), new AIMessage({ content: "", tool_calls: [PARENT_CALL] })],
    files: PARENT_FILES,
    notes: PARENT_NOTES,
    todos: PARENT_TODOS,
  });
  const toolMessage = command.update.messages.at(-1);
  assert.ok(ToolMessage.isInstance(toolMessage));
  return { command, update: command.update, toolMessage, content: toolMessage.content, parent, childInput };
}

// ---------------------------------------------------------------------------------------------
// stategate side.
//   messages: the child's new messages (default: the row's LangChain dicts)
//   structuredResponse: written to the child's structured_response channel when not undefined
//   childUpdate: extra channels the child writes (e.g. files)
//   childSetup(child): anything else done to the child store before the write-back
function runStategate({ messages = [], structuredResponse, childUpdate, childSetup }) {
  const parent = new StateStore({ runId: "parent", channels: [{ name: "notes", reducer: "replace" }] });
  parent.apply({
    author: "setup",
    update: {
      messages: [{ type: "human", content: "Please research this." }, { type: "ai", content: "", tool_calls: [PARENT_CALL] }],
      files: PARENT_FILES,
      notes: PARENT_NOTES,
      todos: PARENT_TODOS,
    },
  });
  const child = subagentInput(parent, { description: DESCRIPTION, agent: AGENT });
  const update = { messages, ...(childUpdate ?? {}) };
  if (structuredResponse !== undefined) update.structured_response = structuredResponse;
  child.apply({ author: AGENT, update });
  if (childSetup) childSetup(child);
  const command = subagentResult(child, TOOL_CALL_ID);
  parent.apply(command);
  const toolMessage = command.update.messages.at(-1);
  return { command, update: command.update, toolMessage, content: toolMessage.content, parent, child };
}

// ---------------------------------------------------------------------------------------------
// The rows. `expect` is the tool result content both must produce; `differs` rows give each
// side's value instead, with the reason.
const ai = (content, extra = {}) => ({ type: "ai", content, ...extra });
const NESTED = {
  zeta: "last key first: insertion order, not sorted",
  answer: 42,
  ratio: 1.0,
  tiny: 1e-7,
  huge: 1e21,
  ok: true,
  none: null,
  skipped: undefined,
  // No `undefined` inside an array: JSON (and deepagents' json.dumps) writes it as null, which
  // stategate refuses as a silent change (issue 14; tests/js/boundary.test.mjs).
  list: [1, "two", { three: [3.5, null] }],
  unicode: "héllo wörld — 東京 😀 \u2028 \"quoted\" back\\slash\nnewline\ttab \u0001",
  nested: { deeper: { deepest: ["ü", { k: "v" }] } },
};

const ROWS = [
  { name: "plain final AI text", messages: [ai("The answer is 42.")], expect: "The answer is 42." },
  { name: "text with surrounding whitespace", messages: [ai("\n\t  The answer is 42.  \r\n")], expect: "The answer is 42." },
  {
    name: "surrounding whitespace trimmed, inner kept (incl. NBSP, ideographic space, U+2028)",
    messages: [ai("\u00a0\u3000\u2028 Line one\n\n  line two\t \u2029\u000b")],
    expect: "Line one\n\n  line two",
  },
  {
    name: "final AI message empty, earlier AI message has text",
    messages: [ai("Draft answer: 7."), { type: "human", content: "(nudge)" }, ai("")],
    expect: "Draft answer: 7.",
  },
  {
    name: "final AI message whitespace-only, earlier AI message has text",
    messages: [ai("  Draft answer: 7.  "), ai("   \n\t ")],
    expect: "Draft answer: 7.",
  },
  {
    name: "last message is a tool/human message: the last AI text still wins",
    messages: [
      ai("Looking.", { tool_calls: [{ id: "c1", name: "grep", args: { q: "x" } }] }),
      { type: "tool", tool_call_id: "c1", name: "grep", content: "tool output, not an AI answer" },
    ],
    expect: "Looking.",
  },
  {
    name: "AI content as a list of text blocks (joined without separator, then trimmed)",
    messages: [ai([{ type: "text", text: "  Part one, " }, { type: "text", text: "part two.  " }])],
    expect: "Part one, part two.",
  },
  {
    name: "text blocks with an image_url block mixed in",
    messages: [ai([{ type: "text", text: "See " }, { type: "image_url", image_url: { url: "https://example.invalid/a.png" } }, { type: "text", text: "the chart." }])],
    expect: "See the chart.",
  },
  {
    name: "text block after an Anthropic thinking block (reasoning not included)",
    messages: [ai([{ type: "thinking", thinking: "secret reasoning", signature: "sig" }, { type: "text", text: " Final. " }])],
    expect: "Final.",
  },
  {
    name: "text block after a v1 reasoning block (reasoning not included)",
    messages: [ai([{ type: "reasoning", reasoning: "secret reasoning" }, { type: "text", text: "Final." }])],
    expect: "Final.",
  },
  {
    name: "final AI message holds only a thinking block: earlier text wins",
    messages: [ai("Earlier text."), ai([{ type: "thinking", thinking: "just thinking", signature: "sig" }])],
    expect: "Earlier text.",
  },
  {
    name: "final AI message has an empty block list: earlier text wins",
    messages: [ai("Earlier text."), ai([])],
    expect: "Earlier text.",
  },
  { name: "no AI message at all: fallback", messages: [], expect: "Task completed" },
  { name: "only empty AI messages: fallback", messages: [ai(""), ai("  "), ai([])], expect: "Task completed" },
  {
    name: "structuredResponse object (wins over the AI text)",
    messages: [ai("prose answer")],
    structuredResponse: { city: "Paris", population: 2102650 },
    expect: '{"city":"Paris","population":2102650}',
  },
  {
    name: "structuredResponse with nested values, unicode, key order, numbers, undefined",
    messages: [ai("prose answer")],
    structuredResponse: NESTED,
    expect: JSON.stringify(NESTED),
  },
  { name: "structuredResponse null: falls back to the AI text", messages: [ai(" prose ")], structuredResponse: null, expect: "prose" },
  { name: "structuredResponse false (non-null, so used)", messages: [ai("prose")], structuredResponse: false, expect: "false" },
  { name: "structuredResponse 0", messages: [ai("prose")], structuredResponse: 0, expect: "0" },
  { name: 'structuredResponse ""', messages: [ai("prose")], structuredResponse: "", expect: '""' },
  { name: "structuredResponse {}", messages: [ai("prose")], structuredResponse: {}, expect: "{}" },
  { name: "structuredResponse array", messages: [ai("prose")], structuredResponse: [1, "a", { b: [] }], expect: '[1,"a",{"b":[]}]' },
  {
    name: "trailing AI message with tool_calls and text (unanswered call)",
    messages: [ai("Earlier."), ai("  I'll look that up next. ", { tool_calls: [{ id: "c9", name: "grep", args: { q: "next" } }] })],
    expect: "I'll look that up next.",
  },
  {
    name: "trailing AI message with tool_calls and no text: earlier text wins",
    messages: [ai("Earlier."), ai("", { tool_calls: [{ id: "c9", name: "grep", args: { q: "next" } }] })],
    expect: "Earlier.",
  },
  {
    name: "inner tool call carrying a canary in its args and result",
    messages: [
      ai("", { tool_calls: [{ id: "c1", name: "search", args: { query: CANARY, token: CANARY } }] }),
      { type: "tool", tool_call_id: "c1", name: "search", content: `result mentioning ${CANARY}` },
      ai("Found it: the report is on page 3."),
    ],
    expect: "Found it: the report is on page 3.",
    canary: true,
  },
  {
    name: "OpenAI-style child messages on our side (content null + tool_calls, then text)",
    messages: [
      ai("", { tool_calls: [{ id: "c1", name: "grep", args: { q: CANARY } }] }),
      { type: "tool", tool_call_id: "c1", name: "grep", content: "hit" },
      ai("  final  "),
    ],
    ours: [
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "grep", arguments: JSON.stringify({ q: CANARY }) } }] },
      { role: "tool", tool_call_id: "c1", content: "hit" },
      { role: "assistant", content: "  final  " },
    ],
    expect: "final",
    canary: true,
  },

  // JS trim's white space (U+FEFF trimmed, U+0085 kept), which ours follows.
  { name: "U+FEFF around the text is trimmed", messages: [ai("\ufeffThe answer.\ufeff")], expect: "The answer." },
  { name: "U+0085 (NEL) around the text is kept", messages: [ai("\u0085The answer.\u0085")], expect: "\u0085The answer.\u0085" },
  { name: "a final AI text of only U+FEFF is blank: the earlier text wins", messages: [ai("Earlier."), ai("\ufeff")], expect: "Earlier." },
  { name: "a final AI text of only U+0085 is not blank", messages: [ai("Earlier."), ai("\u0085")], expect: "\u0085" },

  // ----- Documented differences (none of these is in the write-back spec) -----
  {
    name: "DIFF: lone surrogate in structuredResponse (JSON.stringify escapes it; the wasm boundary makes it U+FFFD)",
    messages: [ai("prose")],
    structuredResponse: { s: "cut emoji \ud83d" },
    differs: { deepagents: '{"s":"cut emoji \\ud83d"}', ours: '{"s":"cut emoji \ufffd"}' },
  },
  {
    name: "DIFF: lone surrogate in the AI text (kept by deepagents; U+FFFD in ours)",
    messages: [ai("cut emoji \ud83d")],
    differs: { deepagents: "cut emoji \ud83d", ours: "cut emoji \ufffd" },
  },
  {
    name: "DIFF: bare string items in an AI content list (LangChain .text ignores them; ours reads them as text)",
    messages: [ai(["The answer."])],
    differs: { deepagents: "Task completed", ours: "The answer." },
  },
  {
    name: "DIFF: compiled runnable returning plain-dict messages (deepagents only sees AIMessage instances)",
    messages: [ai("The answer.")],
    raw: true,
    differs: { deepagents: "Task completed", ours: "The answer." },
  },
];

describe("tool result content: stategate subagentResult vs deepagents task tool", () => {
  for (const row of ROWS) {
    test(row.name, async () => {
      const deep = await runDeepagents({ messages: row.messages, structuredResponse: row.structuredResponse, raw: row.raw });
      const ours = runStategate({ messages: row.ours ?? row.messages, structuredResponse: row.structuredResponse });
      if (row.differs) {
        assert.equal(deep.content, row.differs.deepagents, "deepagents");
        assert.equal(ours.content, row.differs.ours, "stategate");
        assert.notEqual(deep.content, ours.content);
      } else {
        assert.equal(deep.content, row.expect, "deepagents");
        assert.equal(ours.content, row.expect, "stategate");
      }
      // Both write one tool message named "task" answering the parent's call.
      assert.equal(deep.update.messages.length, 1);
      assert.equal(ours.update.messages.length, 1);
      assert.equal(deep.toolMessage.name, "task");
      assert.equal(ours.toolMessage.name, "task");
      assert.equal(deep.toolMessage.tool_call_id, TOOL_CALL_ID);
      assert.equal(ours.toolMessage.tool_call_id, TOOL_CALL_ID);
      assert.equal(typeof deep.content, "string");
      assert.equal(typeof ours.content, "string");
      // The parent ends with that answer as its last message on both sides.
      assert.equal(deep.parent.messages.at(-1).content, deep.content);
      assert.equal(ours.parent.messages("langchain").at(-1).content, ours.content);
      if (row.canary) {
        // Nothing of the child's inner tool calls reaches the parent: not in the command, not in
        // the parent's state after applying it.
        assert.ok(!JSON.stringify(deep.update).includes(CANARY), "deepagents command leaks the canary");
        assert.ok(!JSON.stringify(ours.command).includes(CANARY), "stategate command leaks the canary");
        assert.ok(!JSON.stringify(deep.parent).includes(CANARY), "deepagents parent state leaks the canary");
        assert.ok(!JSON.stringify(ours.parent.systemView()).includes(CANARY), "stategate parent state leaks the canary");
      }
    });
  }
});

describe("tool message shape", () => {
  test("DIFF: ours sets status 'success'; deepagents leaves ToolMessage.status unset", async () => {
    const deep = await runDeepagents({ messages: [ai("done")] });
    const ours = runStategate({ messages: [ai("done")] });
    assert.equal(deep.toolMessage.status, undefined);
    assert.equal(ours.toolMessage.status, "success");
    assert.deepEqual(ours.toolMessage, { type: "tool", content: "done", tool_call_id: TOOL_CALL_ID, name: "task", status: "success" });
    // Ours names its author (the agent) and correlates the command with the call.
    assert.equal(ours.command.author, AGENT);
    assert.equal(ours.command.correlationId, TOOL_CALL_ID);
  });

  test("the child starts from the description alone on both sides (isolated mode)", async () => {
    const deep = await runDeepagents({ messages: [ai("done")] });
    const ours = runStategate({ messages: [ai("done")] });
    assert.equal(deep.childInput.messages.length, 1);
    assert.ok(HumanMessage.isInstance(deep.childInput.messages[0]));
    assert.equal(deep.childInput.messages[0].content, DESCRIPTION);
    // deepagents also hands the child a fresh summarization session id (and never writes it back).
    assert.match(deep.childInput._summarizationSessionId, /^session_[0-9a-f]{8}$/);
    assert.ok(!("_summarizationSessionId" in deep.update));
    const seeded = ours.child.messages("langchain");
    assert.equal(seeded[0].type, "human");
    assert.equal(seeded[0].content, DESCRIPTION);
    // Both hand the child the parent's files and custom keys, never its todos.
    assert.deepEqual(deep.childInput.files, PARENT_FILES);
    assert.equal(deep.childInput.notes, PARENT_NOTES);
    assert.ok(!("todos" in deep.childInput));
    assert.deepEqual(ours.child.get("files"), PARENT_FILES);
    assert.equal(ours.child.get("notes"), PARENT_NOTES);
    assert.deepEqual(ours.child.get("todos"), []);
  });
});

// ---------------------------------------------------------------------------------------------
// Which state keys come back.
const stateKeys = (update) => Object.keys(update).filter((k) => k !== "messages").sort();
const NEW_FILE = { "/found.md": file("found it") };

describe("state keys written back", () => {
  test("unchanged files/notes: deepagents writes them back anyway, ours does not", async () => {
    const deep = await runDeepagents({ messages: [ai("done")] });
    const ours = runStategate({ messages: [ai("done")] });
    assert.deepEqual(stateKeys(deep.update), ["files", "notes"]);
    assert.deepEqual(deep.update.files, PARENT_FILES);
    assert.equal(deep.update.notes, PARENT_NOTES);
    assert.deepEqual(stateKeys(ours.update), []);
    // Either way the parent's state ends the same.
    assert.deepEqual(deep.parent.files, PARENT_FILES);
    assert.deepEqual(ours.parent.get("files"), PARENT_FILES);
    assert.equal(deep.parent.notes, PARENT_NOTES);
    assert.equal(ours.parent.get("notes"), PARENT_NOTES);
  });

  test("changed files/notes: both carry them (deepagents the whole dict, ours the changed keys)", async () => {
    const deep = await runDeepagents({ messages: [ai("done")], childState: (input) => ({ files: { ...input.files, ...NEW_FILE }, notes: "n1" }) });
    const ours = runStategate({ messages: [ai("done")], childUpdate: { files: NEW_FILE, notes: "n1" } });
    assert.deepEqual(stateKeys(deep.update), ["files", "notes"]);
    assert.deepEqual(stateKeys(ours.update), ["files", "notes"]);
    assert.deepEqual(deep.update.files, { ...PARENT_FILES, ...NEW_FILE });
    assert.deepEqual(ours.update.files, NEW_FILE);
    assert.equal(deep.update.notes, "n1");
    assert.equal(ours.update.notes, "n1");
    // Same parent state after the write-back.
    assert.deepEqual(deep.parent.files, { ...PARENT_FILES, ...NEW_FILE });
    assert.deepEqual(ours.parent.get("files"), { ...PARENT_FILES, ...NEW_FILE });
    assert.equal(deep.parent.notes, "n1");
    assert.equal(ours.parent.get("notes"), "n1");
  });

  test("DIFF: a file the child deletes is deleted in our parent, kept in deepagents' parent", async () => {
    // The child deletes /plan.md through deepagents' own files reducer (null = delete), so its
    // final state lacks the key; the whole-dict write-back cannot express the deletion and the
    // parent's merge keeps the file. Ours writes {"/plan.md": null}, which the parent's merge
    // applies as a deletion.
    const deep = await runDeepagents({ messages: [ai("done")], childState: (input) => ({ files: filesValue.reducer(input.files, { "/plan.md": null }) }) });
    const ours = runStategate({ messages: [ai("done")], childUpdate: { files: { "/plan.md": null } } });
    assert.deepEqual(deep.update.files, { "/notes.md": PARENT_FILES["/notes.md"] });
    assert.deepEqual(ours.update.files, { "/plan.md": null });
    assert.deepEqual(deep.parent.files, PARENT_FILES);
    assert.deepEqual(ours.parent.get("files"), { "/notes.md": PARENT_FILES["/notes.md"] });
  });

  test("DIFF: a child-only key reaches deepagents' parent, never ours", async () => {
    const deep = await runDeepagents({ messages: [ai("done")], childState: () => ({ scratch: `child notes ${CANARY}` }) });
    const ours = runStategate({
      messages: [ai("done")],
      childSetup: (child) => {
        child.registerChannel({ name: "scratch", reducer: "replace" });
        child.apply({ author: AGENT, update: { scratch: `child notes ${CANARY}` } });
      },
    });
    assert.equal(deep.update.scratch, `child notes ${CANARY}`);
    assert.equal(deep.parent.scratch, `child notes ${CANARY}`);
    assert.ok(!("scratch" in ours.update));
    assert.ok(!JSON.stringify(ours.command).includes(CANARY));
    assert.ok(!ours.parent.channels().some((c) => c.name === "scratch"));
  });

  test("todos and the structured response never come back on either side", async () => {
    const todos = [{ content: "child todo", status: "completed" }];
    const sr = { ok: true };
    const deep = await runDeepagents({ messages: [ai("done")], structuredResponse: sr, childState: () => ({ todos }) });
    const ours = runStategate({ messages: [ai("done")], structuredResponse: sr, childUpdate: { todos } });
    for (const key of ["todos", "structuredResponse", "structured_response"]) {
      assert.ok(!(key in deep.update), `deepagents writes ${key}`);
      assert.ok(!(key in ours.update), `stategate writes ${key}`);
    }
    assert.deepEqual(deep.parent.todos, PARENT_TODOS);
    assert.deepEqual(ours.parent.get("todos"), PARENT_TODOS);
    assert.equal(ours.parent.get("structured_response"), null);
  });
});

// ---------------------------------------------------------------------------------------------
// Parallel subagents: two task calls answered in the same step.
async function runDeepagentsParallel({ notes }) {
  const runnable = RunnableLambda.from(async (input) => ({ ...input, messages: [...input.messages, new AIMessage(`done: ${input.messages[0].content}`)] }));
  const middleware = createSubAgentMiddleware({ generalPurposeAgent: false, subagents: [{ name: AGENT, description: "A scripted worker.", runnable }] });
  const taskTool = middleware.tools.find((t) => t.name === "task");
  const calls = ["call_a", "call_b"].map((id) => ({ id, name: "task", args: { description: id, subagent_type: AGENT } }));
  const State = Annotation.Root({
    messages: Annotation({ reducer: messagesStateReducer, default: () => [] }),
    files: Annotation({ reducer: filesValue.reducer, default: () => ({}) }),
    notes: Annotation(),
  });
  // One node answering both calls in one step, as a ToolNode does (a list of Commands).
  const graph = new StateGraph(State)
    .addNode("tools", async (_state, config) => Promise.all(calls.map((c) => taskTool.invoke({ type: "tool_call", ...c }, config))))
    .addEdge(START, "tools")
    .addEdge("tools", END)
    .compile();
  return graph.invoke({
    messages: [new HumanMessage("Research a and b."), new AIMessage({ content: "", tool_calls: calls })],
    files: PARENT_FILES,
    ...(notes === undefined ? {} : { notes }),
  });
}

function runStategateParallel({ childNotes = [undefined, undefined] }) {
  const calls = ["call_a", "call_b"].map((id) => ({ id, name: "task", args: { description: id, subagent_type: AGENT } }));
  const parent = new StateStore({ runId: "parent", channels: [{ name: "notes", reducer: "replace" }] });
  parent.apply({
    author: "setup",
    update: { messages: [{ type: "human", content: "Research a and b." }, { type: "ai", content: "", tool_calls: calls }], files: PARENT_FILES, notes: PARENT_NOTES },
  });
  const commands = calls.map((c, i) => {
    const child = subagentInput(parent, { description: c.id, agent: `${AGENT}_${i}` });
    const update = { messages: [{ type: "ai", content: `done: ${c.id}` }] };
    if (childNotes[i] !== undefined) update.notes = childNotes[i];
    child.apply({ author: `${AGENT}_${i}`, update });
    return subagentResult(child, c.id);
  });
  return { parent, commands };
}

describe("parallel subagents", () => {
  test("without a plain parent key both succeed (files merge through deepagents' reducer)", async () => {
    const deep = await runDeepagentsParallel({});
    assert.deepEqual(deep.messages.slice(-2).map((m) => m.content), ["done: call_a", "done: call_b"]);
    assert.deepEqual(deep.files, PARENT_FILES);
    const ours = runStategateParallel({});
    ours.parent.applyBatch(ours.commands);
    assert.deepEqual(ours.parent.messages("langchain").slice(-2).map((m) => m.content), ["done: call_a", "done: call_b"]);
  });

  test("DIFF: an unchanged plain parent key makes deepagents' parallel write-back fail; ours succeeds", async () => {
    // Both children write `notes` back unchanged; LangGraph's LastValue channel refuses two
    // values in one step (the deepagentsjs #65/#143/#646 family). Ours writes nothing for it.
    await assert.rejects(runDeepagentsParallel({ notes: PARENT_NOTES }), (e) => {
      assert.equal(e.name, "InvalidUpdateError");
      assert.equal(e.lc_error_code, "INVALID_CONCURRENT_GRAPH_UPDATE");
      assert.match(e.message, /channel "notes"/);
      return true;
    });
    const ours = runStategateParallel({});
    for (const c of ours.commands) assert.ok(!("notes" in c.update));
    ours.parent.applyBatch(ours.commands);
    assert.equal(ours.parent.get("notes"), PARENT_NOTES);
    assert.deepEqual(ours.parent.messages("langchain").slice(-2).map((m) => m.content), ["done: call_a", "done: call_b"]);
  });

  test("ours: both children changing the same replace channel is a CONCURRENT_WRITE naming both", () => {
    const ours = runStategateParallel({ childNotes: ["from a", "from b"] });
    assert.throws(() => ours.parent.applyBatch(ours.commands), (e) => {
      assert.equal(e.code, "CONCURRENT_WRITE");
      assert.deepEqual([...e.details.authors].sort(), [`${AGENT}_0`, `${AGENT}_1`]);
      return true;
    });
    // Only one of them changing it is fine.
    const one = runStategateParallel({ childNotes: ["from a", undefined] });
    one.parent.applyBatch(one.commands);
    assert.equal(one.parent.get("notes"), "from a");
  });
});
