// A smoke of the benchmarks (`make bench` runs them at full counts): every bench script runs with
// BENCH_SMOKE=1 (tiny counts, a few seconds each) and BENCH_RESULTS_DIR set to a fresh temporary
// folder, without --write, and must
//   - exit 0 and write its results file there (never benches/results/, never BENCHMARKS.md);
//   - give rows with an id, a label, a unit, a finite positive median with min ≤ median ≤ max (and
//     the same for a ratio), a goal `{value, direction}` and a `met` that agrees with the median;
//   - for the scripts of issue 17's table, the rows benches/standing.mjs charts.
// benches/standing.mjs then runs over those results and must write a chart with one bar per goal.
// The committed benches/results/*.json are checked too: not smoke runs, every row well formed,
// and BENCHMARKS.md's standing section and benches/standing.svg exactly what they make
// (`standing.mjs --check`), so the summary always comes from the last `make bench`.
//
// The PostgreSQL bench runs only where STATEGATE_PG_URL is set (scripts/postgres.sh sets it, as
// `make test` does); without it that test is skipped with the reason, except under CI=true, where
// it fails. Timings are never asserted: the smoke figures mean nothing.
//
// Run: node --test tests/js/bench-smoke.test.mjs

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DIR = fs.mkdtempSync(path.join(os.tmpdir(), "stategate-bench-smoke-"));
const TIMEOUT = 120_000;

/** The rows benches/standing.mjs charts, by bench (issue 17's table). */
const ISSUE_17 = {
  repair: ["repair-warm", "repair-cold"],
  store: ["store-vs-langgraph", "store-append-floor"],
  project: ["project-append"],
  history: ["replay-warm", "replay-cold"],
  size: ["wasm-gzip", "messages-wasm-gzip"],
  memory: ["memory-held", "memory-idle"],
};

const digest = (file) => (fs.existsSync(file) ? crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex") : null);
const committed = () => ({
  benchmarks: digest(path.join(ROOT, "BENCHMARKS.md")),
  svg: digest(path.join(ROOT, "benches/standing.svg")),
  results: fs.existsSync(path.join(ROOT, "benches/results")) ? fs.readdirSync(path.join(ROOT, "benches/results")).sort().map((f) => `${f}:${digest(path.join(ROOT, "benches/results", f))}`) : [],
});
const before = committed();

/** Runs `args` under node (cwd the repository) with the smoke environment; resolves with its output. */
function run(args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: ROOT, env: { ...process.env, BENCH_SMOKE: "1", BENCH_RESULTS_DIR: DIR, ...extraEnv }, timeout: TIMEOUT, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`node ${args.join(" ")} failed (${err.code ?? err.signal}):\n${stderr}\n${stdout.slice(-4000)}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Checks one results row; returns it. */
function checkRow(bench, row) {
  const where = `${bench}/${row.id}`;
  assert.ok(typeof row.id === "string" && row.id && typeof row.label === "string" && row.label && typeof row.unit === "string" && row.unit, `${where}: id, label and unit`);
  const checkStat = (s, what) => {
    for (const k of ["median", "min", "max"]) assert.ok(Number.isFinite(s[k]), `${where}: ${what}.${k} is ${s[k]}`);
    assert.ok(s.median > 0, `${where}: ${what} median ${s.median} is not positive`);
    assert.ok(s.min <= s.median && s.median <= s.max, `${where}: ${what} min ${s.min} ≤ median ${s.median} ≤ max ${s.max}`);
  };
  checkStat(row, "figure");
  if (row.ratio) {
    checkStat(row.ratio, "ratio");
    assert.ok(typeof row.ratio.of === "string" && row.ratio.of, `${where}: what the ratio divides`);
  }
  if (row.goal) {
    assert.ok(Number.isFinite(row.goal.value) && row.goal.value > 0, `${where}: goal value`);
    assert.ok(row.goal.direction === "≥" || row.goal.direction === "≤", `${where}: goal direction ${row.goal.direction}`);
    const judged = row.goal.on === "ratio" ? row.ratio.median : row.median;
    assert.equal(row.met, row.goal.direction === "≥" ? judged >= row.goal.value : judged <= row.goal.value, `${where}: met disagrees with the median`);
  } else assert.equal(row.met, null, `${where}: a row without a goal has met: null`);
  return row;
}

/** Checks a results document; returns its rows by id. */
function checkResults(doc, bench, { smoke }) {
  assert.equal(doc.bench, bench);
  assert.equal(doc.smoke, smoke, `${bench}: smoke is ${doc.smoke}`);
  assert.ok(!Number.isNaN(Date.parse(doc.date)), `${bench}: date ${doc.date}`);
  assert.match(doc.commit ?? "", /^[0-9a-f]{40}$/, `${bench}: commit`);
  assert.ok(Array.isArray(doc.rows) && doc.rows.length > 0, `${bench}: rows`);
  const rows = Object.fromEntries(doc.rows.map((r) => [r.id, checkRow(bench, r)]));
  for (const id of ISSUE_17[bench] ?? []) {
    assert.ok(rows[id], `${bench}: no row ${id}`);
    assert.equal(rows[id].goal?.issue, 17, `${bench}/${id}: the goal of issue 17`);
  }
  return rows;
}

const read = (bench) => JSON.parse(fs.readFileSync(path.join(DIR, `${bench}.json`), "utf8"));

for (const bench of Object.keys(ISSUE_17)) {
  test(`bench smoke: benches/${bench}.bench.mjs writes well-formed results`, { timeout: TIMEOUT }, async () => {
    await run([`benches/${bench}.bench.mjs`]);
    checkResults(read(bench), bench, { smoke: true });
  });
}

test("bench smoke: benches/postgres.bench.mjs (a private PostgreSQL)", { timeout: TIMEOUT }, async (t) => {
  if (!process.env.STATEGATE_PG_URL) {
    const reason = "STATEGATE_PG_URL is not set (run under scripts/postgres.sh, as make test does)";
    if (process.env.CI === "true") assert.fail(`${reason}; under CI=true the postgres bench smoke must run`);
    t.skip(reason);
    return;
  }
  await run(["benches/postgres.bench.mjs"]);
  const rows = checkResults(read("postgres"), "postgres", { smoke: true });
  for (const id of ["pg-bytes", "pg-resume-tail0", "pg-resume-tail"]) assert.ok(rows[id]?.goal, `postgres: ${id}`);
});

test("bench smoke: benches/standing.mjs charts every goal of issue 17 from the results", { timeout: TIMEOUT }, async () => {
  const { stdout } = await run(["benches/standing.mjs"]);
  assert.match(stdout, /\b\d+ of 11 met\b/);
  assert.doesNotMatch(stdout, /no result/);
  const svg = fs.readFileSync(path.join(DIR, "standing.svg"), "utf8");
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.ok(svg.trimEnd().endsWith("</svg>"));
  // The background plus one bar per goal.
  assert.equal((svg.match(/<rect /g) ?? []).length, 1 + 11);
  for (const label of ["repairMessages vs deepagents, warm", "wasm of stategate (whole core), gzip", "wasm of stategate/messages, gzip", "idle empty store"]) assert.ok(svg.includes(label), label);
});

test("the committed results: full runs, well formed, and the standing section and chart are what they make", { timeout: TIMEOUT }, async () => {
  const dir = path.join(ROOT, "benches/results");
  for (const bench of Object.keys(ISSUE_17)) {
    const file = path.join(dir, `${bench}.json`);
    assert.ok(fs.existsSync(file), `benches/results/${bench}.json is missing: run make bench`);
    checkResults(JSON.parse(fs.readFileSync(file, "utf8")), bench, { smoke: false });
  }
  const text = fs.readFileSync(path.join(ROOT, "BENCHMARKS.md"), "utf8");
  assert.ok(text.indexOf("<!-- bench:standing:begin -->") < text.indexOf("<!-- bench:repair:begin -->"), "the standing comes before the bench sections");
  assert.match(text, /!\[[^\]]+\]\(benches\/standing\.svg\)/);
  await run(["benches/standing.mjs", "--check"], { BENCH_SMOKE: "", BENCH_RESULTS_DIR: "" });
});

test("the smoke left BENCHMARKS.md, benches/results/ and the chart as they were", () => {
  assert.deepEqual(committed(), before);
  fs.rmSync(DIR, { recursive: true, force: true });
});
