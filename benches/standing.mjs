// The standing against issue 17's goals, from the last `make bench` — run last by make bench:
//
//   node benches/standing.mjs [--write]
//
// Measures nothing: it reads the results files the bench scripts wrote (benches/results/*.json,
// or BENCH_RESULTS_DIR), each row with its measured median and min–max, its goal and whether the
// goal is met (computed by the script that measured it, benches/lib.mjs `resultRow`), and puts
// them side by side:
//
//   - a table of issue 17's rows (ROWS below, in the issue's order): the figure, the goal, met or
//     not, how far from the goal, and the date, commit and wasm build each result came from — plus
//     a second table with the other goals the benches track;
//   - a chart, benches/standing.svg (SVG written here as text, no chart library): one horizontal
//     bar per goal of issue 17 on a log scale of "measured / goal", oriented so that 1 is the goal
//     and right of it is met (for a "≤" goal the bar is goal / measured), with the min–max of the
//     runs as a whisker.
//
// With --write, the "standing" section of BENCHMARKS.md (between <!-- bench:standing:begin -->
// and <!-- bench:standing:end -->, placed before the first bench section when missing) and
// benches/standing.svg are written. Without it, the table is printed; when BENCH_RESULTS_DIR is
// set (tests/js/bench-smoke.test.mjs), the chart is written into that folder too. With --check,
// nothing is written: it exits 1 unless BENCHMARKS.md's section and benches/standing.svg are
// exactly what the committed results make (the test suite runs it). A row whose results file is
// missing is shown as "no result", never guessed.

import fs from "node:fs";
import path from "node:path";
import { RESULTS_DIR, ROOT, writeSection } from "./lib.mjs";

const WRITE = process.argv.includes("--write");
const CHECK = process.argv.includes("--check");
const SVG_FILE = WRITE ? path.join(ROOT, "benches/standing.svg") : path.join(RESULTS_DIR, "standing.svg");

/** Issue 17's table: its row number, the results row that answers it, and a short chart label. */
const ROWS = [
  { n: "1", bench: "repair", id: "repair-warm", short: "repairMessages vs deepagents, warm" },
  { n: "1", bench: "repair", id: "repair-cold", short: "repairMessages vs deepagents, fresh process" },
  { n: "2", bench: "store", id: "store-vs-langgraph", short: "sequential store.apply vs messagesStateReducer" },
  { n: "2", bench: "store", id: "store-append-floor", short: "append vs its conversion floor" },
  { n: "3", bench: "project", id: "project-append", short: "re-projection after one append" },
  { n: "4", bench: "history", id: "replay-warm", short: "replay vs its JS floor, warm" },
  { n: "4", bench: "history", id: "replay-cold", short: "replay vs its JS floor, cold" },
  { n: "5", bench: "size", id: "wasm-gzip", short: "wasm of stategate (whole core), gzip" },
  { n: "5", bench: "size", id: "messages-wasm-gzip", short: "wasm of stategate/messages, gzip" },
  { n: "6", bench: "memory", id: "memory-held", short: "memory per held message" },
  { n: "7", bench: "memory", id: "memory-idle", short: "idle empty store" },
];

// ---------------------------------------------------------------------------------------------
// Read the results

const files = fs.existsSync(RESULTS_DIR) ? fs.readdirSync(RESULTS_DIR).filter((f) => f.endsWith(".json")).sort() : [];
const results = Object.fromEntries(files.map((f) => {
  const doc = JSON.parse(fs.readFileSync(path.join(RESULTS_DIR, f), "utf8"));
  return [doc.bench, doc];
}));
const find = (bench, id) => {
  const doc = results[bench];
  const row = doc?.rows.find((r) => r.id === id);
  return row ? { doc, row } : null;
};

// ---------------------------------------------------------------------------------------------
// Formatting

const fmtInt = (x) => Math.round(x).toLocaleString("en-US");
/** A number with a precision that suits its size. */
function num(x) {
  const a = Math.abs(x);
  if (a >= 1000) return fmtInt(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.01) return x.toFixed(3);
  return x.toPrecision(2);
}
const withUnit = (x, unit) => (Number.isInteger(x) && unit !== "B" ? `${fmtInt(x)}${unit === "×" ? "×" : ` ${unit}`}` : plainWithUnit(x, unit));
const plainWithUnit = (x, unit) => (unit === "×" ? `${num(x)}×` : unit === "B" ? `${fmtInt(x)} B` : `${num(x)} ${unit}`);
const range = (s, unit) => (s.min === s.max ? "" : ` (${unit === "×" ? `${num(s.min)}–${num(s.max)}×` : `${num(s.min)}–${num(s.max)}${unit === "B" ? " B" : ` ${unit}`}`})`);
const figureText = (s, unit) => `${withUnit(s.median, unit)}${range(s, unit)}`;
/** What the goal is judged on: the ratio for a ratio row, else the figure itself. */
const judged = (row) => (row.goal.on === "ratio" ? row.ratio : row);
/** measured / goal, oriented so that > 1 is met (goal / measured for a "≤" goal), for a value. */
const score = (row, x) => (row.goal.direction === "≥" ? x / row.goal.value : row.goal.value / x);
const scores = (row) => {
  const j = judged(row);
  const [a, b] = [score(row, j.min), score(row, j.max)];
  return { median: score(row, j.median), lo: Math.min(a, b), hi: Math.max(a, b) };
};
const goalText = (row) => `${row.goal.direction} ${withUnit(row.goal.value, row.goal.unit)}`;
const distance = (row) => {
  const s = scores(row).median;
  return s >= 1 ? `${num(s)}× better than the goal` : `${num(1 / s)}× short of it`;
};
const short = (sha) => (sha ? sha.slice(0, 10) : "unknown");
const when = (doc) => `${doc.date.slice(0, 16).replace("T", " ")} UTC`;
const from = (doc) => `${when(doc)}, \`${short(doc.commit)}\`${doc.dirty ? " + local changes" : ""}${doc.smoke ? " (smoke)" : ""}`;
/** What a ratio divides, without its explanation: "deepagents / stategate". */
const ratioOf = (ratio) => ratio.of.split(" (")[0];
const measuredText = (row) => {
  if (row.ratio) return `**${figureText(row.ratio, "×")}** ${ratioOf(row.ratio)}; stategate ${figureText(row, row.unit)}${row.note ? `; ${row.note}` : ""}`;
  return `**${figureText(row, row.unit)}**${row.note ? ` — ${row.note}` : ""}`;
};
const cell = (s) => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");

// ---------------------------------------------------------------------------------------------
// The tables

const issueRows = ROWS.map((r) => ({ ...r, found: find(r.bench, r.id) }));
const lines = [
  "| # | Row | Measured: median (min–max) | Goal | Standing | From |",
  "|---|---|---|---|---|---|",
  ...issueRows.map(({ n, bench, id, found }) => {
    if (!found) return `| ${n} | \`${id}\` | no result (benches/results/${bench}.json has no such row) | | **no result** | |`;
    const { doc, row } = found;
    return `| ${n} | ${cell(row.label)} | ${cell(measuredText(row))} | ${cell(goalText(row))} | ${row.met ? "**met**" : "**not met**"}: ${distance(row)} | ${cell(from(doc))} |`;
  }),
];
const met = issueRows.filter((r) => r.found?.row.met).length;
const measured = issueRows.filter((r) => r.found).length;

const otherRows = Object.values(results)
  .flatMap((doc) => doc.rows.filter((row) => row.goal && !ROWS.some((r) => r.bench === doc.bench && r.id === row.id)).map((row) => ({ doc, row })));
const otherTable = [
  "| Bench | Row | Measured: median (min–max) | Goal | Standing | From |",
  "|---|---|---|---|---|---|",
  ...otherRows.map(({ doc, row }) => `| ${doc.bench} | ${cell(row.label)} | ${cell(measuredText(row))} | ${cell(goalText(row))}${row.goal.issue ? ` (issue ${row.goal.issue})` : ""} | ${row.met ? "**met**" : "**not met**"}: ${distance(row)} | ${cell(from(doc))} |`),
];

// Were they one run? Same commit, same wasm, no local changes, no smoke run.
const docs = [...new Set(issueRows.filter((r) => r.found).map((r) => r.found.doc))];
const commits = [...new Set(docs.map((d) => d.commit))];
const wasms = [...new Set(docs.map((d) => d.wasm))];
const dates = docs.map((d) => d.date).sort();
const oneRun = [
  commits.length === 1 ? `all at commit \`${short(commits[0])}\`` : `**from ${commits.length} commits** (${commits.map(short).join(", ")}): not one run`,
  wasms.length === 1 ? `one wasm build (SHA-256 \`${wasms[0]}…\`)` : `**${wasms.length} wasm builds** (${wasms.join(", ")})`,
  docs.some((d) => d.dirty) ? "**some with uncommitted changes in the work tree**" : "a clean work tree",
  dates.length ? `measured between ${dates[0].slice(0, 16).replace("T", " ")} and ${dates.at(-1).slice(0, 16).replace("T", " ")} UTC` : "nothing measured",
  ...(docs.some((d) => d.smoke) ? ["**smoke results among them: the figures mean nothing**"] : []),
].join(", ");

// ---------------------------------------------------------------------------------------------
// The chart

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
function chart() {
  const bars = issueRows.filter((r) => r.found).map((r) => ({ ...r, row: r.found.row, s: scores(r.found.row) }));
  const W = 1000, LEFT = 340, RIGHT = 250, TOP = 80, ROW_H = 34, BOTTOM = 58;
  const plotW = W - LEFT - RIGHT;
  const H = TOP + Math.max(bars.length, 1) * ROW_H + BOTTOM;
  // Log-2 domain covering every bar and whisker, at least 1/2..2, in whole powers of 2.
  const all = bars.flatMap((b) => [b.s.lo, b.s.hi, b.s.median]).filter((x) => x > 0 && Number.isFinite(x));
  const lo = Math.min(-1, Math.floor(Math.log2(Math.min(1, ...all))));
  const hi = Math.max(1, Math.ceil(Math.log2(Math.max(1, ...all))));
  const x = (v) => LEFT + ((Math.log2(Math.min(Math.max(v, 2 ** lo), 2 ** hi)) - lo) / (hi - lo)) * plotW;
  const step = Math.max(1, Math.ceil(56 / (plotW / (hi - lo)))); // ticks at least 56 px apart
  const tickLabel = (e) => (e >= 0 ? `${2 ** e}×` : `1/${2 ** -e}×`);
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="13">`);
  out.push(`<title>stategate: standing against issue 17's goals</title>`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  out.push(`<text x="16" y="24" font-size="16" font-weight="bold">Standing against issue 17's goals: ${met} of ${ROWS.length} met</text>`);
  out.push(`<text x="16" y="44" fill="#555">${esc(docs.length ? `${dates[0].slice(0, 10)}, commit ${short(commits[0])}${commits.length > 1 ? ` and ${commits.length - 1} more` : ""}; bar = measured / goal on a log scale, 1 = the goal, right of it = met; whisker = min–max` : "no results")}</text>`);
  for (let e = Math.ceil(lo / step) * step; e <= hi; e += step) {
    const xe = x(2 ** e);
    out.push(`<line x1="${xe.toFixed(1)}" y1="${TOP - 6}" x2="${xe.toFixed(1)}" y2="${H - BOTTOM + 4}" stroke="${e === 0 ? "#222" : "#e3e3e3"}" stroke-width="${e === 0 ? 2 : 1}"${e === 0 ? ' stroke-dasharray="5 3"' : ""}/>`);
    out.push(`<text x="${xe.toFixed(1)}" y="${H - BOTTOM + 20}" text-anchor="middle" fill="#444">${tickLabel(e)}</text>`);
  }
  out.push(`<text x="${x(1).toFixed(1)}" y="${TOP - 10}" text-anchor="middle" font-weight="bold">goal</text>`);
  out.push(`<text x="${LEFT + plotW / 2}" y="${H - 14}" text-anchor="middle" fill="#444">measured / goal (for a ≤ goal: goal / measured) — ◀ not met · met ▶</text>`);
  bars.forEach((b, i) => {
    const y = TOP + i * ROW_H;
    const mid = y + ROW_H / 2;
    const [x0, x1] = [x(1), x(b.s.median)];
    const color = b.row.met ? "#2e7d32" : "#c62828";
    out.push(`<g><title>${esc(`${b.n}: ${b.row.label} — ${measuredText(b.row).replace(/\*\*/g, "")}; goal ${goalText(b.row)}: ${b.row.met ? "met" : "not met"}`)}</title>`);
    out.push(`<text x="${LEFT - 10}" y="${mid + 4}" text-anchor="end">${esc(`${b.n}. ${b.short}`)}</text>`);
    out.push(`<rect x="${Math.min(x0, x1).toFixed(1)}" y="${(y + 7).toFixed(1)}" width="${Math.max(Math.abs(x1 - x0), 1.5).toFixed(1)}" height="${ROW_H - 14}" fill="${color}" fill-opacity="0.85"/>`);
    const [wl, wh] = [x(b.s.lo), x(b.s.hi)];
    if (wh - wl > 0.5) {
      out.push(`<line x1="${wl.toFixed(1)}" y1="${mid}" x2="${wh.toFixed(1)}" y2="${mid}" stroke="#111" stroke-width="1.2"/>`);
      for (const wx of [wl, wh]) out.push(`<line x1="${wx.toFixed(1)}" y1="${mid - 5}" x2="${wx.toFixed(1)}" y2="${mid + 5}" stroke="#111" stroke-width="1.2"/>`);
    }
    const j = judged(b.row);
    const unit = b.row.goal.on === "ratio" ? "×" : b.row.unit;
    const clipped = b.s.median < 2 ** lo || b.s.median > 2 ** hi ? " (off the scale)" : "";
    out.push(`<text x="${W - RIGHT + 12}" y="${mid + 4}" fill="${color}">${esc(`${withUnit(j.median, unit)} vs ${goalText(b.row)} — ${b.row.met ? "met" : "not met"}${clipped}`)}</text>`);
    out.push(`</g>`);
  });
  out.push(`</svg>`);
  return out.join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------------
// Output

const svg = chart();
const body = `## Standing against issue 17's goals

Generated by \`node benches/standing.mjs --write\` (the last step of \`make bench\`) from
\`benches/results/*.json\`, which each bench script writes with its section: it measures nothing
itself. Every figure is a median with the min–max of its runs (for a ratio, the ratio of the
medians with the range of the per-round — or per pair of processes — ratios); "met" is computed
from the median by the script that measured it. **${met} of ${ROWS.length} met**${measured < ROWS.length ? ` (${ROWS.length - measured} without a result)` : ""}; ${oneRun}.

![Standing against issue 17's goals: one bar per goal, measured / goal on a log scale, right of the goal line is met](benches/standing.svg)

${lines.join("\n")}

Other goals the benches track:

${otherTable.join("\n")}

How each row is measured: the bench's own section below (1: repair; 2: store; 3: project (c);
4: history (a), (a'); 5: size; 6, 7: memory).`;

if (CHECK) {
  const text = fs.readFileSync(path.join(ROOT, "BENCHMARKS.md"), "utf8");
  const [begin, end] = ["<!-- bench:standing:begin -->", "<!-- bench:standing:end -->"];
  const section = text.includes(begin) ? text.slice(text.indexOf(begin) + begin.length, text.indexOf(end)).trim() : null;
  const chartFile = path.join(ROOT, "benches/standing.svg");
  const problems = [
    ...(section === body.trim() ? [] : ["BENCHMARKS.md's standing section is not what benches/results/*.json make"]),
    ...(fs.existsSync(chartFile) && fs.readFileSync(chartFile, "utf8") === svg ? [] : ["benches/standing.svg is not what benches/results/*.json make"]),
  ];
  for (const p of problems) console.error(`standing --check: ${p}; run node benches/standing.mjs --write`);
  if (!problems.length) console.log("standing --check: BENCHMARKS.md's standing section and benches/standing.svg match benches/results/*.json");
  process.exit(problems.length ? 1 : 0);
}
console.log(lines.join("\n"));
console.log();
console.log(`${met} of ${ROWS.length} met; ${oneRun}`);
if (WRITE) {
  const file = path.join(ROOT, "BENCHMARKS.md");
  const text = fs.readFileSync(file, "utf8");
  if (!text.includes("<!-- bench:standing:begin -->")) {
    // Near the top: before the first bench section.
    const at = text.indexOf("<!-- bench:");
    const markers = "<!-- bench:standing:begin -->\n<!-- bench:standing:end -->\n\n";
    fs.writeFileSync(file, at === -1 ? `${text.trimEnd()}\n\n${markers}` : text.slice(0, at) + markers + text.slice(at));
  }
  writeSection("standing", body);
}
if (WRITE || process.env.BENCH_RESULTS_DIR) {
  fs.mkdirSync(path.dirname(SVG_FILE), { recursive: true });
  fs.writeFileSync(SVG_FILE, svg);
  console.log(`wrote ${SVG_FILE}`);
}
