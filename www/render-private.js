// The private state panel: the private channels by name and owner (never their contents), and
// the leak check: after every render the text and HTML of each other panel go to the store's own
// scan (store.privateLeaks), which names the private channels whose values appear there. The
// page never reads a private value for this; it cannot count or see them.
import { $, h } from "./dom.js";
import { core, TRANSCRIPT_DIR } from "./state.js";

/** The regions of the page the check covers, by the name the badge uses. */
const REGIONS = {
  "model view": () => $("model-panel"),
  "system state": () => $("system-panel"),
  notifications: () => document.querySelector(".notices"),
  "scenario bar": () => document.querySelector(".scenarios"),
  "header bar": () => document.querySelector(".bar"),
};

let checks = 0;

export function renderPrivate(view) {
  const privates = view.channels().filter((c) => c.visibility === "private");
  const n = privates.length;
  $("private-body").replaceChildren(
    h("div", { class: "vault" },
      h("div", { class: "count", id: "private-count" }, `${n} private channel${n === 1 ? "" : "s"}, contents hidden`),
      h("div", { class: "hidden" }, "readable only with the owner's key: store.private(key)"),
      h("ul", {}, privates.map((c) => h("li", {}, `“${c.name}” — owner: ${c.owner}`)))),
    h("div", { class: "leak", id: "leak-check" }),
    h("div", { class: "about" },
      h("p", {}, "The ", h("b", {}, "memory"), " middleware owns this channel. ", h("code", {}, "systemView()"), ", ", h("code", {}, "toJSON()"), ", ", h("code", {}, "exportForTransport()"), " and every error leave it out; ", h("code", {}, "modelView()"), " refuses any output containing one of its strings (", h("code", {}, "PRIVATE_LEAK"), ")."),
      h("p", {}, "Each step is a command: decode → authorise → version lock → validate → reduce → one hash-chained event. Move the ", h("b", {}, "Event log"), " slider to see any earlier state (", h("code", {}, "store.at(sequence)"), ")."),
      h("p", {}, "Transcripts are real recorded runs: ", h("a", { href: `${TRANSCRIPT_DIR}SOURCES.md`, target: "_blank", rel: "noopener" }, "sources and licences"), ". Everything runs in this tab, in WebAssembly.")),
  );
}

/**
 * Which regions show a private value, and of which channels: each region's text and HTML
 * checked by the live store's scan, and by the past view's when the timeline shows one.
 */
function leaksIn(view) {
  const stores = view === core.store ? [core.store] : [core.store, view];
  const found = [];
  for (const [name, region] of Object.entries(REGIONS)) {
    const el = region();
    const values = [el.textContent, el.innerHTML];
    const channels = [...new Set(stores.flatMap((s) => s.privateLeaks(values)))];
    if (channels.length) found.push({ name, channels });
  }
  return found;
}

export function leakCheck(view) {
  const found = leaksIn(view);
  checks += 1;
  const badge = $("leak-check");
  badge.className = `leak ${found.length ? "bad" : "ok"}`;
  badge.replaceChildren(
    h("b", {}, found.length
      ? `✗ private value found in: ${found.map((f) => `${f.name} (channel ${f.channels.join(", ")})`).join("; ")}`
      : "✓ no private value in the other panels"),
    `the ${Object.keys(REGIONS).join(", ")} checked against the store's private channels (store.privateLeaks) at event ${view.version} (${checks} checks so far)`,
  );
}
