// The programs every pack-test target runs (Node ESM and CommonJS, an esbuild bundle, a Vite
// build, a Web Worker, workerd- and edge-condition bundles) on the package as each imported it
// (`sg`: the module namespace), returning what they saw: `run` on `stategate` (each target asserts
// EXPECTED), `runMessages` on `stategate/messages` and on `stategate` (EXPECTED_MESSAGES).

const call = { id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } };
const history = [
  { role: "user", content: "Weather in Paris?" },
  { role: "assistant", content: null, tool_calls: [call] },
];

/** The message gate: validates, repairs, converts and decodes; bad input is refused. */
export function runMessages(sg) {
  const { validateMessages, repairMessages, convertMessages, decodeMessages, providerOf, isStategateError, StategateError } = sg;
  const repaired = repairMessages(history, { provider: "anthropic" });
  let refused = "";
  try {
    decodeMessages([{ role: "critic", content: "x" }]);
  } catch (e) {
    refused = `${isStategateError(e)}:${e instanceof StategateError}:${e.code}:${e.details.index}`;
  }
  return {
    rules: validateMessages(history, { provider: "openai" }).map((v) => `${v.rule}@${v.index}:${v.toolCallId}`),
    repaired: repaired.report.map((f) => `${f.kind}:${f.action}:${f.toolCallId}`),
    same: repaired.messages[0] === history[0],
    anthropic: convertMessages(repaired.messages, { to: "anthropic" }).map((m) => `${m.role}:${Array.isArray(m.content) ? m.content.map((p) => p.type).join("+") : typeof m.content}`),
    decoded: decodeMessages(history).map((m) => `${m.role}:${m.tool_calls?.map((c) => c.name).join("+") ?? ""}`),
    provider: providerOf("ai-sdk"),
    refused,
  };
}

/** What runMessages() returns everywhere. */
export const EXPECTED_MESSAGES = {
  rules: ["MISSING_TOOL_RESULT@1:c1"],
  repaired: ["missing_result:inserted:c1"],
  same: true,
  anthropic: ["user:string", "assistant:tool_use", "user:tool_result"],
  decoded: ["user:", "assistant:weather"],
  provider: "openai",
  refused: "true:true:UNKNOWN_ROLE:0",
};

/** Validates, repairs, fills a store and projects its model view; a stale write is refused. */
export function run(sg) {
  const { validateMessages, repairMessages, StateStore, isStategateError, StategateError } = sg;
  const rules = validateMessages(history, { provider: "openai" }).map((v) => `${v.rule}@${v.index}:${v.toolCallId}`);
  const repaired = repairMessages(history, { provider: "openai" });
  const store = new StateStore({ runId: "pack" });
  store.apply({ author: "user", update: { messages: [history[0]] } });
  store.apply({ author: "model", update: { messages: [history[1]] } });
  store.apply({ author: "tool:c1", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "18°C" }] } });
  const view = store.modelView({ format: "anthropic", budget: 1000 });
  let refused = "";
  try {
    store.apply({ author: "x", expectedVersion: 0, update: { todos: [] } });
  } catch (e) {
    refused = `${isStategateError(e)}:${e instanceof StategateError}:${e.code}`;
  }
  const version = store.version;
  store.free();
  return {
    rules,
    repaired: repaired.report.map((f) => `${f.kind}:${f.action}:${f.toolCallId}`),
    version,
    view: view.messages.map((m) => `${m.role}:${Array.isArray(m.content) ? m.content.map((p) => p.type).join("+") : typeof m.content}`),
    refused,
  };
}

/** What run() returns everywhere. */
export const EXPECTED = {
  rules: ["MISSING_TOOL_RESULT@1:c1"],
  repaired: ["missing_result:inserted:c1"],
  version: 3,
  view: ["user:string", "assistant:tool_use", "user:tool_result"],
  refused: "true:true:VERSION_CONFLICT",
};
