// Size of the package as built into pkg/ — run: node benches/size.bench.mjs [--write]
//
//   (a) the two wasm modules, raw and gzip (zlib level 9): `pkg/stategate_wasm_bg.wasm`, the
//       whole core, which every `stategate` entry shares, and `pkg/messages/stategate_messages_bg.wasm`,
//       the message gate's (decode, convert, validate, repair), which the `stategate/messages`
//       entries load instead. Goal (issue 17): ≤ 250 KB gzip, taken as 250 × 1,024 = 256,000 B (as
//       the memory bench takes 2 KB as 2,048 B), reported for each module.
//   (b) per entry point: every JavaScript file that pkg/package.json's `exports` names (each
//       subpath under each condition), its own size, and everything it pulls in — the files it
//       imports or requires inside the package, transitively (found by esbuild's resolver over
//       the files as shipped: a bundle step with `metafile`, nothing written; `stategate` and
//       `stategate/<sub>` imported by an adapter resolve through the same `exports` with the
//       entry's conditions), plus a module's wasm when its glue (or, for a CommonJS bundle, the
//       ES module it was bundled from) is among them. Imports from outside the package (node:*, the peer
//       frameworks, pg) are listed, not counted. Totals are sums of the files' own sizes, raw
//       and gzip -9 each (what fetching them one by one would move), not of a bundle.
//   (c) the npm tarball: `npm pack --dry-run --json` in pkg/ (packed and unpacked size, files).
//
// Every figure is read from the files at run time: one measurement, so median = min = max.
// Results (benches/results/size.json, with --write; read by benches/standing.mjs): issue 17's
// row 5 for each module (gzip; goal ≤ 256,000 B), their raw sizes and the tarball (no goal), and
// the per-entry table. BENCH_SMOKE=1 changes nothing (it is quick already).

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import * as esbuild from "esbuild";
import { machineRows, resultRow, ROOT, writeResults, writeSection } from "./lib.mjs";

const PKG = path.join(ROOT, "pkg");
const GOAL_GZIP = 250 * 1024; // B (issue 17: ≤ 250 KB gzip)
/** The package's wasm modules: each one's glue and file (in pkg/), and what it holds. */
const MODULES = [
  { glue: "stategate_wasm.js", wasm: "stategate_wasm_bg.wasm", entry: "stategate", holds: "the whole core" },
  { glue: "messages/stategate_messages.js", wasm: "messages/stategate_messages_bg.wasm", entry: "stategate/messages", holds: "the message gate: decode, convert, validate, repair" },
];

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
async function closure(file, reached) {
  const cjs = file.endsWith(".cjs");
  const runtime = reached.some((c) => c.startsWith("workerd")) ? "workerd" : reached.some((c) => c.startsWith("browser")) ? "browser" : "node";
  const conditions = [runtime, cjs ? "require" : "import"];
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
  return { files: files.sort(), outside: [...outside].sort() };
}

/** The modules whose glue `file` pulls in: a CommonJS bundle holds the glue of the ES module it was bundled from. */
async function modulesOf(file, reached) {
  const probe = file.endsWith(".cjs") && fs.existsSync(path.join(PKG, file.replace(/\.cjs$/, ".js"))) ? file.replace(/\.cjs$/, ".js") : file;
  const { files } = probe === file ? await closure(file, reached) : await closure(probe, reached);
  return MODULES.filter((m) => files.includes(m.glue));
}

for (const m of MODULES) m.size = sizes(m.wasm);
const rows = [];
for (const e of entries()) {
  const own = sizes(e.file);
  const c = await closure(e.file, e.conditions);
  const mods = await modulesOf(e.file, e.conditions);
  const js = c.files.reduce((a, f) => {
    const s = sizes(f);
    return { raw: a.raw + s.raw, gzip: a.gzip + s.gzip };
  }, { raw: 0, gzip: 0 });
  const total = mods.reduce((t, m) => ({ raw: t.raw + m.size.raw, gzip: t.gzip + m.size.gzip }), js);
  rows.push({ ...e, own, files: c.files, wasm: mods.map((m) => m.wasm), outside: c.outside, js, total });
}

const pack = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json"], { cwd: PKG, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))[0];
const tarball = { packed: pack.size, unpacked: pack.unpackedSize, files: pack.entryCount, filename: pack.filename };

// ---------------------------------------------------------------------------------------------
// Report
const fmt = (n) => n.toLocaleString("en-US");
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const b = (n) => `${fmt(n)} B (${kib(n)})`;
const tableA = [
  "| (a) wasm module | what it holds | its entries | raw | gzip -9 |",
  "|---|---|---|---|---|",
  ...MODULES.map((m) => `| \`pkg/${m.wasm}\` | ${m.holds} | \`${m.entry}\`, \`${m.entry}/web\` | ${b(m.size.raw)} | **${b(m.size.gzip)}** |`),
].join("\n");
const standing = (m) => `${m.size.gzip <= GOAL_GZIP ? "**met**" : "**not met**"} for \`${m.entry}\` (${b(m.size.gzip)}, ${(m.size.gzip / GOAL_GZIP).toFixed(2)}× the goal)`;
const goalLine = `Goal (issue 17): ≤ 250 KB gzip (${fmt(GOAL_GZIP)} B) — ${MODULES.map(standing).join("; ")}.`;
const tableB = [
  "| (b) entry point | file | its own size, raw / gzip | package files it pulls in (itself included) | their JS, raw / gzip | + which wasm | total, raw / gzip | imports from outside the package |",
  "|---|---|---|---|---|---|---|---|",
  ...rows.map((r) => `| \`${r.subpath === "." ? "stategate" : `stategate/${r.subpath.slice(2)}`}\` (${r.conditions.join(", ")}) | \`${r.file}\` | ${fmt(r.own.raw)} / ${fmt(r.own.gzip)} B | ${r.files.length} | ${fmt(r.js.raw)} / ${fmt(r.js.gzip)} B | ${r.wasm.length ? r.wasm.map((w) => `\`${w}\``).join(", ") : "no"} | ${fmt(r.total.raw)} / **${fmt(r.total.gzip)} B** | ${r.outside.length ? r.outside.map((x) => `\`${x}\``).join(", ") : "—"} |`),
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
    ...MODULES.flatMap((m, i) => {
      const id = i === 0 ? "wasm" : "messages-wasm";
      const one = (n) => ({ median: n, min: n, max: n });
      return [
        resultRow({ id: `${id}-gzip`, label: `the wasm of \`${m.entry}\` (${m.holds}), gzip -9`, unit: "B", figure: one(m.size.gzip), goal: { value: GOAL_GZIP, direction: "≤", issue: 17 }, note: `raw ${fmt(m.size.raw)} B` + (i === 0 ? `; npm tarball ${fmt(tarball.packed)} B packed` : "") }),
        resultRow({ id: `${id}-raw`, label: `the wasm of \`${m.entry}\`, raw`, unit: "B", figure: one(m.size.raw) }),
      ];
    }),
    resultRow({ id: "tarball", label: "npm tarball, packed", unit: "B", figure: { median: tarball.packed, min: tarball.packed, max: tarball.packed }, note: `${fmt(tarball.unpacked)} B unpacked, ${tarball.files} files` }),
  ],
  { wasmBytes: Object.fromEntries(MODULES.map((m) => [m.wasm, m.size])), tarball, entries: rows.map(({ files, ...r }) => ({ ...r, files })) },
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
workerd conditions for those entries); a module's wasm is counted wherever its glue
(${MODULES.map((m) => `\`${m.glue}\``).join(", ")}, or a CommonJS bundle made from an entry that
imports it) is pulled in — the \`/web\` entries too, whose \`load()\` fetches it.
Totals add the files' own sizes (raw, and gzip each), as fetching them one by one would move; a
bundler's output would be smaller (tree shaking, one gzip stream). The tarball holds every entry,
the declarations and the docs (this file among them, as it was when \`pkg/\` was built).`,
  );
}
