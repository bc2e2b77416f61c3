// stategate/langchain against the real packages: `langchain` 1.5.14 (`createAgent`,
// `createMiddleware`), `@langchain/langgraph` 1.7.3 (`StateGraph`, `MessagesAnnotation`,
// `messagesStateReducer`, `MemorySaver`, `interrupt`, `interruptBefore`) and `@langchain/core`
// 1.4.0's own fake chat model (`fakeModel()` from `@langchain/core/testing`, which records every
// call's messages), offline.
//
// What is asserted: the exact messages the fake model receives (system prompt, repaired
// history, model view under a budget); the checkpointed graph state afterwards (the synthetic
// tool result right after its AI message, nothing duplicated, every message id and object kept);
// the writes the model step made (only the messages after the insertion point re-sent, never the
// whole history); that the writes of `planRepair`, applied with the real reducers, give the
// repaired history on random histories; the reducer behaviour the design rests on; bad input
// refused with StategateError; the CommonJS bundle.
//
// Run: node --test tests/js/adapter-langchain.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { createAgent, tool } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt, messagesDeltaReducer, messagesStateReducer } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { modelView, planRepair, repairNode, repairUpdate, stategateMiddleware } from "../../pkg/langchain.js";
import { StategateError, isStategateError, validateMessages } from "../../pkg/index.js";

const INTERRUPTED = "Tool call weather with id c1 was interrupted before it completed - no result was recorded.";

/** [type, id, text] of each message: what a model received or a state holds. */
const rows = (messages) => messages.map((m) => [m.type, m.id ?? null, typeof m.content === "string" ? m.content : m.text]);

/** A weather tool that stops the run for a human decision (`interrupt()`), as a LangGraph tool would. */
const weather = tool(
  async ({ city }) => {
    const go = interrupt({ question: `Look up the weather in ${city}?` });
    return go ? `18°C in ${city}` : "not looked up";
  },
  { name: "weather", description: "The weather in a city", schema: z.object({ city: z.string() }) },
);

/** The model's two turns: a tool call, then (after the user changes the subject) an answer. */
const scripted = () =>
  fakeModel()
    .respond(new AIMessage({ id: "ai-1", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] }))
    .respond(new AIMessage({ id: "ai-2", content: "Rome: 24°C." }));

/** Every node's update of one streamed run (`streamMode: "updates"`), as [node, writes] with rows. */
async function updatesOf(stream) {
  const out = [];
  for await (const chunk of await stream) {
    for (const [node, update] of Object.entries(chunk)) {
      if (node === "__interrupt__") continue;
      const writes = Array.isArray(update) ? update : [update];
      out.push([node, writes.map((w) => (w?.messages ? rows(w.messages) : null)).filter(Boolean)]);
    }
  }
  return out;
}

test("the reducer cannot insert before an existing message in one write: a removed id re-added in the same write stays in place", () => {
  // The behaviour the two-write update rests on (messages_reducer.ts of @langchain/langgraph 1.7.3).
  const h1 = new HumanMessage({ id: "h1", content: "Weather in Paris?" });
  const a1 = new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] });
  const h2 = new HumanMessage({ id: "h2", content: "Rome?" });
  const t = new ToolMessage({ id: "t1", tool_call_id: "c1", content: "interrupted" });
  const oneWrite = messagesStateReducer([h1, a1, h2], [new RemoveMessage({ id: "h2" }), t, h2]);
  assert.deepEqual(oneWrite.map((m) => m.id), ["h1", "a1", "h2", "t1"]);
  const twoWrites = messagesStateReducer(messagesStateReducer([h1, a1, h2], [new RemoveMessage({ id: "h2" })]), [t, h2]);
  assert.deepEqual(twoWrites.map((m) => m.id), ["h1", "a1", "t1", "h2"]);
});

test("createAgent: an interrupt left unanswered, then a new human message on the thread — the model gets the call answered, the state gets the answer in place", async () => {
  const model = scripted();
  const views = [];
  const checkpointer = new MemorySaver();
  const agent = createAgent({
    model,
    tools: [weather],
    checkpointer,
    systemPrompt: "You are terse.",
    middleware: [stategateMiddleware({ reason: "interrupted", budget: 2000, onModelView: (v) => views.push(v) })],
  });
  const config = { configurable: { thread_id: "thread-1" } };
  const first = await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "Weather in Paris?" })] }, config);
  assert.equal(first.__interrupt__.length, 1);
  assert.deepEqual(first.__interrupt__[0].value, { question: "Look up the weather in Paris?" });
  assert.deepEqual(rows(first.messages), [["human", "h1", "Weather in Paris?"], ["ai", "ai-1", ""]]);
  const aiObject = first.messages[1];

  // The user does not resume; they ask something else on the same thread.
  const updates = await updatesOf(agent.stream({ messages: [new HumanMessage({ id: "h2", content: "Never mind. Rome?" })] }, { ...config, streamMode: "updates" }));

  assert.equal(model.callCount, 2);
  assert.deepEqual(rows(model.calls[0].messages), [["system", null, "You are terse."], ["human", "h1", "Weather in Paris?"]]);
  assert.deepEqual(rows(model.calls[1].messages), [
    ["system", null, "You are terse."],
    ["human", "h1", "Weather in Paris?"],
    ["ai", "ai-1", ""],
    ["tool", "stategate-repair:ai-1:c1", INTERRUPTED],
    ["human", "h2", "Never mind. Rome?"],
  ]);
  const sent = model.calls[1].messages[3];
  assert.ok(ToolMessage.isInstance(sent));
  assert.equal(sent.tool_call_id, "c1");
  assert.equal(sent.status, "error");
  assert.deepEqual(validateMessages(model.calls[1].messages.slice(1), { provider: "anthropic" }), []);

  // The model step's writes: its reply, then the repair — h2 and the reply removed and re-added
  // after the inserted result; h1 and ai-1 never re-sent (no REMOVE_ALL).
  const modelStep = updates.filter(([node]) => node === "model_request");
  assert.equal(modelStep.length, 1);
  assert.deepEqual(modelStep[0][1], [
    [["ai", "ai-2", "Rome: 24°C."]],
    [["remove", "h2", ""], ["remove", "ai-2", ""]],
    [["tool", "stategate-repair:ai-1:c1", INTERRUPTED], ["human", "h2", "Never mind. Rome?"], ["ai", "ai-2", "Rome: 24°C."]],
  ]);

  const state = await agent.graph.getState(config);
  const expected = [
    ["human", "h1", "Weather in Paris?"],
    ["ai", "ai-1", ""],
    ["tool", "stategate-repair:ai-1:c1", INTERRUPTED],
    ["human", "h2", "Never mind. Rome?"],
    ["ai", "ai-2", "Rome: 24°C."],
  ];
  assert.deepEqual(rows(state.values.messages), expected);
  assert.deepEqual(validateMessages(state.values.messages, { provider: "openai" }), []);
  assert.equal(new Set(state.values.messages.map((m) => m.id)).size, 5);
  assert.deepEqual(state.values.messages[1].tool_calls, aiObject.tool_calls);

  // The model view's report: nothing dropped, one repair, and the next turn needs none.
  assert.equal(views.length, 2);
  assert.deepEqual(views[1].repairs, [{ kind: "interrupted", action: "inserted", index: 1, toolCallId: "c1" }]);
  assert.deepEqual(views[1].report.dropped, []);
  assert.deepEqual(planRepair(state.values.messages).writes, []);
});

test("createAgent: a repair that is one write goes out from beforeModel, with only the new messages", async () => {
  const model = fakeModel().respond(new AIMessage({ id: "ai-9", content: "Done." }));
  const agent = createAgent({ model, tools: [weather], checkpointer: new MemorySaver(), middleware: [stategateMiddleware()] });
  const config = { configurable: { thread_id: "thread-2" } };
  // An imported history that ends on a call without a result, plus a result that answers no call.
  const history = [
    new HumanMessage({ id: "h1", content: "Weather in Oslo?" }),
    new ToolMessage({ id: "orphan", tool_call_id: "zz", content: "stray" }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c7", name: "weather", args: { city: "Oslo" } }] }),
  ];
  const updates = await updatesOf(agent.stream({ messages: history }, { ...config, streamMode: "updates" }));
  const missing = "Tool call weather with id c7 did not complete - no result was recorded.";
  const before = updates.filter(([node]) => node.startsWith("StategateMiddleware.before_model"));
  assert.deepEqual(before, [["StategateMiddleware.before_model", [[["remove", "orphan", ""], ["tool", "stategate-repair:a1:c7", missing]]]]]);
  assert.deepEqual(rows(model.calls[0].messages), [["human", "h1", "Weather in Oslo?"], ["ai", "a1", ""], ["tool", "stategate-repair:a1:c7", missing]]);
  const modelStep = updates.filter(([node]) => node === "model_request");
  assert.deepEqual(modelStep[0][1], [[["ai", "ai-9", "Done."]]]);
  const state = await agent.graph.getState(config);
  assert.deepEqual(state.values.messages.map((m) => m.id), ["h1", "a1", "stategate-repair:a1:c7", "ai-9"]);
});

test("createAgent: the budget trims the model request only; the graph state keeps the whole history", async () => {
  const model = fakeModel().respond(new AIMessage({ id: "ai-x", content: "ok" }));
  const views = [];
  const agent = createAgent({ model, tools: [], checkpointer: new MemorySaver(), systemPrompt: "Be brief.", middleware: [stategateMiddleware({ budget: 60, onModelView: (v) => views.push(v) })] });
  const config = { configurable: { thread_id: "thread-3" } };
  const history = [];
  for (let i = 1; i <= 6; i++) {
    history.push(new HumanMessage({ id: `h${i}`, content: `Question ${i}: ${"lorem ipsum ".repeat(4)}` }));
    history.push(new AIMessage({ id: `a${i}`, content: `Answer ${i}: ${"dolor sit ".repeat(4)}` }));
  }
  history.push(new HumanMessage({ id: "h7", content: "And now?" }));
  await agent.invoke({ messages: history }, config);
  const sent = model.calls[0].messages;
  assert.equal(sent[0].type, "system");
  assert.equal(sent[0].text, "Be brief.");
  const ids = sent.slice(1).map((m) => m.id);
  assert.ok(ids.length < history.length, `the view holds fewer messages than the history: ${ids}`);
  assert.equal(ids.at(-1), "h7");
  assert.equal(sent[1].type, "human", "the view starts on a human message");
  assert.deepEqual(ids, history.slice(history.length - ids.length).map((m) => m.id), "the newest messages, in order");
  // The caller's own message objects are sent where unchanged.
  assert.equal(sent.at(-1), history.at(-1));
  const dropped = views[0].report.dropped.reduce((n, d) => n + d.count, 0);
  assert.equal(dropped, history.length - ids.length);
  assert.ok(views[0].report.used <= 60, `used ${views[0].report.used}`);
  const state = await agent.graph.getState(config);
  assert.deepEqual(state.values.messages.map((m) => m.id), [...history.map((m) => m.id), "ai-x"]);
});

test("StateGraph + MessagesAnnotation + MemorySaver: interruptBefore the tools, then a new message — repairNode fixes the state in place, modelView feeds the model", async () => {
  const model = scripted();
  const bound = model.bindTools([weather]);
  const views = [];
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("repair", repairNode({ reason: "interrupted" }))
    .addNode("agent", async (state) => {
      const view = modelView(state.messages, { budget: 4000, system: "You are terse." });
      views.push(view);
      return { messages: [await bound.invoke([new SystemMessage("You are terse."), ...view.messages])] };
    })
    .addNode("tools", new ToolNode([weather]))
    .addEdge(START, "repair")
    .addEdge("repair", "agent")
    .addConditionalEdges("agent", (s) => (s.messages.at(-1).tool_calls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: new MemorySaver(), interruptBefore: ["tools"] });
  const config = { configurable: { thread_id: "graph-1" } };
  await graph.invoke({ messages: [new HumanMessage({ id: "h1", content: "Weather in Paris?" })] }, config);
  const paused = await graph.getState(config);
  assert.deepEqual(paused.next, ["tools"]);
  assert.deepEqual(rows(paused.values.messages), [["human", "h1", "Weather in Paris?"], ["ai", "ai-1", ""]]);
  const [h1, a1] = paused.values.messages;

  const updates = await updatesOf(graph.stream({ messages: [new HumanMessage({ id: "h2", content: "Never mind. Rome?" })] }, { ...config, streamMode: "updates" }));
  assert.deepEqual(updates.find(([node]) => node === "repair"), ["repair", [[["remove", "h2", ""]], [["tool", "stategate-repair:ai-1:c1", INTERRUPTED], ["human", "h2", "Never mind. Rome?"]]]]);
  assert.deepEqual(rows(model.calls[1].messages), [
    ["system", null, "You are terse."],
    ["human", "h1", "Weather in Paris?"],
    ["ai", "ai-1", ""],
    ["tool", "stategate-repair:ai-1:c1", INTERRUPTED],
    ["human", "h2", "Never mind. Rome?"],
  ]);
  assert.deepEqual(views[1].repairs, [], "the state was already repaired when the model view was made");
  const state = await graph.getState(config);
  assert.deepEqual(rows(state.values.messages), [
    ["human", "h1", "Weather in Paris?"],
    ["ai", "ai-1", ""],
    ["tool", "stategate-repair:ai-1:c1", INTERRUPTED],
    ["human", "h2", "Never mind. Rome?"],
    ["ai", "ai-2", "Rome: 24°C."],
  ]);
  assert.deepEqual(state.values.messages[0].content, h1.content);
  assert.deepEqual(state.values.messages[1].tool_calls, a1.tool_calls);
  assert.deepEqual(state.next, []);
});

test("planRepair's writes, applied with messagesStateReducer and messagesDeltaReducer, give the repaired history (random histories)", () => {
  let seed = 7;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  let withTwoWrites = 0;
  for (let round = 0; round < 300; round++) {
    const history = [];
    const calls = [];
    let k = 0;
    const id = () => `m${k++}`;
    for (let step = 0; step < 3 + rand(8); step++) {
      const r = rand(10);
      if (r < 3) history.push(new HumanMessage({ id: id(), content: `q${step}` }));
      else if (r < 6) {
        const n = 1 + rand(3);
        const tc = Array.from({ length: n }, (_, j) => ({ id: `c${round}_${step}_${j}`, name: "weather", args: { city: `x${j}` } }));
        calls.push(...tc);
        history.push(new AIMessage({ id: id(), content: rand(2) ? "" : "checking", tool_calls: tc }));
      } else if (calls.length && r < 9) {
        const c = calls[rand(calls.length)];
        history.push(new ToolMessage({ id: id(), tool_call_id: c.id, content: `r${step}` }));
      } else history.push(new ToolMessage({ id: id(), tool_call_id: `nope${step}`, content: "orphan" }));
    }
    const plan = planRepair(history, { reason: rand(2) ? "interrupted" : "missing" });
    if (plan.writes.length === 2) withTwoWrites++;
    assert.ok(plan.writes.length <= 2);
    for (const reducer of [messagesStateReducer, (l, r) => messagesDeltaReducer(l, [r])]) {
      let state = history;
      for (const w of plan.writes) state = reducer(state, w);
      assert.deepEqual(state.map((m) => m.id), plan.messages.map((m) => m.id), `round ${round}`);
      state.forEach((m, i) => assert.equal(m, plan.messages[i], `round ${round}: message ${i} is the plan's object`));
    }
    assert.deepEqual(validateMessages(plan.messages, { provider: "openai" }), [], `round ${round}`);
    // Only what changed is written: kept messages are the caller's objects and are not re-sent.
    const sent = new Set(plan.writes.flat().filter((m) => !RemoveMessage.isInstance(m)));
    const untouchedPrefix = plan.messages.findIndex((m, i) => m !== history[i]);
    for (const m of plan.messages.slice(0, untouchedPrefix < 0 ? plan.messages.length : untouchedPrefix)) assert.ok(!sent.has(m), `round ${round}: ${m.id} re-sent`);
  }
  assert.ok(withTwoWrites > 20, `two-write repairs exercised: ${withTwoWrites}`);
});

test("planRepair / repairUpdate: a misplaced result is moved next to its call, an untouched history gives no writes", () => {
  const h1 = new HumanMessage({ id: "h1", content: "Paris and Rome?" });
  const a1 = new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }, { id: "c2", name: "weather", args: { city: "Rome" } }] });
  const h2 = new HumanMessage({ id: "h2", content: "hurry" });
  const t1 = new ToolMessage({ id: "t1", tool_call_id: "c1", content: "18°C" });
  const t2 = new ToolMessage({ id: "t2", tool_call_id: "c2", content: "24°C" });
  const plan = planRepair([h1, a1, h2, t1, t2]);
  assert.deepEqual(plan.messages.map((m) => m.id), ["h1", "a1", "t1", "t2", "h2"]);
  assert.deepEqual(plan.messages.slice(2, 5), [t1, t2, h2]);
  // t1 and t2 already follow a1 in state order once h2 is out: only h2 moves, behind them.
  assert.deepEqual(plan.moved, ["h2"]);
  assert.deepEqual(plan.inserted, []);
  assert.deepEqual(plan.writes.map((w) => w.map((m) => `${m.getType()}:${m.id}`)), [["remove:h2"], ["human:h2"]]);
  const update = repairUpdate([h1, a1, h2, t1, t2]);
  assert.deepEqual(update.update.map(([k]) => k), ["messages", "messages"]);
  assert.deepEqual(repairUpdate([h1]), {});
  assert.deepEqual(planRepair([h1, a1, t1, t2]).writes, []);
});

test("bad input is refused with StategateError, and nothing is written", () => {
  const h1 = new HumanMessage({ id: "h1", content: "hi" });
  const code = (f) => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof StategateError && isStategateError(e), `a StategateError: ${e}`);
      return [e.code, e.message];
    }
    assert.fail("did not throw");
  };
  assert.equal(code(() => planRepair("hi"))[0], "INVALID_MESSAGE");
  assert.match(code(() => planRepair([h1, { role: "user", content: "x" }]))[1], /messages\[1\] is not a LangChain BaseMessage/);
  assert.match(code(() => planRepair([new HumanMessage("no id")]))[1], /messages\[0\] has no id/);
  assert.match(code(() => planRepair([h1, new HumanMessage({ id: "h1", content: "again" })]))[1], /repeats the id "h1"/);
  assert.match(code(() => planRepair([new RemoveMessage({ id: "h1" })]))[1], /RemoveMessage/);
  assert.deepEqual(code(() => planRepair([h1], { reason: "cancelled" })), ["INVALID_OPTION", 'INVALID_OPTION: planRepair: reason must be "missing", "interrupted" or "rejected", saw the string "cancelled"']);
  assert.match(code(() => stategateMiddleware({ budjet: 100 }))[1], /unknown option "budjet"/);
  assert.equal(code(() => stategateMiddleware({ budget: -1 }))[0], "INVALID_OPTION");
  assert.equal(code(() => stategateMiddleware({ onModelView: 1 }))[0], "INVALID_OPTION");
  assert.equal(code(() => repairNode({ provider: "cohere" }))[0], "INVALID_OPTION");
  assert.equal(code(() => modelView([h1], { budget: 3, system: "A long system prompt that cannot fit." }))[0], "BUDGET_TOO_SMALL");
  assert.equal(code(() => modelView([h1], null))[0], "INVALID_OPTION");
  // The input messages are not changed by a refused call.
  const a1 = new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "weather", args: {} }] });
  const before = [h1, a1].map((m) => JSON.stringify(m));
  code(() => planRepair([h1, a1], { text: "x".repeat(2000) }));
  assert.deepEqual([h1, a1].map((m) => JSON.stringify(m)), before);
});

test("CommonJS: require('stategate/langchain') does the same", () => {
  const require = createRequire(import.meta.url);
  const cjs = require("../../pkg/langchain.cjs");
  const lc = require("@langchain/core/messages");
  const history = [
    new lc.HumanMessage({ id: "h1", content: "Weather in Paris?" }),
    new lc.AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Paris" } }] }),
    new lc.HumanMessage({ id: "h2", content: "Rome?" }),
  ];
  const plan = cjs.planRepair(history, { reason: "interrupted" });
  assert.deepEqual(plan.messages.map((m) => m.id), ["h1", "a1", "stategate-repair:a1:c1", "h2"]);
  assert.equal(plan.messages[2].content, INTERRUPTED);
  assert.deepEqual(plan.writes.map((w) => w.length), [1, 2]);
  assert.equal(typeof cjs.stategateMiddleware().wrapModelCall, "function");
  assert.throws(() => cjs.planRepair(7), (e) => e.name === "StategateError" && e.code === "INVALID_MESSAGE");
});
