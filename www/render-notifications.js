// The notifications row: the task notifications the async task ledger queued (AsyncTasks.poll),
// each queued, delivered (appended as a user message) or dropped (the model already saw that
// status through its own tool); and whether "Deliver to the model" can act.
import { $, h, statusBadge } from "./dom.js";

export function renderNotifications(view, live) {
  const all = Object.values(view.get("notifications") ?? {});
  const box = $("notifications");
  if (!all.length) {
    box.replaceChildren(h("span", { class: "muted" }, "none — notifications come from the async task ledger"));
  } else {
    all.sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
    box.replaceChildren(...all.map((n) => {
      const state = n.delivered_at ? "delivered" : n.dropped ? "dropped" : "queued";
      return h("span", { class: `note ${state}`, "data-task": n.task_id, "data-state": state, title: n.dropped ? `not delivered: ${n.dropped}` : n.result ?? n.error ?? "" },
        statusBadge(n.status), h("span", { class: "mono" }, `task ${n.task_id}`), `· ${n.agent_name}`, h("span", { class: "state" }, n.dropped && !n.delivered_at ? `dropped: ${n.dropped}` : state));
    }));
  }
  $("deliver").disabled = !live || !all.some((n) => !n.delivered_at && !n.dropped);
}
