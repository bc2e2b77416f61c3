// IndexedDbLog (ts/indexeddb-log.ts) in real browsers: headless Chromium through playwright-core
// and Debian's firefox-esr through geckodriver (WebDriver classic; playwright-core cannot drive
// it here, see www.test.mjs). scripts/serve.mjs serves the repository on a free loopback port;
// each browser imports the built package (pkg/browser.js) into a page of that origin and runs
// the same scenario: save, append, reopen, load and restore a store whose run stopped inside a
// tool batch; a tampered log loaded and refused by replay; typed rejections (not events, not
// bytes, not a name, a closed connection, a freed log). Node has no IndexedDB: there, `open`
// rejects with STORAGE_ERROR (checked below).
//
// Run: node --test tests/js/indexeddb.test.mjs   (needs the built package: make build)
// Env: CHROMIUM_PATH (default /usr/bin/chromium), FIREFOX_PATH (default /usr/bin/firefox-esr),
//      GECKODRIVER (default: geckodriver on PATH or in ~/.cargo/bin).
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve, ROOT } from "../../scripts/serve.mjs";
import { NO_FIREFOX, startFirefox } from "./support/firefox.mjs";
import { IndexedDbLog as NodeIndexedDbLog } from "../../pkg/index.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const BIG = 20_000;

/** Runs in the page: every IndexedDbLog case, reported as one JSON-able object. */
async function scenario() {
  const { IndexedDbLog, StateStore } = await import("/pkg/browser.js");
  const out = {};
  const code = async (work) => {
    try {
      await work();
      return "resolved";
    } catch (e) {
      return `${e?.name}:${e?.code}`;
    }
  };
  const CALLS = { author: "model", update: { messages: [{ role: "user", content: "fetch" }, { role: "assistant", content: null, tool_calls: ["c1", "c2", "c3"].map((id) => ({ id, type: "function", function: { name: "fetch", arguments: "{}" } })) }] } };

  // A run stopped after the first of three tool results of one batch: only its event was appended.
  await IndexedDbLog.destroy("stategate-test-1");
  let log = await IndexedDbLog.open("stategate-test-1");
  const store = new StateStore({ runId: "idb" });
  store.apply(CALLS);
  await log.append(store.events());
  await log.saveCheckpoint(store.checkpoint());
  store.apply({ author: "tool", update: { messages: [{ role: "tool", tool_call_id: "c1", content: "page 1" }] } });
  await log.append(store.events({ since: 1 }));
  log.close();
  log = await IndexedDbLog.open("stategate-test-1");
  const loaded = await log.load();
  out.checkpointIsBytes = loaded.checkpoint instanceof Uint8Array;
  out.lines = loaded.events.split("\n").filter(Boolean).length;
  const restored = StateStore.restore(loaded.checkpoint, loaded.events);
  out.version = restored.version;
  out.sameSystemView = JSON.stringify(restored.systemView()) === JSON.stringify(store.systemView());
  out.dangling = JSON.stringify(restored.danglingToolCalls());
  // Rewriting a sequence replaces it; JSON Lines and event arrays are one form.
  await log.append(store.eventsJsonl({ since: 1 }));
  out.linesAfterRewrite = (await log.load()).events.split("\n").filter(Boolean).length;
  log.close();
  await IndexedDbLog.destroy("stategate-test-1");

  // A tampered log is stored as given and refused by replay.
  await IndexedDbLog.destroy("stategate-test-2");
  const log2 = await IndexedDbLog.open("stategate-test-2");
  const s2 = new StateStore({ runId: "idb2" });
  s2.apply({ author: "u", update: { facts: { city: "Paris" } } });
  s2.apply({ author: "u", update: { facts: { day: "Monday" } } });
  await log2.append(s2.eventsJsonl().replace("Paris", "Rome!"));
  const l2 = await log2.load();
  out.tamperedCheckpoint = l2.checkpoint;
  try {
    StateStore.replay(l2.events);
    out.replayed = "accepted";
  } catch (e) {
    out.replayed = [e.code, e.details.index];
  }

  // Typed rejections, never throws.
  const notEvents = log2.append("not json\n");
  out.errors = {
    syncThrowOfAppend: notEvents instanceof Promise,
    notEvents: await code(() => notEvents),
    notBytes: await code(() => log2.saveCheckpoint("x")),
    badName: await code(() => IndexedDbLog.open(5)),
    notALog: await code(() => IndexedDbLog.prototype.load.call({})),
  };
  log2.close();
  out.errors.closed = await code(() => log2.load());
  log2.free();
  out.errors.freed = await code(() => log2.load());
  out.errors.freedClose = await code(() => log2.close());
  await IndexedDbLog.destroy("stategate-test-2");
  return out;
}

function check(out) {
  assert.equal(out.checkpointIsBytes, true);
  assert.equal(out.lines, 2);
  assert.equal(out.version, 2);
  assert.equal(out.sameSystemView, true);
  assert.equal(out.dangling, '[{"toolCallId":"c2","name":"fetch","messageId":"idb:1:1"},{"toolCallId":"c3","name":"fetch","messageId":"idb:1:1"}]');
  assert.equal(out.linesAfterRewrite, 2);
  assert.equal(out.tamperedCheckpoint, null);
  assert.deepEqual(out.replayed, ["TAMPERED_LOG", 0]);
  assert.deepEqual(out.errors, {
    syncThrowOfAppend: true,
    notEvents: "StategateError:TAMPERED_LOG",
    notBytes: "StategateError:INVALID_OPTION",
    badName: "StategateError:INVALID_OPTION",
    notALog: "StategateError:INVALID_OPTION",
    closed: "StategateError:STORAGE_ERROR",
    freed: "StategateError:FREED",
    freedClose: "StategateError:FREED",
  });
}

let server;
before(async () => {
  assert.ok(existsSync(join(ROOT, "pkg", "browser.js")), "build the package first (make build)");
  server = await serve({ root: ROOT, port: 0 });
});
after(async () => {
  await server?.close();
});

test("in Node (no IndexedDB) open rejects with STORAGE_ERROR", async () => {
  await assert.rejects(NodeIndexedDbLog.open("x"), (e) => e.code === "STORAGE_ERROR" && /not available here/.test(e.message));
});

describe("IndexedDbLog in headless Chromium", () => {
  let browser;
  before(async () => {
    assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (scripts/setup.sh installs Debian's; or set CHROMIUM_PATH)`);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  });
  after(async () => {
    await browser?.close().catch(() => {});
  });

  test("saves, appends, loads and restores; refuses what is not a log", async () => {
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${server.url}README.md`);
    check(await page.evaluate(scenario));
    assert.deepEqual(problems, []);
  });
});

describe("IndexedDbLog in headless Firefox (geckodriver)", { skip: NO_FIREFOX }, () => {
  let firefox;
  let session;
  const wd = (...a) => firefox.wd(...a);

  before(async () => {
    firefox = await startFirefox();
    session = firefox.session;
    await wd("POST", `/session/${session}/timeouts`, { script: BIG });
  });
  after(async () => {
    await firefox?.close();
  });

  test("saves, appends, loads and restores; refuses what is not a log", async () => {
    await wd("POST", `/session/${session}/url`, { url: `${server.url}README.md` });
    // The scenario runs as a module script of the page itself: WebDriver's own scripts run in a
    // sandbox whose realm differs from the page's (a Uint8Array IndexedDB hands back would not
    // be one of the sandbox's), so the result comes back through the DOM.
    await wd("POST", `/session/${session}/execute/sync`, {
      script: `const s = document.createElement("script"); s.type = "module";
        s.textContent = "(" + arguments[0] + ")().then((out) => { document.documentElement.dataset.idb = JSON.stringify({ out }); }, (e) => { document.documentElement.dataset.idb = JSON.stringify({ error: [e && e.code, e && e.message, e && e.stack].join(' | ') }); });";
        document.head.append(s);`,
      args: [String(scenario)],
    });
    const result = JSON.parse(
      await wd("POST", `/session/${session}/execute/async`, {
        script: `const done = arguments[arguments.length - 1]; const t0 = Date.now();
          (function poll() { const v = document.documentElement.dataset.idb; if (v) done(v); else if (Date.now() - t0 > ${BIG}) done(JSON.stringify({ error: "timed out" })); else setTimeout(poll, 30); })();`,
        args: [],
      }),
    );
    assert.equal(result.error, undefined, result.error);
    check(result.out);
  });
});
