// Shared helpers of the benchmark scripts: timing statistics, the machine description, writing
// one script's section of BENCHMARKS.md without touching the others, the smoke switch
// (BENCH_SMOKE=1) and the results files benches/standing.mjs reads (benches/results/*.json).

import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Median of a list of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `version` of the package.json in `dir`. */
export function pkgVersion(dir) {
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}

/** Markdown rows describing the machine and Node. */
export function machineRows() {
  const cpus = os.cpus();
  return [
    `| Machine | ${cpus[0]?.model ?? "unknown"}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()}) |`,
    `| Node | ${process.version} |`,
    `| stategate (pkg/) | ${pkgVersion(path.join(ROOT, "pkg"))} |`,
    `| Date | ${new Date().toISOString().slice(0, 10)} |`,
  ].join("\n");
}

/** Replaces the text between `<!-- bench:NAME:begin -->` and `<!-- bench:NAME:end -->` in
 * BENCHMARKS.md (appending the section if the markers are missing), keeping everything else. */
export function writeSection(name, body) {
  const file = path.join(ROOT, "BENCHMARKS.md");
  const begin = `<!-- bench:${name}:begin -->`;
  const end = `<!-- bench:${name}:end -->`;
  let text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "# Benchmarks\n";
  const block = `${begin}\n${body.trim()}\n${end}`;
  const i = text.indexOf(begin);
  const j = text.indexOf(end);
  if (i !== -1 && j > i) text = text.slice(0, i) + block + text.slice(j + end.length);
  else text = `${text.trimEnd()}\n\n${block}\n`;
  fs.writeFileSync(file, text);
  console.log(`wrote the ${name} section of ${file}`);
}

// ---------------------------------------------------------------------------------------------
// Smoke runs and results files (issue 17: the standing of every goal, benches/standing.mjs).

/** BENCH_SMOKE=1: tiny counts, for tests/js/bench-smoke.test.mjs (the figures mean nothing). */
export const SMOKE = process.env.BENCH_SMOKE === "1";

/** `full` normally, `smoke` under BENCH_SMOKE=1. */
export const pick = (full, smoke) => (SMOKE ? smoke : full);

/** Where results files go: BENCH_RESULTS_DIR, else benches/results/. */
export const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ? path.resolve(process.env.BENCH_RESULTS_DIR) : path.join(ROOT, "benches/results");

/** `{median, min, max, runs}` of a list of numbers. */
export function stat(xs) {
  if (!xs.length) throw new Error("stat of no measurements");
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length };
}

/** Per-pair ratios `a[i] / b[i]` of two lists measured interleaved (same length). */
export function pairRatios(a, b) {
  if (a.length !== b.length) throw new Error(`pairRatios: ${a.length} vs ${b.length} measurements`);
  return a.map((x, i) => x / b[i]);
}

/** Whether `value` meets `goal` (`{value, direction: "≥" | "≤"}`). */
export const meets = (value, goal) => (goal.direction === "≥" ? value >= goal.value : value <= goal.value);

const finite = (x, what) => {
  if (typeof x !== "number" || !Number.isFinite(x)) throw new Error(`${what}: not a finite number (${x})`);
  return x;
};
const checkStat = (s, what) => {
  for (const k of ["median", "min", "max"]) finite(s[k], `${what}.${k}`);
  if (!(s.min <= s.median && s.median <= s.max)) throw new Error(`${what}: min ${s.min} ≤ median ${s.median} ≤ max ${s.max} does not hold`);
  return { median: s.median, min: s.min, max: s.max, ...(s.runs !== undefined && { runs: s.runs }) };
};

/**
 * One headline row of a results file. `figure` is the measured `{median, min, max}` in `unit`;
 * `ratio` (for a row whose goal is a ratio) is `{median, min, max, of, unit?}`, where `of` says
 * what is divided by what; `goal` is `{value, direction: "≥" | "≤", on: "ratio" | "figure",
 * issue}` or null (a figure tracked with no goal). `met` is computed here from the median of
 * what the goal is on: never given.
 */
export function resultRow({ id, label, unit, figure, ratio, goal = null, note }) {
  const row = { id, label, unit, ...checkStat(figure, `${id} figure`) };
  if (ratio) row.ratio = { ...checkStat(ratio, `${id} ratio`), of: ratio.of, unit: ratio.unit ?? "×" };
  if (goal) {
    const on = goal.on ?? (ratio ? "ratio" : "figure");
    const value = on === "ratio" ? row.ratio.median : row.median;
    row.goal = { value: finite(goal.value, `${id} goal`), direction: goal.direction, on, unit: on === "ratio" ? row.ratio.unit : unit, ...(goal.issue && { issue: goal.issue }), ...(goal.text && { text: goal.text }) };
    if (goal.direction !== "≥" && goal.direction !== "≤") throw new Error(`${id}: goal direction ${goal.direction}`);
    row.met = meets(value, row.goal);
  } else {
    row.goal = null;
    row.met = null;
  }
  if (note) row.note = note;
  return row;
}

/** The commit of the work tree (and whether it had uncommitted changes besides the benches'
 * outputs), for results files. */
export function gitState() {
  const git = (...args) => {
    try {
      return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    } catch {
      return null;
    }
  };
  const commit = git("rev-parse", "HEAD");
  // The benches' own outputs (BENCHMARKS.md, benches/results/, the chart) do not count: a run
  // of make bench rewrites them script by script.
  const status = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!BENCHMARKS.md", ":!benches/results", ":!benches/standing.svg");
  return { commit, dirty: status === null ? null : status.length > 0 };
}

/** SHA-256 (hex, first 16 digits) of the wasm in pkg/: which build a result measured. */
export function wasmId() {
  const file = path.join(ROOT, "pkg/stategate_wasm_bg.wasm");
  return fs.existsSync(file) ? crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex").slice(0, 16) : null;
}

/**
 * Writes `benches/results/<name>.json` (or BENCH_RESULTS_DIR/<name>.json) — only with --write or
 * when BENCH_RESULTS_DIR is set, so a plain run leaves the committed results alone. `rows` are
 * {@link resultRow}s; `extra` is merged in (e.g. tables the standing does not chart).
 */
export function writeResults(name, rows, extra = {}) {
  if (!process.argv.includes("--write") && !process.env.BENCH_RESULTS_DIR) return null;
  const ids = new Set();
  for (const r of rows) {
    if (ids.has(r.id)) throw new Error(`${name}: row id ${r.id} twice`);
    ids.add(r.id);
  }
  const cpus = os.cpus();
  const doc = {
    bench: name,
    script: `benches/${name}.bench.mjs`,
    date: new Date().toISOString(),
    ...gitState(),
    wasm: wasmId(),
    smoke: SMOKE,
    machine: `${cpus[0]?.model ?? "unknown"}, ${cpus.length} cores, ${os.type()} ${os.release()} (${os.arch()})`,
    node: process.version,
    rows,
    ...extra,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(doc, null, 2) + "\n");
  console.log(`wrote ${file}`);
  return file;
}

/**
 * The ratio of two sides measured interleaved (`a[i]` and `b[i]` in the same round): its median
 * is the ratio of the medians (what the sections print and the goals judge), its min–max the
 * range of the per-round ratios — widened to take in the ratio of the medians in the rare case
 * it falls outside them (then `widened: true`).
 */
export function ratioStat(a, b, of) {
  const per = pairRatios(a, b);
  const m = median(a) / median(b);
  const [lo, hi] = [Math.min(...per), Math.max(...per)];
  return { median: m, min: Math.min(lo, m), max: Math.max(hi, m), runs: per.length, of, ...((m < lo || m > hi) && { widened: true }) };
}
