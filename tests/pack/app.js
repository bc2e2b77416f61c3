// The one program every pack-test target runs (Node ESM and CommonJS, an esbuild bundle, a Vite
// build, a Web Worker, workerd- and edge-condition bundles) on the package as each imported it
// (`sg`: the module namespace), returning what it saw. Each target asserts the same EXPECTED.

/** Validates, repairs, fills a store and projects its model view; a stale write is refused. */
export function run(sg) {
  const { validateMessages, repairMessages, StateStore, isStategateError, StategateError } = sg;
  const call = { id: "c1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } };
  const history = [
    { role: "user", content: "Weather in Paris?" },
    { role: "assistant", content: null, tool_calls: [call] },
  ];
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
