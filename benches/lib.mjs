// Shared helpers of the benchmark scripts: timing statistics, the machine description, and
// writing one script's section of BENCHMARKS.md without touching the others.

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
