// A Vite page (run by tests/js/pack.test.mjs from the installed tarball, in headless Chromium):
// the page keeps the conversation in a StateStore; a module Web Worker — its own instance of the
// package — repairs and projects what the page sends it and answers with the model view. Both
// import the bare "stategate": Vite bundles the wasm for the page and for the worker.
//
//   npm i stategate vite && npx vite examples/vite-worker
import { StateStore, validateMessages } from "stategate";

const store = new StateStore({ runId: "page" });
store.apply({ author: "user", update: { messages: [{ role: "user", content: "Weather in Paris and Rome?" }] } });
const call = (id, city) => ({ id, type: "function", function: { name: "weather", arguments: JSON.stringify({ city }) } });
store.apply({ author: "model", update: { messages: [{ role: "assistant", content: null, tool_calls: [call("c1", "Paris"), call("c2", "Rome")] }] } });
// The tab was closed before Rome's result came back: c2 is left without one.
store.apply({ author: "tool:c1", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "18°C" }] } });

const history = store.messages("openai");
const page = {
  version: store.version,
  problems: validateMessages(history, { provider: "anthropic" }).map((v) => `${v.rule}:${v.toolCallId}`),
};

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
worker.onmessage = ({ data }) => {
  // The worker is ready once its own copy of the wasm is loaded: then it gets the history.
  if (data.ready) return worker.postMessage({ history, budget: 500 });
  document.getElementById("out").textContent = JSON.stringify({ page, worker: data }, null, 2);
  window.result = { page, worker: data };
};
worker.onerror = (e) => {
  window.failure = `worker: ${e.message}`;
};
