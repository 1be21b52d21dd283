#!/usr/bin/env node
/**
 * Follows docs/install.md literally in a Backstage app: every fenced code block whose info string has the word
 * `check` is one step, in page order.
 *
 *   ```sh check                      runs the block with bash (-euo pipefail) in the app's root
 *   ```diff check file=PATH          applies the block to PATH: ' ' context and '-' lines must be found, in order and
 *                                    consecutive, and are replaced by the context and '+' lines
 *   ```yaml check merge file=PATH    deep-merges the block into PATH (maps merged, lists appended, comments kept)
 *   ```<lang> check file=PATH        creates PATH with the block (it must not exist)
 *
 * Usage: apply-docs.mjs <install.md> <app dir>. Fails on the first step that cannot be applied or fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(
  join(process.env.CAPZ_ROOT ?? process.cwd(), 'package.json'),
);
const YAML = require('yaml');

const [doc, appDir] = process.argv.slice(2);
if (!doc || !appDir) {
  console.error('usage: apply-docs.mjs <install.md> <app dir>');
  process.exit(2);
}

/** The `check` blocks of a markdown page, in order, with their line numbers. */
export function checkBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]);
    const words = open[2].trim().split(/\s+/).filter(Boolean);
    if (!words.includes('check')) continue;
    const attrs = Object.fromEntries(
      words
        .filter(w => w.includes('='))
        .map(w => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
    );
    blocks.push({
      lang: open[1],
      line: start + 1,
      merge: words.includes('merge'),
      file: attrs.file,
      body: body.join('\n'),
    });
  }
  return blocks;
}

function applyDiff(text, body, where) {
  const oldLines = [];
  const newLines = [];
  for (const l of body.split('\n')) {
    const mark = l[0] ?? ' ';
    const rest = l.slice(1);
    if (mark === ' ' || l === '') {
      oldLines.push(rest);
      newLines.push(rest);
    } else if (mark === '-') oldLines.push(rest);
    else if (mark === '+') newLines.push(rest);
    else
      throw new Error(
        `${where}: a diff line must start with ' ', '-' or '+': ${l}`,
      );
  }
  const lines = text.split('\n');
  const norm = s => s.trimEnd();
  for (let i = 0; i + oldLines.length <= lines.length; i++) {
    if (oldLines.every((l, j) => norm(lines[i + j]) === norm(l))) {
      lines.splice(i, oldLines.length, ...newLines);
      return lines.join('\n');
    }
  }
  throw new Error(
    `${where}: these lines are not in the file (in this order):\n${oldLines.join(
      '\n',
    )}`,
  );
}

function mergeInto(doc, target, source) {
  if (YAML.isMap(target) && YAML.isMap(source)) {
    for (const pair of source.items) {
      const key = YAML.isScalar(pair.key) ? pair.key.value : pair.key;
      const existing = target.get(key, true);
      if (existing && (YAML.isMap(existing) || YAML.isSeq(existing))) {
        mergeInto(doc, existing, pair.value);
      } else {
        target.set(doc.createNode(key), pair.value);
      }
    }
  } else if (YAML.isSeq(target) && YAML.isSeq(source)) {
    for (const item of source.items) target.items.push(item);
  } else {
    throw new Error('cannot merge a map with a list');
  }
}

const blocks = checkBlocks(readFileSync(doc, 'utf8'));
if (blocks.length === 0) throw new Error(`${doc}: no \`check\` blocks`);
for (const b of blocks) {
  const where = `${doc}:${b.line}`;
  const path = b.file ? resolve(appDir, b.file) : undefined;
  if (b.lang === 'sh' && !b.file) {
    console.error(`\n── ${where}: sh\n${b.body}`);
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', b.body], {
      cwd: appDir,
      stdio: 'inherit',
    });
    if (r.status !== 0)
      throw new Error(`${where}: the commands failed (exit ${r.status})`);
  } else if (b.lang === 'diff' && path) {
    console.error(`\n── ${where}: diff ${b.file}`);
    writeFileSync(path, applyDiff(readFileSync(path, 'utf8'), b.body, where));
  } else if (b.merge && path) {
    console.error(`\n── ${where}: merge into ${b.file}`);
    const target = YAML.parseDocument(readFileSync(path, 'utf8'));
    const source = YAML.parseDocument(b.body);
    if (target.errors.length || source.errors.length)
      throw new Error(
        `${where}: ${[...target.errors, ...source.errors].join('; ')}`,
      );
    if (!target.contents) target.contents = target.createNode({});
    mergeInto(target, target.contents, source.contents);
    writeFileSync(path, target.toString({ lineWidth: 0 }));
  } else if (path) {
    console.error(`\n── ${where}: create ${b.file}`);
    if (existsSync(path)) throw new Error(`${where}: ${b.file} exists already`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${b.body}\n`);
  } else {
    throw new Error(`${where}: a \`check\` block needs sh, or file=`);
  }
}
console.error(`\n── applied ${blocks.length} steps of ${doc}`);
