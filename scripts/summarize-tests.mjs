// Sums the test counts of the three runners (and the install check; the real-controllers lane's node:test and Jest reports) into the closing line "N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
let passed = 0;
let failed = 0;
const parts = [];

for (const [label, file] of [
  ['unit', 'jest.json'],
  ['backend integration', 'jest-integration.json'],
  ['real controllers (backend)', 'jest-real-controllers.json'],
  ['real controllers (backend, GitOps)', 'jest-real-controllers-gitops.json'],
]) {
  const jestFile = join(dir, file);
  if (!existsSync(jestFile)) continue;
  const j = JSON.parse(readFileSync(jestFile, 'utf8'));
  passed += j.numPassedTests;
  failed += j.numFailedTests;
  parts.push(`${label} ${j.numPassedTests}/${j.numTotalTests}`);
}
for (const [label, file] of [
  ['unit (bench)', 'unit-bench.log'],
  ['integration', 'integration-mgmt.log'],
  ['simulation', 'integration-sim.log'],
  ['real controllers', 'real-controllers.log'],
  ['flux', 'flux.log'],
]) {
  const nodeLog = join(dir, file);
  if (!existsSync(nodeLog)) continue;
  const text = readFileSync(nodeLog, 'utf8');
  const n = k =>
    Number((text.match(new RegExp(`^ℹ ${k} (\\d+)$`, 'm')) ?? [])[1] ?? 0);
  passed += n('pass');
  failed += n('fail');
  parts.push(`${label} ${n('pass')}/${n('tests')}`);
}
const e2eFile = join(process.cwd(), 'e2e', 'artifacts', 'results.json');
if (existsSync(e2eFile)) {
  const s = JSON.parse(readFileSync(e2eFile, 'utf8')).stats;
  passed += s.expected;
  failed += s.unexpected;
  parts.push(`e2e ${s.expected}/${s.expected + s.unexpected + s.flaky}`);
}
const installCheck = join(dir, 'install-check.result');
if (existsSync(installCheck)) {
  const ok = readFileSync(installCheck, 'utf8').trim() === 'pass';
  if (ok) passed += 1;
  else failed += 1;
  parts.push(`install check ${ok ? 1 : 0}/1`);
}
console.log(`(${parts.join(', ')})`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
