// A node:test reporter that writes one JSON line per finished test, per diagnostic that names its file, and per
// timing line a test file printed ("<what>: <ms> ms of its <timeout> ms timeout", packages/mgmt-cluster/test-real/
// wait.ts), for scripts/test-durations.mjs (each test's, hook's and wait's duration against its timeout). Events: Node's
// test runner reporter stream, https://nodejs.org/docs/latest-v24.x/api/test.html#event-testpass (duration_ms, type,
// error.failureType, and the test's file, line and column, which locate the call whose options hold its timeout;
// test:stdout carries what a test file printed, with its file). Use it beside a human one:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./scripts/node-test-json-reporter.mjs --test-reporter-destination=report.jsonl FILES
import { resolve } from 'node:path';

const TIMED = /: \d+ ms of its \d+ ms timeout$/;

export default async function* jsonLines(source) {
  for await (const { type, data } of source) {
    if (type === 'test:pass' || type === 'test:fail') {
      const error = data.details?.error;
      yield `${JSON.stringify({
        event: type === 'test:pass' ? 'pass' : 'fail',
        kind: data.details?.type ?? 'test',
        name: data.name,
        nesting: data.nesting,
        file: data.file,
        line: data.line,
        column: data.column,
        ms: Math.round(data.details?.duration_ms ?? 0),
        skip: data.skip !== undefined ? true : undefined,
        todo: data.todo !== undefined ? true : undefined,
        failureType: error?.failureType,
        error: error
          ? String(error.cause?.message ?? error.cause ?? error.message)
              .split('\n')[0]
              .slice(0, 300)
          : undefined,
      })}\n`;
    } else if (type === 'test:stdout') {
      const file = resolve(data.entryFile ?? data.file ?? '');
      for (const line of String(data.message).split('\n'))
        if (TIMED.test(line))
          yield `${JSON.stringify({
            event: 'diagnostic',
            file,
            message: line,
          })}\n`;
    } else if (type === 'test:diagnostic' && data.file) {
      yield `${JSON.stringify({
        event: 'diagnostic',
        file: data.file,
        message: data.message,
      })}\n`;
    }
  }
}
