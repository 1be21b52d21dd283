#!/usr/bin/env node
// Reads Jest JSON reports (yarn test --json --outputFile=...) and prints each test's duration against the timeout
// that applies to it: the test's own (the number after its function, read from the source with TypeScript's parser)
// or the repo's Jest testTimeout (root package.json). Issue 22: a timeout only detects a hang, so every test must
// stay far from it on a busy machine; this exits 1 when a test used more than a third of its timeout.
//   node scripts/test-durations.mjs [--top N] [--margin 3] REPORT.json...
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(root, 'package.json'))('typescript');
const { values, positionals } = parseArgs({
  options: {
    top: { type: 'string', default: '15' },
    margin: { type: 'string', default: '3' },
  },
  allowPositionals: true,
});
const margin = Number(values.margin);
const defaultTimeout =
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).jest
    ?.testTimeout ?? 5000;

/** title -> explicit timeout (ms) of every it()/test() call with a numeric third argument in a test file. */
function explicitTimeouts(file) {
  const found = new Map();
  const patterns = [];
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const consts = new Map(); // const NAME = <number>: a timeout given by name
  const numberOf = node => {
    if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
    if (ts.isIdentifier(node)) return consts.get(node.text);
    if (ts.isBinaryExpression(node)) {
      const l = numberOf(node.left);
      const r = numberOf(node.right);
      if (l === undefined || r === undefined) return undefined;
      if (node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) return l * r;
      if (node.operatorToken.kind === ts.SyntaxKind.PlusToken) return l + r;
    }
    return undefined;
  };
  const visit = node => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer
    ) {
      const ms = numberOf(node.initializer);
      if (ms !== undefined) consts.set(node.name.text, ms);
    }
    if (ts.isCallExpression(node) && node.arguments.length >= 3) {
      const callee = node.expression.getText(src);
      const title = node.arguments[0];
      const isTitle =
        ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title);
      const ms = isTitle ? numberOf(node.arguments[2]) : undefined;
      if (ms !== undefined) {
        if (/^(it|test)(\.(only|failing|concurrent))?$/.test(callee))
          found.set(title.text, ms);
        // it.each(table)('title with %s', fn, timeout): Jest formats the title per row, so match it as a pattern.
        else if (/^(it|test)(\.(only|concurrent))?\.each\b/.test(callee))
          patterns.push({ re: eachTitle(title.text), ms });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return {
    get: t => found.get(t) ?? patterns.find(p => p.re.test(t))?.ms,
  };
}

/** A regular expression for the titles Jest makes of an `each` title: each printf placeholder matches anything. */
function eachTitle(title) {
  const parts = title.split(/%[sdifjopP#%]/);
  const esc = x => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${parts.map(esc).join('.*')}$`);
}

const rows = [];
for (const report of positionals) {
  const json = JSON.parse(readFileSync(report, 'utf8'));
  for (const suite of json.testResults) {
    const timeouts = explicitTimeouts(suite.name);
    for (const t of suite.assertionResults) {
      if (t.status !== 'passed' && t.status !== 'failed') continue;
      const timeout = timeouts.get(t.title) ?? defaultTimeout;
      rows.push({
        file: suite.name.replace(`${root}/`, ''),
        title: [...t.ancestorTitles, t.title].join(' › '),
        ms: t.duration ?? 0,
        timeout,
        status: t.status,
      });
    }
  }
}
rows.sort((a, b) => b.ms / b.timeout - a.ms / a.timeout);
const pad = (s, n) => String(s).padStart(n);
console.log(
  `${rows.length} tests; default timeout ${defaultTimeout} ms; the ${values.top} closest to their timeout:`,
);
console.log(`${pad('ms', 8)} ${pad('timeout', 8)} ${pad('x', 6)}  test`);
for (const r of rows.slice(0, Number(values.top))) {
  console.log(
    `${pad(r.ms, 8)} ${pad(r.timeout, 8)} ${pad(
      (r.timeout / Math.max(r.ms, 1)).toFixed(1),
      6,
    )}  ${r.file}: ${r.title}${r.status === 'failed' ? '  [FAILED]' : ''}`,
  );
}
const close = rows.filter(r => r.ms * margin > r.timeout);
const failed = rows.filter(r => r.status === 'failed');
if (close.length || failed.length) {
  console.log(
    `${close.length} test(s) within ${margin}x of their timeout, ${failed.length} failed`,
  );
  process.exit(1);
}
console.log(`every test finished within 1/${margin} of its timeout`);
