// The worker: repairs the history it is sent for Anthropic and answers with the model view.
// "stategate" loads its wasm by top-level await, so this module runs only once it is loaded:
// a message posted before then would find no listener. It says when it is ready instead.
import { projectMessages, repairMessages } from "stategate";

self.onmessage = ({ data: { history, budget } }) => {
  const { messages, report } = repairMessages(history, { provider: "anthropic", reasons: { c2: "interrupted" } });
  const view = projectMessages(messages, { budget, format: "anthropic", system: "You are a weather assistant." });
  self.postMessage({
    repaired: report.map((f) => `${f.kind}:${f.action}:${f.toolCallId}`),
    roles: view.messages.map((m) => m.role),
    results: view.messages.at(-1).content.map((b) => `${b.type}:${b.tool_use_id}`),
    interrupted: JSON.stringify(view.messages.at(-1).content).includes("interrupted"),
  });
};

self.postMessage({ ready: true });
