// The demo page (www/) in real browsers. Playwright (playwright-core from npm) drives Debian's
// Chromium headless against scripts/serve.mjs on a free loopback port: it replays a bundled
// transcript, shrinks the budget, runs the interrupt, async-task and compaction scenarios, travels
// back in time, opens a file, checks that a planted private canary is nowhere in the page, and
// fails on any console error or warning. Screenshots (1280×800) go to test-results/www/.
//
// Firefox cannot be driven by playwright-core here. It drives Firefox either through
// Playwright's own patched build (the Juggler protocol: a binary download this machine cannot
// fetch; Debian's firefox-esr starts and exits at once) or, with `channel: "moz-firefox"`, over
// WebDriver BiDi — and there Firefox ESR 153 lacks `emulation.setMediaFeaturesOverride`, which
// Playwright sends when it opens any page, so `newPage()` fails ("unknown command"). So the
// second suite drives Debian's firefox-esr through geckodriver (WebDriver classic over plain
// HTTP, no dependency): the same page, replay, budget, interrupt, async task and canary checks,
// with uncaught errors read from the page (classic WebDriver has no console access).
//
// Run: node --test tests/js/www.test.mjs   (needs the built package: make build)
// Env: CHROMIUM_PATH (default /usr/bin/chromium), FIREFOX_PATH (default /usr/bin/firefox-esr),
//      GECKODRIVER (default: geckodriver on PATH or in ~/.cargo/bin); STATEGATE_WWW_ROOT serves
//      another checkout.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve, ROOT as REPO } from "../../scripts/serve.mjs";
import { NO_FIREFOX, startFirefox } from "./support/firefox.mjs";

const ROOT = process.env.STATEGATE_WWW_ROOT ?? REPO;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUT = join(REPO, "test-results", "www");
const CANARY = `CANARY-PRIVATE-test-${Math.random().toString(36).slice(2, 10)}`;
const BIG = 20_000; // every wait; conditions, never fixed sleeps

let server;
let browser;
let page;
const problems = [];

/** The slider position for a budget (the page maps 0…1000 to 250…16,000 tokens, log scale). */
const sliderFor = (budget) => Math.round((1000 * Math.log(budget / 250)) / Math.log(64));

async function setRange(selector, value) {
  await page.$eval(selector, (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, value);
}
const sent = async () => Number(await page.getAttribute("#model-list", "data-sent"));
const text = (selector) => page.textContent(selector);
const shot = (name) => page.screenshot({ path: join(OUT, `${name}.png`) });
/** Scrolls the model view to where the greyed, not-sent messages meet the sent ones. */
const showBoundary = () =>
  page.$eval("#model-list", (list) => {
    const grey = list.querySelectorAll(".msg.dropped");
    const last = grey[grey.length - 1];
    list.scrollTop = last ? last.offsetTop - list.offsetTop - list.clientHeight / 3 : 0;
  });
const progress = async () => Number(/step (\d+)/.exec(await text("#progress"))?.[1] ?? NaN);

before(async () => {
  assert.ok(existsSync(join(ROOT, "pkg", "web.js")), `no ${join(ROOT, "pkg", "web.js")}: build the package first (make build)`);
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM} (scripts/setup.sh installs Debian's; or set CHROMIUM_PATH)`);
  mkdirSync(OUT, { recursive: true });
  server = await serve({ root: ROOT, port: 0 });
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(BIG);
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
});

after(async () => {
  await browser?.close().catch(() => {});
  await server?.close();
});

describe("the demo page in headless Chromium", { concurrency: false }, () => {
  test("loads the package and replays a picked transcript step by step", async () => {
    await page.goto(`${server.url}www/?transcript=openhands-basic-gui-mode.json&canary=${CANARY}`);
    await page.waitForSelector("body[data-ready=true]");
    // Pick another bundled transcript: the Claude Code session.
    await page.selectOption("#transcript", "claudecode-coverage-test-fix.jsonl");
    await page.waitForFunction(() => /^step 0 \/ \d+/.test(document.querySelector("#progress").textContent) && document.querySelector("#scenario-status").textContent.startsWith("claudecode"));
    const total = Number(/step 0 \/ (\d+)/.exec(await text("#progress"))[1]);
    assert.ok(total > 10, `steps: ${total}`);

    await page.click("#step");
    await page.click("#step");
    await page.waitForFunction(() => document.querySelector("#progress").textContent.startsWith("step 2 /"));
    assert.equal(await text("#run-status"), "running");
    assert.ok((await sent()) >= 1, "the first user message reaches the model view");

    await page.click("#play");
    await page.waitForFunction(() => Number(/step (\d+)/.exec(document.querySelector("#progress").textContent)[1]) >= 5);
    await page.click("#play"); // pause
    const paused = await progress();
    await page.waitForFunction(() => document.querySelector("#play").getAttribute("aria-pressed") === "false");
    assert.ok(paused >= 5 && paused < total, `paused at ${paused}`);

    await page.click("#end");
    await page.waitForFunction((n) => document.querySelector("#progress").textContent.startsWith(`step ${n} /`), total);
    await page.waitForFunction(() => document.querySelector("#run-status").textContent === "completed");
    assert.ok((await sent()) > 10, "the model view has the conversation");
    assert.match(await text("#model-summary"), /messages sent in openai format/);
    assert.ok((await page.$$("#model-list .msg.sent.assistant")).length > 0);
    assert.ok((await page.$$("#model-list .msg.sent.tool .tbar")).length > 0, "per-message token bars");
    assert.match(await text("#system-body"), /Event log \(\d+ events, hash-chained\)/);
    await showBoundary();
    await shot("01-replayed");
  });

  test("a smaller budget sends fewer messages and greys the rest with the reason", async () => {
    const before = await sent();
    const greyBefore = (await page.$$("#model-list .msg.dropped")).length;
    await setRange("#budget", sliderFor(1000));
    await page.waitForFunction((n) => Number(document.querySelector("#model-list").dataset.sent) < n, before);
    const after = await sent();
    assert.ok(after < before && after > 0, `sent ${before} → ${after}`);
    const grey = await page.$$eval("#model-list .msg.dropped .tag.drop", (els) => els.map((e) => e.textContent));
    assert.ok(grey.length > greyBefore, `greyed ${greyBefore} → ${grey.length}`);
    assert.ok(grey.every((t) => /^not sent: (budget|start on user)$/.test(t)), grey.join("; "));
    assert.match(await text("#budget-label"), /^1,000 tokens$/);
    await shot("02-small-budget");
    // The format selector changes what is sent, not what is kept: the same stored messages, in
    // other encoded messages (Anthropic puts a turn's tool results into one user message; the
    // whole Claude Code session fits 4,000 tokens, parallel calls and all).
    await setRange("#budget", sliderFor(4000));
    await page.waitForFunction(() => document.querySelector("#model-summary").textContent.includes("/ 4,000 tokens"));
    const keptIds = () => page.$$eval("#model-list .msg.sent[data-ids]", (els) => els.flatMap((e) => e.dataset.ids.split(" + ")));
    const idsOpenai = await keptIds();
    assert.match(await text("#model-list"), /"tool_calls"/, "the cards show the encoded messages as sent");
    assert.doesNotMatch(await text("#model-list"), /"tool_use"/);
    await page.selectOption("#format", "anthropic");
    await page.waitForFunction(() => document.querySelector("#model-summary").textContent.includes("in anthropic format"));
    assert.match(await text("#model-list"), /"type": "tool_use"/);
    assert.doesNotMatch(await text("#model-list"), /"tool_calls"/);
    assert.deepEqual(await keptIds(), idsOpenai, "the same stored messages are sent");
    const merged = await page.$$eval("#model-list .msg.sent.tool[data-ids]", (els) => els.filter((e) => e.dataset.ids.includes(" + ")).length);
    assert.ok(merged > 0, "parallel tool results share one encoded message");
    await page.selectOption("#format", "openai");
    await setRange("#budget", sliderFor(2000));
    await page.waitForFunction((n) => Number(document.querySelector("#model-list").dataset.sent) === n, before);
  });

  test("interrupt mid-batch: dangling calls, violations, then the repair report", async () => {
    await page.click("#sc-interrupt");
    await page.waitForSelector("#scenario-report[data-scenario=interrupt]");
    const report = await text("#scenario-report");
    const dangling = [...report.matchAll(/\((call_i\d+_\w+)\)/g)].map((m) => m[1]);
    const ids = [...new Set(dangling)];
    assert.equal(ids.length, 2, report);
    assert.match(report, /2 dangling calls/);
    assert.match(report, /MISSING_TOOL_RESULT/);
    for (const id of ids) assert.match(report, new RegExp(`interrupted · inserted · ${id}`), `a fix for ${id}`);
    assert.match(report, /violations after repair: none/);
    assert.match(await text("#violations"), /no violations/);
    assert.equal(await text("#run-status"), "running", "the scenario continues the run from before it completed");
    await shot("03-interrupt-repair");

    // One event back: the past view shows the calls unanswered and the violations.
    const version = Number(await page.getAttribute("#timeline", "max"));
    await setRange("#timeline", version - 1);
    await page.waitForFunction(() => document.querySelector("#live-badge").textContent.includes("past view"));
    assert.match(await text("#violations"), /MISSING_TOOL_RESULT/);
    assert.match(await text("#system-body"), /dangling calls: run_tests/);
    // The model view repairs its selection: the answers it adds there are not in the store.
    assert.match(await text("#model-list"), /↳ answers call_i\d+_tests: synthetic result added by repair \(missing result\)/);
    assert.ok((await page.$$("#model-list .msg.sent.tool .tag.repair")).length > 0);
    await setRange("#timeline", version);
    await page.waitForFunction(() => document.querySelector("#live-badge").textContent.includes("live"));
  });

  test("async task: start on the in-page server, a notification arrives, check, deliver, cancel", async () => {
    await page.click("#sc-start");
    await page.waitForSelector("#system-body tr[data-task]");
    const task = await page.getAttribute("#system-body tr[data-task]", "data-task");
    assert.match(await text("#scenario-report"), new RegExp(`task_id: ${task}`));
    // The page polls the simulated server (AsyncTasks.poll) until the run succeeds.
    const note = page.locator(`#notifications .note[data-task="${task}"]`);
    await note.waitFor();
    assert.match(await note.textContent(), new RegExp(`success.*task ${task}.*researcher.*queued`));
    await showBoundary();
    await shot("04-async-notification"); // docs/screenshot.png is a copy of this one


    await page.click("#deliver");
    await page.waitForSelector(`#notifications .note[data-task="${task}"][data-state=delivered]`);
    assert.match(await text("#model-list"), new RegExp(`<task-id>${task}</task-id>`), "delivered as a user message the model reads");

    await page.click("#sc-check");
    await page.waitForSelector("#scenario-report[data-scenario=task-check]");
    assert.match(await text("#scenario-report"), /"status":\s*"success"/);

    await page.click("#sc-start");
    await page.waitForFunction(() => document.querySelectorAll("#system-body tr[data-task]").length === 2);
    await page.click("#sc-cancel");
    await page.waitForSelector("#scenario-report[data-scenario=task-cancel]");
    assert.match(await text("#scenario-report"), /Cancelled async subagent task: thread-/);
    assert.match(await text("#system-body"), /cancelled/);
  });

  test("compaction: a summary replaces the older messages in the model view only", async () => {
    const inStore = Number(/\((\d+) in the store\)/.exec(await text("#model-summary"))[1]);
    await page.click("#sc-compact");
    await page.waitForSelector("#scenario-report[data-scenario=compact]");
    await page.waitForFunction(() => document.querySelector("#model-summary").textContent.includes("compacted"));
    assert.ok((await page.$$("#model-list .msg.summary")).length === 1, "the summary is sent");
    assert.equal(Number(/\((\d+) in the store\)/.exec(await text("#model-summary"))[1]), inStore, "no message removed from the store");
  });

  test("the planted private canary is nowhere in the page, and the leak check would see it", async () => {
    const values = await page.evaluate(() => window.stategateDemo.privateValues());
    assert.equal(values.memory?.canary, CANARY, "the canary really is in the private channel");
    assert.match(await text("#private-count"), /^1 private channel, contents hidden$/);
    assert.equal(await page.getAttribute("#leak-check", "class"), "leak ok");
    assert.match(await text("#leak-check"), /no private value in the other panels/);
    assert.match(await text("#leak-check"), /checked against the store's private channels/);
    const inner = await page.evaluate(() => document.body.innerText);
    const html = await page.content();
    assert.ok(!inner.includes(CANARY), "canary in innerText");
    assert.ok(!html.includes(CANARY), "canary in the HTML");
    assert.ok(!html.includes("owner-only scratchpad"), "private note in the HTML");
    // The store's own scan over the whole page agrees, and it does see the canary.
    const scan = (v) => page.evaluate((x) => window.stategateDemo.privateLeaks(x), v);
    assert.deepEqual(await scan([inner, html]), []);
    assert.deepEqual(await scan([`<i>${CANARY}</i>`]), ["memory"]);

    // Not vacuous: put the canary into a scanned region, re-render, and the badge turns red.
    await page.evaluate((c) => document.querySelector(".notices").append(Object.assign(document.createElement("span"), { id: "planted", textContent: c })), CANARY);
    await setRange("#budget", sliderFor(2100));
    await page.waitForFunction(() => document.querySelector("#leak-check").className === "leak bad");
    assert.match(await text("#leak-check"), /private value found in: notifications \(channel memory\)/);
    await page.evaluate(() => document.getElementById("planted").remove());
    await setRange("#budget", sliderFor(2000));
    await page.waitForFunction(() => document.querySelector("#leak-check").className === "leak ok");
  });

  test("the timeline travels back to an earlier state, read-only, and returns", async () => {
    await page.$eval("#model-list", (el) => (el.scrollTop = el.scrollHeight));
    await shot("05-live");
    const inStore = async () => Number(/\((\d+) in the store\)/.exec(await text("#model-summary"))[1]);
    const now = await inStore();
    await setRange("#timeline", 6);
    await page.waitForFunction(() => document.querySelector("#timeline-label").textContent.startsWith("event 6 /"));
    assert.match(await text("#live-badge"), /past view/);
    const then = await inStore();
    assert.ok(then < now && then > 0, `messages in the store: ${now} now, ${then} then`);
    assert.match(await text("#run-status"), /running/);
    assert.match(await text("#system-body"), /no tasks/);
    assert.equal(await page.isDisabled("#deliver"), true, "the past is read-only");
    await shot("06-time-travel");
    const max = Number(await page.getAttribute("#timeline", "max"));
    await setRange("#timeline", max);
    await page.waitForFunction(() => document.querySelector("#live-badge").textContent.includes("live"));
    assert.ok((await page.$$("#system-body tr[data-task]")).length === 2);
  });

  test("opens a file in any format the readers accept; τ-bench runs by number", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stategate-www-"));
    const file = join(dir, "anthropic-history.json");
    writeFileSync(file, JSON.stringify([
      { role: "user", content: "What is the weather in Paris?" },
      { role: "assistant", content: [{ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_1", name: "weather", input: { city: "Paris" } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18°C" }] },
      { role: "assistant", content: "It is 18°C in Paris." },
    ]));
    await page.setInputFiles("#file", file);
    await page.waitForFunction(() => document.querySelector("#transcript").value === "file:anthropic-history.json");
    await page.click("#end");
    await page.waitForFunction(() => document.querySelector("#run-status")?.textContent === "completed");
    assert.match(await text("#model-list"), /It is 18°C in Paris\./);
    assert.match(await text("#model-list"), /weather\(\{"city":"Paris"\}\)/);

    await page.selectOption("#transcript", "taubench-gpt4o-airline-historical.json");
    await page.waitForSelector("#run-pick:not([hidden])");
    await page.fill("#run-index", "7");
    await page.dispatchEvent("#run-index", "change");
    await page.waitForFunction(() => /run 7 of 200/.test(document.querySelector("#scenario-status").textContent));
    await page.click("#end");
    await page.waitForFunction(() => document.querySelector("#run-status")?.textContent === "completed");
    assert.ok((await sent()) > 1);
    assert.match(await text("#model-list"), /system prompt/);
    // The looked-up customer is a known fact: the app sees the e-mail, the model gets [redacted].
    await setRange("#budget", sliderFor(4000));
    await page.waitForFunction(() => document.querySelector("#model-summary").textContent.includes("redacted"));
    assert.match(await text("#model-list"), /Known facts[\s\S]*email: \[redacted\]/);
    assert.match(await text("#system-body"), /"email":"[^"]+@/);
    await shot("07-tau-bench-redacted");
  });

  test("no console error or warning, no failed request", () => {
    assert.deepEqual(problems, []);
  });
});

// ---------------------------------------------------------------- Firefox through geckodriver

describe("the demo page in headless Firefox (geckodriver)", { concurrency: false, skip: NO_FIREFOX }, () => {
  let firefox;
  let session;
  let ffServer;
  /** One WebDriver command; throws with the driver's error. */
  const wd = (...a) => firefox.wd(...a);

  /** Runs `fn(...args)` in the page and returns its result. */
  const run = (fn, ...args) => wd("POST", `/session/${session}/execute/sync`, { script: `return (${fn}).apply(null, arguments)`, args });
  /** Resolves once `fn(...args)` is truthy in the page (polled in the page, no fixed sleeps). */
  const until = (fn, ...args) =>
    wd("POST", `/session/${session}/execute/async`, {
      script: `const done = arguments[arguments.length - 1]; const args = [...arguments].slice(0, -1); const t0 = Date.now();
        const f = (${fn}); (function poll() { let v; try { v = f.apply(null, args); } catch (e) { v = false; }
        if (v) done(true); else if (Date.now() - t0 > ${BIG}) done(false); else setTimeout(poll, 30); })();`,
      args,
    }).then((ok) => assert.ok(ok, `timed out waiting for ${fn}`));
  const click = (selector) => run((s) => document.querySelector(s).click(), selector);
  const slide = (selector, v) => run((s, x) => { const el = document.querySelector(s); el.value = String(x); el.dispatchEvent(new Event("input", { bubbles: true })); }, selector, v);

  before(async () => {
    assert.ok(existsSync(join(ROOT, "pkg", "web.js")), "build the package first (make build)");
    mkdirSync(OUT, { recursive: true });
    ffServer = await serve({ root: ROOT, port: 0 });
    firefox = await startFirefox(["-headless", "--width=1280", "--height=800"]);
    session = firefox.session;
    await wd("POST", `/session/${session}/window/rect`, { width: 1280, height: 800 }).catch(() => {});
  });

  after(async () => {
    await firefox?.close();
    await ffServer?.close();
  });

  test("replays, shrinks the budget, repairs an interrupt, gets a task notification, leaks nothing", async () => {
    await wd("POST", `/session/${session}/url`, { url: `${ffServer.url}www/?canary=${CANARY}` });
    await until(() => document.body.dataset.ready === "true");
    await click("#end");
    await until(() => document.querySelector("#run-status")?.textContent === "completed");
    const full = Number(await run(() => document.querySelector("#model-list").dataset.sent));
    assert.ok(full > 10, `sent ${full}`);
    await slide("#budget", sliderFor(1000));
    await until((n) => Number(document.querySelector("#model-list").dataset.sent) < n, full);
    await slide("#budget", sliderFor(2000));

    await click("#sc-interrupt");
    await until(() => document.querySelector("#scenario-report[data-scenario=interrupt]"));
    const report = await run(() => document.querySelector("#scenario-report").textContent);
    assert.equal((report.match(/interrupted · inserted · call_i\d+_\w+/g) ?? []).length, 2, report);

    await click("#sc-start");
    await until(() => document.querySelector("#system-body tr[data-task]"));
    const task = await run(() => document.querySelector("#system-body tr[data-task]").dataset.task);
    await until((t) => document.querySelector(`#notifications .note[data-task="${t}"]`)?.textContent.includes("success"), task);

    assert.equal((await run(() => window.stategateDemo.privateValues())).memory?.canary, CANARY);
    const page = await run(() => `${document.body.innerText}\n${document.documentElement.outerHTML}`);
    assert.ok(!page.includes(CANARY), "the canary is in the page");
    assert.deepEqual(await run((p) => window.stategateDemo.privateLeaks([p]), page), [], "the store's scan finds a private value in the page");
    assert.match(await run(() => document.querySelector("#leak-check").className), /^leak ok$/);
    const png = await wd("GET", `/session/${session}/screenshot`);
    writeFileSync(join(OUT, "firefox.png"), Buffer.from(png, "base64"));
    assert.deepEqual(await run(() => window.stategateDemo.errors()), []);
  });
});
