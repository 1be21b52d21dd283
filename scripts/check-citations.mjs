#!/usr/bin/env node
/**
 * Fails when a file of the repository cites something a reader of the repository cannot follow:
 *  - a document that lives outside it (research notes, seed documents, the old design notes and machine notes the
 *    project was started from), by name or by one of their section-number shorthands;
 *  - a `docs/<page>.md#<anchor>` (or, in Markdown, a relative `[..](<page>.md#<anchor>)` link) whose page or anchor
 *    does not exist;
 *  - in code, an issue of the tracker ("issue 33"): the tracker is not in the repository, so a comment says the why
 *    itself (history goes in commits and docs).
 * Facts are cited as pages and anchors of docs/ (see docs/README.md) or as upstream repository paths.
 *
 *   node scripts/check-citations.mjs [--root <dir>]     exit 0: clean; exit 1: every problem listed as file:line
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootArg = args.indexOf('--root');
const root = resolve(
  rootArg >= 0
    ? args[rootArg + 1]
    : join(dirname(fileURLToPath(import.meta.url)), '..'),
);
// The checker names the patterns it looks for: it is not checked itself (also when run with --root elsewhere).
const self = 'scripts/check-citations.mjs';

const EXTENSIONS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|sh|ya?ml|md|json|d\.ts)$/;
const SKIP = /(^|\/)(node_modules|dist|dist-types|\.yarn|\.local|coverage)\//;

/** Citations of documents outside the repository: each pattern with what to say about it. */
const OUTSIDE = [
  [/capz-ground-truth|\bground[ -]truth\b/i, 'the CAPZ research notes'],
  [/\bazure-side\b/, 'the Azure research notes'],
  [/backstage-anchors|real-apiserver/, 'research notes'],
  [/\bresearch notes?\b|\bresearch\/[\w-]+\.md/i, 'research notes'],
  [/\bDESIGN\.md\b/, 'the design notes'],
  [/\bTOOLCHAIN\.md\b/, 'the machine notes'],
  [/\bseeds?\/\d{3}_|\bseed 0\d\d\b/i, 'a seed document'],
  [
    /(\/work|\.\.)\/shared\/(research|seeds|DESIGN|TOOLCHAIN)/,
    'the shared folder',
  ],
  // The shorthands the notes were cited by: "(A 2.2)", "G 1.4", "S step 7".
  [/(^|[\s(|,;])([AGS] \d+\.\d+|G \d+|S step \d)\b/, 'a research-note section'],
];

/** Code files: the tracker's issue numbers are refused there (Markdown may tell history). */
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs|sh)$/;
const ISSUE = /\b[Ii]ssues? \d+\b/;

const DOC_LINK = /(?<![\w./-])((?:\.\.?\/)*docs\/[\w.-]+\.md)(?:#([\w-]+))?/g;
const MD_LINK = /\]\(((?:\.\.?\/)*[\w./-]*?\.md)?(?:#([\w-]+))?\)/g;

function listFiles() {
  const out = execFileSync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: root, maxBuffer: 256 * 1024 * 1024 },
  ).toString();
  return [...new Set(out.split('\0'))].filter(
    f =>
      f &&
      EXTENSIONS.test(f) &&
      !SKIP.test(f) &&
      f !== self &&
      existsSync(join(root, f)) &&
      statSync(join(root, f)).isFile(),
  );
}

/** GitHub's heading anchors plus explicit `<a id>`/`<a name>` anchors of a Markdown file. */
const anchorCache = new Map();
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  let fence = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g))
      anchors.add(m[1]);
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const slug = h[1]
      .replace(/<[^>]*>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

function checkTarget(target, anchor, problems, where, shown) {
  if (!existsSync(target)) {
    problems.push(`${where}: ${shown} does not exist`);
  } else if (anchor && !anchorsOf(target).has(anchor)) {
    problems.push(
      `${where}: ${shown}: no anchor #${anchor} in ${relative(root, target)}`,
    );
  }
}

const problems = [];
const files = listFiles();
for (const file of files) {
  const abs = join(root, file);
  const isMd = file.endsWith('.md');
  const lines = readFileSync(abs, 'utf8').split('\n');
  lines.forEach((line, i) => {
    const where = `${file}:${i + 1}`;
    for (const [re, what] of OUTSIDE) {
      const m = re.exec(line);
      if (m) {
        problems.push(
          `${where}: cites ${what} outside the repository ("${m[0].trim()}"): cite a docs/ page and anchor or upstream instead`,
        );
      }
    }
    const issue = CODE.test(file) ? ISSUE.exec(line) : null;
    if (issue) {
      problems.push(
        `${where}: names the tracker's "${issue[0]}", which is not in the repository: say the why in the comment`,
      );
    }
    // docs/<page>.md#anchor anywhere: from the repository's root, or relative to a Markdown file.
    for (const m of line.matchAll(DOC_LINK)) {
      const [shown, path, anchor] = m;
      const fromRoot = join(root, path.replace(/^(\.\.?\/)+/, ''));
      const target =
        isMd && path.startsWith('.') ? resolve(dirname(abs), path) : fromRoot;
      checkTarget(target, anchor, problems, where, shown);
    }
    // Relative Markdown links with an anchor: [..](page.md#anchor) and [..](#anchor).
    if (isMd) {
      for (const m of line.matchAll(MD_LINK)) {
        const [, path, anchor] = m;
        if (!anchor || (path && /^docs\//.test(path))) continue;
        const target = path ? resolve(dirname(abs), path) : abs;
        checkTarget(target, anchor, problems, where, m[0].slice(2, -1));
      }
    }
  });
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(
    `check-citations: ${problems.length} problem(s) in ${files.length} files (facts: docs/README.md)`,
  );
  process.exit(1);
}
console.log(`check-citations: ${files.length} files, every citation resolves`);
