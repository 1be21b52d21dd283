import { citationLabel, proseParts, withoutCitations } from './Prose';

describe('withoutCitations', () => {
  it.each([
    [
      'reconcile-policy skip (docs/migration-procedure.md#step-1, docs/capz-aso-facts.md#legacy-pause).',
      'reconcile-policy skip.',
    ],
    [
      'named after the ManagedCluster (adoption inherits names, docs/capz-aso-facts.md#adoption-names), not x.',
      'named after the ManagedCluster (adoption inherits names), not x.',
    ],
    [
      'Upgrade CAPZ first (clusterctl upgrade; docs/migration-procedure.md#upgrade-step-1), then retry.',
      'Upgrade CAPZ first (clusterctl upgrade), then retry.',
    ],
    [
      'so that the controller leaves them in place: docs/flux-facts.md#flux-prune), then retry',
      'so that the controller leaves them in place), then retry',
    ],
    ['No citation here.', 'No citation here.'],
  ])('%s', (text, expected) => {
    expect(withoutCitations(text)).toBe(expected);
  });
});

describe('proseParts', () => {
  it('keeps backticked code whole, citations in it included, and splits citations out of the text when they link', () => {
    expect(
      proseParts(
        'See docs/job-guarantees.md#same-lifecycle, then run: `kubectl get x # docs/job-guarantees.md`.',
        true,
      ),
    ).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'cite', page: 'job-guarantees', anchor: 'same-lifecycle' },
      { kind: 'text', text: ', then run: ' },
      { kind: 'code', code: 'kubectl get x # docs/job-guarantees.md' },
      { kind: 'text', text: '.' },
    ]);
    expect(citationLabel('migration-procedure', 'step-6-2')).toBe(
      'migration procedure: step 6 2',
    );
  });
});
