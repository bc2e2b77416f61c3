// The stategate demo page, entry module: a real transcript replayed step by step through a
// StateStore, seen three ways — by the model (store.modelView), by the app (the system view:
// every channel but private ones) and by a private middleware (one private channel holding a
// canary that must never show up anywhere else). This module loads the package, wires the
// controls and exposes a read-only handle for the browser tests. Plain ES modules, no build step:
// dom.js (helpers), state.js (page state), replay.js, scenarios.js, render*.js (one per panel).
import { load } from "../pkg/web.js";
import { $, h, fmt, status, explain } from "./dom.js";
import { core, tape, ui, params, TRANSCRIPTS } from "./state.js";
import { loadBundled, loadText, loadSource, textCache, setPlaying, step, toEnd } from "./replay.js";
import { interrupt, startTask, checkTask, cancelTask, compact, deliver } from "./scenarios.js";
import { render } from "./render.js";

/** The budget slider maps 0…1000 to 250…16,000 tokens on a log scale, in round steps. */
function budgetFromSlider(v) {
  const raw = 250 * Math.pow(64, Number(v) / 1000);
  const step = raw < 1000 ? 25 : raw < 5000 ? 50 : 250;
  return Math.round(raw / step) * step;
}
function sliderFromBudget(b) {
  return Math.round((1000 * Math.log(b / 250)) / Math.log(64));
}

function wireSource() {
  const select = $("transcript");
  select.replaceChildren(...TRANSCRIPTS.map((t) => h("option", { value: t.file }, t.label)));
  select.addEventListener("change", () => {
    const v = select.value;
    if (v.startsWith("file:")) loadText(v.slice(5), textCache.get(v));
    else loadBundled(v).catch((e) => status(explain(e), true));
  });
  $("run-index").addEventListener("change", async () => {
    const text = textCache.get(select.value);
    if (!tape.source || text === undefined) return;
    const run = Math.min(Math.max(0, Number($("run-index").value) || 0), tape.source.runs.length - 1);
    $("run-index").value = String(run);
    await loadSource({ ...tape.source, run });
  });
  $("file").addEventListener("change", async (ev) => {
    const f = ev.target.files?.[0];
    if (f) await loadText(f.name, await f.text());
    ev.target.value = "";
  });
  let depth = 0;
  document.addEventListener("dragenter", (e) => { e.preventDefault(); depth++; $("drop-hint").hidden = false; });
  document.addEventListener("dragleave", () => { if (--depth <= 0) { depth = 0; $("drop-hint").hidden = true; } });
  document.addEventListener("dragover", (e) => e.preventDefault());
  document.addEventListener("drop", async (e) => {
    e.preventDefault();
    depth = 0;
    $("drop-hint").hidden = true;
    const f = e.dataTransfer?.files?.[0];
    if (f) await loadText(f.name, await f.text());
  });
}

function wireControls() {
  $("play").addEventListener("click", () => setPlaying(!tape.playing));
  $("step").addEventListener("click", () => { setPlaying(false); step(); });
  $("end").addEventListener("click", () => toEnd());
  $("reset").addEventListener("click", () => tape.source && loadSource(tape.source));
  $("timeline").addEventListener("input", (e) => {
    const v = Number(e.target.value);
    if (v < core.store.version) setPlaying(false);
    ui.viewSeq = v >= core.store.version ? null : v;
    render();
  });

  const budget = $("budget");
  budget.value = String(sliderFromBudget(ui.budget));
  const showBudget = () => ($("budget-label").textContent = `${fmt(ui.budget)} tokens`);
  showBudget();
  budget.addEventListener("input", () => {
    ui.budget = budgetFromSlider(budget.value);
    showBudget();
    render();
  });
  $("format").addEventListener("change", (e) => { ui.format = e.target.value; render(); });
  $("previews").addEventListener("change", (e) => { ui.previewOver = Number(e.target.value); render(); });
  $("start-on-user").addEventListener("change", (e) => { ui.startOnUser = e.target.checked; render(); });

  $("sc-interrupt").addEventListener("click", interrupt);
  $("sc-start").addEventListener("click", startTask);
  $("sc-check").addEventListener("click", checkTask);
  $("sc-cancel").addEventListener("click", cancelTask);
  $("sc-compact").addEventListener("click", compact);
  $("deliver").addEventListener("click", deliver);
}

async function main() {
  try {
    core.sg = await load();
  } catch (e) {
    $("progress").textContent = "the package did not load — run `make build` first";
    status(explain(e), true);
    throw e;
  }
  wireSource();
  wireControls();
  const first = params.get("transcript") ?? TRANSCRIPTS[0].file;
  $("transcript").value = first;
  await loadBundled(first, Number(params.get("run") ?? 0));
  document.body.dataset.ready = "true";
}

// Uncaught errors are shown in the scenario bar and kept for the browser tests (Firefox has no
// console hook in WebDriver classic).
const errors = [];
window.addEventListener("error", (e) => {
  errors.push(String(e.message ?? e));
  status(`error: ${e.message}`, true);
});
window.addEventListener("unhandledrejection", (e) => {
  errors.push(explain(e.reason));
  status(`error: ${explain(e.reason)}`, true);
});

// A read-only handle for the browser tests: they check that the canary really is in the store
// (so its absence from the page means something) and ask the store's own scan about any text.
// Nothing here is rendered.
window.stategateDemo = {
  privateValues: () => (core.store ? core.store.private(core.memoryKey) : {}),
  privateLeaks: (values) => (core.store ? core.store.privateLeaks(values) : []),
  version: () => core.store?.version ?? 0,
  errors: () => [...errors],
};

main();
