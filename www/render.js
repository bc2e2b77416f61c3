// Rendering: render() draws every panel from the store as the timeline shows it (live, or a
// read-only past view from store.at()), then the page chrome (timeline, transport buttons,
// progress) and, last, the private-leak check over what was drawn.
import { $, status } from "./dom.js";
import { core, tape, ui } from "./state.js";
import { renderModel } from "./render-model.js";
import { renderSystem } from "./render-system.js";
import { renderPrivate, leakCheck } from "./render-private.js";
import { renderNotifications } from "./render-notifications.js";

/** Renders every view of the store as the timeline shows it; `follow` scrolls to the newest message. */
export function render({ follow = false } = {}) {
  const store = core.store;
  if (!store) return;
  const live = ui.viewSeq === null || ui.viewSeq >= store.version;
  if (live) ui.viewSeq = null;
  const view = live ? store : store.at(ui.viewSeq);
  try {
    renderModel(view);
    if (follow && live) $("model-list").scrollTop = $("model-list").scrollHeight;
    renderSystem(view, live);
    renderPrivate(view);
    renderNotifications(view, live);
    renderChrome(view, live);
    leakCheck(view);
  } finally {
    if (!live) view.free();
  }
}

function renderChrome(view, live) {
  const version = core.store.version;
  const tl = $("timeline");
  tl.max = String(version);
  tl.value = String(view.version);
  tl.disabled = false;
  const ev = view.version > 0 ? view.events({ since: view.version - 1 })[0] : null;
  $("timeline-label").textContent = ev ? `event ${ev.sequence} / ${version} · ${ev.type} by ${ev.author}` : `event 0 / ${version} · empty store`;
  const badge = $("live-badge");
  badge.className = `badge ${live ? "live" : "past"}`;
  badge.textContent = live ? "● live" : "⟲ past view (read-only) — store.at()";
  const total = tape.steps.length;
  const last = tape.steps[tape.cursor - 1];
  $("progress").textContent = `step ${tape.cursor} / ${total}${last?.error ? ` — refused: ${last.error.code}` : ""}`;
  $("progress").title = last ? `last step: ${last.label}` : "";
  const done = tape.cursor >= total;
  $("play").disabled = done && !tape.playing;
  $("step").disabled = done;
  $("end").disabled = done;
  $("reset").disabled = false;
  $("transcript").disabled = false;
  const ledger = Object.values(core.store.get("async_tasks") ?? {});
  for (const id of ["sc-interrupt", "sc-start", "sc-compact"]) $(id).disabled = false;
  $("sc-check").disabled = $("sc-cancel").disabled = ledger.length === 0;
  // In a past view a scenario branches: say so before anyone clicks.
  document.querySelector(".scenarios").classList.toggle("branching", !live);
  if (!live) status(`Past view: a scenario here branches from event ${view.version} and leaves events ${view.version + 1}–${version} behind (drag the slider to the end to stay live)`);
  else if ($("scenario-status").textContent.startsWith("Past view:")) status("");
}
