// Size of the package as built into pkg/ — run: node benches/size.bench.mjs [--write]
//
//   (a) the wasm (`pkg/stategate_wasm_bg.wasm`, the one file every entry shares): raw and gzip
//       (zlib level 9). Goal (issue 17): ≤ 250 KB gzip, taken as 250 × 1,024 = 256,000 B (as the
//       memory bench takes 2 KB as 2,048 B).
//   (b) per entry point: every JavaScript file that pkg/package.json's `exports` names (each
//       subpath under each condition), its own size, and everything it pulls in — the files it
//       imports or requires inside the package, transitively (found by esbuild's resolver over
//       the files as shipped: a bundle step with `metafile`, nothing written; `stategate` and
//       `stategate/<sub>` imported by an adapter resolve through the same `exports` with the
//       entry's conditions), plus the wasm when the glue (`stategate_wasm.js`, or a CommonJS
//       bundle holding it) is among them. Imports from outside the package (node:*, the peer
//       frameworks, pg) are listed, not counted. Totals are sums of the files' own sizes, raw
//       and gzip -9 each (what fetching them one by one would move), not of a bundle.
//   (c) the npm tarball: `npm pack --dry-run --json` in pkg/ (packed and unpacked size, files).
//
// Every figure is read from the files at run time: one measurement, so median = min = max.
// Results (benches/results/size.json, with --write; read by benches/standing.mjs): issue 17's
// row 5 (the wasm, gzip; goal ≤ 256,000 B), the wasm raw and the tarball (no goal), and the
// per-entry table. BENCH_SMOKE=1 changes nothing (it is quick already).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import * as esbuild from "esbuild";
import { machineRows, resultRow, ROOT, writeResults, writeSection } from "./lib.mjs";

const PKG = path.join(ROOT, "pkg");
const GOAL_GZIP = 250 * 1024; // B (issue 17: ≤ 250 KB gzip)
const WASM = "stategate_wasm_bg.wasm";
const GLUE = "stategate_wasm.js";

const gzip = (buf) => zlib.gzipSync(buf, { level: 9 }).length;
const sizes = (file) => {
  const buf = fs.readFileSync(path.join(PKG, file));
  return { raw: buf.length, gzip: gzip(buf) };
};
const manifest = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8"));

/** Every (subpath, conditions, file) of `exports` whose file is JavaScript. */
function entries() {
  const out = [];
  const walk = (subpath, target, conds) => {
    if (typeof target === "string") {
      if (/\.c?js$/.test(target)) out.push({ subpath, conds, file: target.replace(/^\.\//, "") });
      return;
    }
    for (const [cond, t] of Object.entries(target)) if (cond !== "types") walk(subpath, t, [...conds, cond]);
  };
  for (const [subpath, target] of Object.entries(manifest.exports)) walk(subpath, target, []);
  // One row per file, with every condition path that reaches it.
  const byFile = new Map();
  for (const e of out) {
    const row = byFile.get(e.file) ?? { file: e.file, subpath: e.subpath, conditions: [] };
    row.conditions.push(e.conds.join("+") || "default");
    byFile.set(e.file, row);
  }
  return [...byFile.values()];
}

/** `exports[subpath]` resolved with `conditions` (in the manifest's order, as Node does). */
function resolveSelf(subpath, conditions) {
  const pick = (t) => {
    if (typeof t === "string") return t;
    for (const [cond, next] of Object.entries(t)) {
      if (cond === "types") continue;
      if (cond === "default" || conditions.includes(cond)) {
        const r = pick(next);
        if (r) return r;
      }
    }
    return null;
  };
  const target = manifest.exports[subpath];
  return target ? pick(target) : null;
}

/** The package files `file` pulls in (itself included) and the imports from outside it. */
async function closure(file) {
  const cjs = file.endsWith(".cjs");
  const conditions = [...(file === "browser.js" ? ["browser"] : file === "workerd.js" ? ["workerd"] : ["node"]), cjs ? "require" : "import"];
  const outside = new Set();
  const result = await esbuild.build({
    entryPoints: [path.join(PKG, file)],
    bundle: true,
    write: false,
    metafile: true,
    logLevel: "silent",
    format: cjs ? "cjs" : "esm",
    platform: "neutral",
    plugins: [
      {
        name: "package-only",
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === "entry-point") return undefined;
            const self = /^stategate(\/.*)?$/.exec(args.path);
            if (self) {
              const target = resolveSelf(self[1] ? `.${self[1]}` : ".", conditions);
              if (!target) throw new Error(`${file}: ${args.path} does not resolve through exports`);
              return { path: path.join(PKG, target) };
            }
            if (args.path.startsWith(".")) {
              const to = path.resolve(args.resolveDir, args.path);
              if (to.endsWith(".wasm")) return { path: to, external: true }; // counted below
              return { path: to };
            }
            outside.add(args.path);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  const files = Object.keys(result.metafile.inputs).map((p) => path.relative(PKG, path.resolve(ROOT, p)).split(path.sep).join("/"));
  const glue = files.includes(GLUE) || files.some((f) => f.endsWith(".cjs") && fs.readFileSync(path.join(PKG, f), "utf8").includes("__wbg_get_imports"));
  return { files: files.sort(), glue, outside: [...outside].sort() };
}

const wasm = sizes(WASM);
const rows = [];
for (const e of entries()) {
  const own = sizes(e.file);
  const c = await closure(e.file);
  const js = c.files.reduce((a, f) => {
    const s = sizes(f);
    return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip };
  }, { raw: 0, gzip: 0 });
  const total = c.glue ? { raw: js.raw + wasm.raw, gzip: js.gzip + wasm.gzip } : js;
  rows.push({ ...e, own, files: c.files, wasm: c.glue, outside: c.outside, js, total });
}

const pack = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: PKG, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))[0];
const tarball = { packed: pack.size, unpacked: pack.unpackedSize, files: pack.entryCount, filename: pack.filename };

// ---------------------------------------------------------------------------------------------
// Report
const fmt = (n) => n.toLocaleString("en-US");
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const b = (n) => `${fmt(n)} B (${kib(n)})`;
const met = wasm.gzip <= GOAL_GZIP;
const tableA = `| (a) the wasm, \`pkg/${WASM}\` | bytes |
|---|---|
| raw | ${b(wasm.raw)} |
| gzip -9 | **${b(wasm.gzip)}** |`;
const goalLine = `Goal (issue 17): ≤ 250 KB gzip (${fmt(GOAL_GZIP)} B) — ${met ? "**met**" : "**not met**"} (${b(wasm.gzip)}, ${(wasm.gzip / GOAL_GZIP).toFixed(2)}× the goal).`;
const tableB = [
  "| (b) entry point | file | its own size, raw / gzip | package files it pulls in (itself included) | their JS, raw / gzip | + the wasm? | total, raw / gzip | imports from outside the package |",
  "|---|---|---|---|---|---|---|---|",
  ...rows.map((r) => `| \`${r.subpath === "." ? "stategate" : `stategate/${r.subpath.slice(2)}`}\` (${r.conditions.join(", ")}) | \`${r.file}\` | ${fmt(r.own.raw)} / ${fmt(r.own.gzip)} B | ${r.files.length} | ${fmt(r.js.raw)} / ${fmt(r.js.gzip)} B | ${r.wasm ? "yes" : "no"} | ${fmt(r.total.raw)} / **${fmt(r.total.gzip)} B** | ${r.outside.length ? r.outside.map((x) => `\`${x}\``).join(", ") : "—"} |`),
].join("\n");
const tableC = `| (c) npm tarball (\`npm pack --dry-run\` in pkg/) | |
|---|---|
| ${tarball.filename}, packed | **${b(tarball.packed)}** |
| unpacked | ${b(tarball.unpacked)} |
| files | ${fmt(tarball.files)} |`;

console.log(`${tableA}\n\n${goalLine}\n\n${tableB}\n\n${tableC}`);

writeResults(
  "size",
  [
    resultRow({ id: "wasm-gzip", label: "wasm size, gzip -9", unit: "B", figure: { median: wasm.gzip, min: wasm.gzip, max: wasm.gzip }, goal: { value: GOAL_GZIP, direction: "≤", issue: 17 }, note: `raw ${fmt(wasm.raw)} B; npm tarball ${fmt(tarball.packed)} B packed` }),
    resultRow({ id: "wasm-raw", label: "wasm size, raw", unit: "B", figure: { median: wasm.raw, min: wasm.raw, max: wasm.raw } }),
    resultRow({ id: "tarball", label: "npm tarball, packed", unit: "B", figure: { median: tarball.packed, min: tarball.packed, max: tarball.packed }, note: `${fmt(tarball.unpacked)} B unpacked, ${tarball.files} files` }),
  ],
  { wasmBytes: wasm, tarball, entries: rows.map(({ files, ...r }) => ({ ...r, files })) },
);

if (process.argv.includes("--write")) {
  writeSection(
    "size",
    `## Package size: the wasm, each entry point, the tarball

Generated by \`node benches/size.bench.mjs --write\`, from the files of \`pkg/\` as
\`scripts/build.sh\` built them (release, \`wasm-opt -O3\`).

| | |
|---|---|
${machineRows()}

${tableA}

${goalLine}

${tableB}

${tableC}

Method: gzip is zlib level 9 on each file. (b) lists every JavaScript file that \`pkg/package.json\`'s
\`exports\` names, with the conditions that reach it; the files it pulls in are found by esbuild's
resolver over the files as shipped (a bundle step with \`metafile\`, nothing written), \`stategate\`
imported by an adapter resolving through the same \`exports\` (Node's conditions; the browser and
workerd conditions for those entries); the wasm is counted wherever the glue (\`${GLUE}\`, or a
CommonJS bundle that holds it) is pulled in — \`stategate/web\` too, whose \`load()\` fetches it.
Totals add the files' own sizes (raw, and gzip each), as fetching them one by one would move; a
bundler's output would be smaller (tree shaking, one gzip stream). The tarball holds every entry,
the declarations and the docs (this file among them, as it was when \`pkg/\` was built).`,
  );
}
