// Copies the documentation the package ships into pkg/ (run by scripts/build.sh): README.md,
// BENCHMARKS.md and docs/*.md (not docs/api/, the generated API pages), plus images under docs/
// and BENCHMARKS.md's chart (benches/standing.svg) of at most MAX_IMAGE_BYTES, each at the same
// relative path as in the repository, so that their relative links keep working inside the
// installed package (node_modules/stategate/docs/…, node_modules/stategate/benches/standing.svg).
//
//   node scripts/package-docs.mjs            (prints what it copied and rewrote)
//
// A relative link to a file that is not shipped (examples/, tests/, a large image) is rewritten
// to a plain statement of where it is — "text (in the repository: examples/ai-sdk.mjs)" — since
// the repository's public address is not decided and no URL is invented here. Code (fenced
// blocks, inline `code`) is left as it is. tests/js/pack.test.mjs checks that every relative
// link of the shipped Markdown resolves to a shipped file.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Images larger than this stay in the repository (the README's screenshot is ~290 KB). */
export const MAX_IMAGE_BYTES = 50 * 1024;
const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;
/** The chart of BENCHMARKS.md's standing section, shipped at its repository path like docs/'s images. */
export const CHART = "benches/standing.svg";

/** The files the package ships as documentation, as repository-relative paths. */
export function shippedDocs(root = ".") {
  const files = ["README.md", "BENCHMARKS.md"];
  for (const name of fs.readdirSync(path.join(root, "docs")).sort()) {
    const full = path.join(root, "docs", name);
    if (!fs.statSync(full).isFile()) continue; // docs/api/ and any other folder
    if (name.endsWith(".md") || (IMAGE.test(name) && fs.statSync(full).size <= MAX_IMAGE_BYTES)) files.push(`docs/${name}`);
  }
  // BENCHMARKS.md's chart (written by benches/standing.mjs), when small enough.
  const chart = path.join(root, CHART);
  if (fs.existsSync(chart) && fs.statSync(chart).size <= MAX_IMAGE_BYTES) files.push(CHART);
  return files;
}

/**
 * Each Markdown link outside code of `text`, as `{start, end, image, label, target}` (`target`
 * as written, fragment included). Fenced blocks and inline code spans are skipped.
 */
export function markdownLinks(text) {
  // Blank out fenced blocks and inline code (same lengths, so offsets hold), then match links
  // over the whole text: a link's label may wrap onto the next line.
  let fenced = false;
  const plain = text
    .split("\n")
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return " ".repeat(line.length);
      }
      return fenced ? " ".repeat(line.length) : line.replace(/`[^`\n]*`/g, (m) => " ".repeat(m.length));
    })
    .join("\n");
  const links = [];
  for (const m of plain.matchAll(/(!?)\[((?:[^\]\\]|\\.)*)\]\(([^()\s]+)\)/g)) {
    const labelStart = m.index + m[1].length + 1;
    links.push({ start: m.index, end: m.index + m[0].length, image: m[1] === "!", label: text.slice(labelStart, labelStart + m[2].length), target: m[3] });
  }
  return links;
}

/** True for a link that leaves the document set: a URL with a scheme, or a fragment of the same page. */
export const isExternal = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#");

/** `target` (relative to the Markdown file `from`, both repository-relative) as a repository-relative path. */
export function resolveLink(from, target) {
  const file = target.split("#")[0];
  return path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURI(file)));
}

/** `text` of `from` with every relative link to a file not in `shipped` rewritten to say where it is. */
export function rewrite(from, text, shipped) {
  const rewritten = [];
  let out = "";
  let last = 0;
  for (const link of markdownLinks(text)) {
    if (isExternal(link.target)) continue;
    const to = resolveLink(from, link.target);
    if (shipped.has(to)) continue;
    const named = link.label.replace(/`/g, "") === to; // the label is the path already
    const replacement = link.image ? `*(an image in the repository, ${to}: ${link.label})*` : named ? `${link.label} (in the repository)` : `${link.label} (in the repository: ${to})`;
    out += text.slice(last, link.start) + replacement;
    last = link.end;
    rewritten.push(`${from}: ${link.target} → ${to}`);
  }
  return { text: out + text.slice(last), rewritten };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const files = shippedDocs();
  const shipped = new Set(files);
  let notes = 0;
  for (const file of files) {
    fs.mkdirSync(path.join("pkg", path.dirname(file)), { recursive: true });
    if (!file.endsWith(".md")) {
      fs.copyFileSync(file, path.join("pkg", file));
      continue;
    }
    const { text, rewritten } = rewrite(file, fs.readFileSync(file, "utf8"), shipped);
    fs.writeFileSync(path.join("pkg", file), text);
    notes += rewritten.length;
  }
  console.log(`package-docs: ${files.length} files into pkg/ (${files.filter((f) => f.startsWith("docs/")).length} under docs/); ${notes} links to files not shipped rewritten as "in the repository: <path>"`);
}
