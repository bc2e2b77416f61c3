// A LangGraph agent and a LangChain v1 agent on stategate/langchain, written as a user of the
// package would write them. The chat model is @langchain/core's own scripted fake (`fakeModel()`),
// so this runs offline: `node examples/langgraph.mjs` (after `npm i stategate langchain
// @langchain/core @langchain/langgraph zod`). Put your real chat model in its place.
//
// The story, in both agents: the model calls a tool that stops for a human (`interrupt()`); the
// human never answers and asks something else on the same thread instead. The thread's history
// now holds a tool call without a result, which every provider refuses. stategate answers it in
// the graph state, right after its AI message, without re-sending the history, and the model
// gets a valid history under a token budget.
// Each claim is asserted, so the program exits non-zero if the package stops doing what it says.

import assert from "node:assert/strict";
import { validateMessages } from "stategate";
import { modelView, repairNode, stategateMiddleware } from "stategate/langchain";
import { createAgent, tool } from "langchain";
import { fakeModel } from "@langchain/core/testing";
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph, interrupt } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";

const SYSTEM = "You are a terse travel assistant.";
const bookFlight = tool(
  async ({ to }) => (interrupt({ confirm: `Book a flight to ${to}?` }) ? `booked: ${to}` : "not booked"),
  { name: "book_flight", description: "Books a flight (asks the user first)", schema: z.object({ to: z.string() }) },
);
const script = () =>
  fakeModel()
    .respond(new AIMessage({ id: "ai-1", content: "", tool_calls: [{ id: "call_1", name: "book_flight", args: { to: "Rome" } }] }))
    .respond(new AIMessage({ id: "ai-2", content: "Rome in May: 18-24°C, little rain." }));
const show = (messages) => messages.map((m) => `${m.type}${m.type === "tool" ? `(${m.tool_call_id})` : ""}`).join(", ");

// --- 1. A StateGraph: a repair node before the model node, the model view inside it -------
const model = script();
const llm = model.bindTools([bookFlight]);
const graph = new StateGraph(MessagesAnnotation)
  .addNode("repair", repairNode({ reason: "interrupted" }))
  .addNode("agent", async (state) => {
    const { messages } = modelView(state.messages, { budget: 4000, system: SYSTEM });
    return { messages: [await llm.invoke([new SystemMessage(SYSTEM), ...messages])] };
  })
  .addNode("tools", new ToolNode([bookFlight]))
  .addEdge(START, "repair")
  .addEdge("repair", "agent")
  .addConditionalEdges("agent", (s) => (s.messages.at(-1).tool_calls?.length ? "tools" : END), ["tools", END])
  .addEdge("tools", "agent")
  .compile({ checkpointer: new MemorySaver() });

const thread = { configurable: { thread_id: "trip-1" } };
const paused = await graph.invoke({ messages: [new HumanMessage({ id: "u1", content: "Book me a flight to Rome." })] }, thread);
console.log(`graph: interrupted at book_flight (${paused.__interrupt__[0].value.confirm})`);

// No resume: a new question on the same thread.
let repairWrites;
for await (const update of await graph.stream({ messages: [new HumanMessage({ id: "u2", content: "Wait, what is the weather there in May?" })] }, { ...thread, streamMode: "updates" })) {
  if (update.repair) repairWrites = update.repair.map((w) => w.messages.map((m) => `${m.getType()}:${m.id}`).join(" "));
}
console.log(`graph: the repair node wrote ${repairWrites.map((w) => `[${w}]`).join(" then ")}`);
assert.deepEqual(repairWrites, ["remove:u2", "tool:stategate-repair:ai-1:call_1 human:u2"]);

const sent = model.calls[1].messages;
console.log(`graph: the model got ${show(sent)}`);
assert.equal(show(sent), "system, human, ai, tool(call_1), human");
assert.deepEqual(validateMessages(sent.slice(1), { provider: "anthropic" }), []);
const { values } = await graph.getState(thread);
console.log(`graph: state ${values.messages.map((m) => m.id).join(", ")}`);
assert.deepEqual(values.messages.map((m) => m.id), ["u1", "ai-1", "stategate-repair:ai-1:call_1", "u2", "ai-2"]);

// --- 2. createAgent with the middleware: the same repair, and the model view under a budget -
const model2 = script();
const agent = createAgent({
  model: model2,
  tools: [bookFlight],
  systemPrompt: SYSTEM,
  checkpointer: new MemorySaver(),
  middleware: [
    stategateMiddleware({
      reason: "interrupted",
      budget: 120,                     // tokens for the system prompt and the messages
      onModelView: ({ report }) => report.dropped.length && console.log(`agent: model view ${report.used}/${report.budget} tokens, dropped ${report.dropped.map((d) => `${d.count} (${d.reason})`).join(", ")}`),
    }),
  ],
});
const thread2 = { configurable: { thread_id: "trip-2" } };
const earlier = [];
for (let i = 1; i <= 3; i++) {
  earlier.push(new HumanMessage({ id: `old-u${i}`, content: `Earlier question ${i} about hotels, trains and museums in Rome.` }));
  earlier.push(new AIMessage({ id: `old-a${i}`, content: `Earlier answer ${i}: a long list of hotels, trains and museums in Rome.` }));
}
await agent.invoke({ messages: [...earlier, new HumanMessage({ id: "u1", content: "Book me a flight to Rome." })] }, thread2);
await agent.invoke({ messages: [new HumanMessage({ id: "u2", content: "Wait, what is the weather there in May?" })] }, thread2);
const sent2 = model2.calls[1].messages;
console.log(`agent: the model got ${show(sent2)}`);
assert.equal(show(sent2), "system, human, ai, tool(call_1), human");
const state2 = await agent.graph.getState(thread2);
console.log(`agent: state keeps all ${state2.values.messages.length} messages, the answer at index ${state2.values.messages.findIndex((m) => m.type === "tool")}`);
assert.equal(state2.values.messages.length, 11);
assert.equal(state2.values.messages[8].id, "stategate-repair:ai-1:call_1");
