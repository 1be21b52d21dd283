#!/usr/bin/env node
// Reads test reports and prints each test's duration against the timeout that applies to it. A timeout only detects a
// hang, so every test must stay far from it on a busy machine: this exits 1 when a test used more than a third of its
// timeout, failed, or (node:test) has no timeout at all. Reports:
// - Jest JSON (yarn test --json --outputFile=X.json): the test's own timeout (the number after its function, read
//   from the source with TypeScript's parser) or the repo's Jest testTimeout (root package.json);
// - node:test JSON lines (X.jsonl, scripts/node-test-json-reporter.mjs): the `timeout` option of the test() call at
//   the file, line and column the runner reports, else of the nearest enclosing describe()/test() (node:test's
//   subtests inherit their parent's), else none (node:test's default is Infinity: a hang would never end). A hook's
//   or a wait's time is a line "before hook: <ms> ms of its <timeout> ms timeout" or "wait <what>: ..."
//   (packages/mgmt-cluster/test-real/hooks.ts and wait.ts), checked like a test's.
//   node scripts/test-durations.mjs [--top N] [--margin 3] REPORT.json|REPORT.jsonl...
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

/** A test file's syntax tree and a reader of the numbers in it (literals, `const NAME = <number>`, `*` and `+`). */
function parsed(file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const consts = new Map(); // const NAME = <number>: a timeout given by name
  const numberOf = node => {
    if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
    if (ts.isIdentifier(node)) return consts.get(node.text);
    if (ts.isParenthesizedExpression(node)) return numberOf(node.expression);
    if (ts.isBinaryExpression(node)) {
      const l = numberOf(node.left);
      const r = numberOf(node.right);
      if (l === undefined || r === undefined) return undefined;
      if (node.operatorToken.kind === ts.SyntaxKind.AsteriskToken) return l * r;
      if (node.operatorToken.kind === ts.SyntaxKind.PlusToken) return l + r;
    }
    return undefined;
  };
  const collect = node => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer
    ) {
      const ms = numberOf(node.initializer);
      if (ms !== undefined) consts.set(node.name.text, ms);
    }
    ts.forEachChild(node, collect);
  };
  collect(src);
  return { src, numberOf };
}

const isTitle = n =>
  n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n));

/** title -> explicit timeout (ms) of every it()/test() call with a numeric third argument in a Jest test file. */
function explicitTimeouts(file) {
  const found = new Map();
  const patterns = [];
  const p = parsed(file);
  const visit = node => {
    if (ts.isCallExpression(node) && node.arguments.length >= 3) {
      const callee = node.expression.getText(p.src);
      const title = node.arguments[0];
      const ms = isTitle(title) ? p.numberOf(node.arguments[2]) : undefined;
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
  if (p) visit(p.src);
  return {
    get: t => found.get(t) ?? patterns.find(q => q.re.test(t))?.ms,
  };
}

/** A regular expression for the titles Jest makes of an `each` title: each printf placeholder matches anything. */
function eachTitle(title) {
  const parts = title.split(/%[sdifjopP#%]/);
  const esc = x => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${parts.map(esc).join('.*')}$`);
}

/**
 * "line:column" -> { titles, timeout } for every node:test test()/it()/describe()/suite() call (also `t.test`): the
 * runner reports a test at its call, which V8 places at the called name. The timeout is the call's `{ timeout }`
 * option, else the nearest enclosing test's or suite's (undefined: none).
 */
function nodeTestCalls(file) {
  const calls = new Map();
  const p = parsed(file);
  if (!p) return calls;
  const testCall = node => {
    if (!ts.isCallExpression(node)) return undefined;
    const callee = node.expression.getText(p.src);
    if (
      !/^((\w+\.)?(test|it)|describe|suite)(\.(only|skip|todo))?$/.test(callee)
    )
      return undefined;
    const suite = /^(describe|suite)\b/.test(callee);
    const opts = node.arguments.find(a => ts.isObjectLiteralExpression(a));
    const prop = opts?.properties.find(
      x => ts.isPropertyAssignment(x) && x.name.getText(p.src) === 'timeout',
    );
    return {
      title: isTitle(node.arguments[0]) ? node.arguments[0].text : callee,
      timeout: prop ? p.numberOf(prop.initializer) : undefined,
      suite,
    };
  };
  const at = pos => {
    const { line, character } = p.src.getLineAndCharacterOfPosition(pos);
    return `${line + 1}:${character + 1}`;
  };
  const visit = node => {
    const me = testCall(node);
    if (me) {
      const titles = [me.title];
      let timeout = me.timeout;
      for (let up = node.parent; up; up = up.parent) {
        const outer = testCall(up);
        if (!outer) continue;
        titles.unshift(outer.title);
        timeout ??= outer.timeout;
      }
      const entry = { titles, timeout, key: at(node.getStart(p.src)) };
      calls.set(entry.key, entry);
      // The file's first top-level test runs the file's `before` hooks inside its own run: its reported duration
      // includes theirs, its timeout does not (the timer starts after them; Node v24 test.js Test.run).
      if (titles.length === 1 && !calls.first)
        calls.first = me.suite ? { suite: true } : entry;
      // t.test(...): V8 places the call at `test`.
      if (ts.isPropertyAccessExpression(node.expression))
        calls.set(at(node.expression.name.getStart(p.src)), entry);
    }
    ts.forEachChild(node, visit);
  };
  visit(p.src);
  return calls;
}

/** A hook's or a wait's time: "before hook: 1200 ms of its 300000 ms timeout", "wait <what>: ...". */
const TIMED = /^(.+): (\d+) ms of its (\d+) ms timeout$/;
const relative = f => f.replace(`${root}/`, '');

const rows = [];
function readJest(report, json) {
  for (const suite of json.testResults) {
    const timeouts = explicitTimeouts(suite.name);
    for (const t of suite.assertionResults) {
      if (t.status !== 'passed' && t.status !== 'failed') continue;
      rows.push({
        file: relative(suite.name),
        title: [...t.ancestorTitles, t.title].join(' › '),
        ms: t.duration ?? 0,
        timeout: timeouts.get(t.title) ?? defaultTimeout,
        status: t.status,
      });
    }
  }
}

function readNodeTest(report, text) {
  const files = new Map();
  const callsOf = f => {
    if (!files.has(f)) files.set(f, nodeTestCalls(f));
    return files.get(f);
  };
  const own = [];
  const beforeMs = new Map(); // file -> its before hook's ms
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const e = JSON.parse(line);
    if (e.event === 'diagnostic') {
      const m = TIMED.exec(e.message);
      if (m) {
        rows.push({
          file: relative(e.file),
          title: m[1],
          ms: Number(m[2]),
          timeout: Number(m[3]),
          status: 'passed',
        });
        if (m[1] === 'before hook')
          beforeMs.set(e.file, (beforeMs.get(e.file) ?? 0) + Number(m[2]));
      }
      continue;
    }
    if (e.kind !== 'test' || e.skip || e.todo) continue;
    const call = callsOf(e.file).get(`${e.line}:${e.column}`);
    const row = {
      file: relative(e.file),
      title: call ? call.titles.join(' › ') : e.name,
      ms: e.ms,
      timeout: call?.timeout ?? Infinity,
      status: e.event === 'pass' ? 'passed' : 'failed',
      why: e.event === 'fail' ? `${e.failureType}: ${e.error}` : undefined,
    };
    rows.push(row);
    own.push({ row, file: e.file, call });
  }
  for (const { row, file, call } of own) {
    const hook = beforeMs.get(file);
    if (hook && call && callsOf(file).first === call) {
      row.ms = Math.max(0, row.ms - hook);
      row.title += ` (its ${hook} ms of before hook not counted)`;
    }
  }
}

for (const report of positionals) {
  const text = readFileSync(report, 'utf8');
  if (report.endsWith('.jsonl')) readNodeTest(report, text);
  else readJest(report, JSON.parse(text));
}
const ratio = r => r.ms / r.timeout;
rows.sort((a, b) => ratio(b) - ratio(a) || b.ms - a.ms);
const pad = (s, n) => String(s).padStart(n);
console.log(
  `${rows.length} tests (and node:test hooks and waits); Jest's default timeout ${defaultTimeout} ms; the ${values.top} closest to their timeout:`,
);
console.log(`${pad('ms', 8)} ${pad('timeout', 8)} ${pad('x', 6)}  test`);
const none = rows.filter(r => r.timeout === Infinity);
const shown = [
  ...none,
  ...rows.filter(r => r.timeout !== Infinity).slice(0, Number(values.top)),
];
for (const r of shown) {
  const x =
    r.timeout === Infinity ? '-' : (r.timeout / Math.max(r.ms, 1)).toFixed(1);
  const timeout = r.timeout === Infinity ? 'none' : r.timeout;
  console.log(
    `${pad(r.ms, 8)} ${pad(timeout, 8)} ${pad(x, 6)}  ${r.file}: ${r.title}${
      r.status === 'failed' ? `  [FAILED${r.why ? ` ${r.why}` : ''}]` : ''
    }`,
  );
}
const close = rows.filter(
  r => r.timeout !== Infinity && r.ms * margin > r.timeout,
);
const failed = rows.filter(r => r.status === 'failed');
if (close.length || failed.length || none.length) {
  console.log(
    `${close.length} test(s) within ${margin}x of their timeout, ${failed.length} failed, ${none.length} without a timeout`,
  );
  process.exit(1);
}
console.log(`every test finished within 1/${margin} of its timeout`);
