import { parseCatalogClusterQuery } from './catalogQuery';

describe('parseCatalogClusterQuery', () => {
  it('reads key=value pairs into the filter of the cluster entities, a repeated key as either value', () => {
    expect(
      parseCatalogClusterQuery(
        ' spec.owner=group:default/payments, metadata.tags=prod ,metadata.tags=eu ',
      ),
    ).toEqual({
      filter: {
        kind: 'Resource',
        'spec.type': 'kubernetes-cluster',
        'spec.owner': 'group:default/payments',
        'metadata.tags': ['prod', 'eu'],
      },
    });
  });

  it('says what is wrong with the text, in words', () => {
    const problem = (t: string) =>
      (parseCatalogClusterQuery(t) as { problem: string }).problem;
    expect(problem('  ')).toMatch(/^type at least one key=value/);
    expect(problem('spec.owner')).toBe(
      '"spec.owner" is not key=value (e.g. metadata.tags=prod)',
    );
    expect(problem('=x')).toBe(
      '"=x" is not key=value (e.g. metadata.tags=prod)',
    );
    expect(problem('spec owner=x')).toBe(
      '"spec owner" is not a catalog field (e.g. spec.owner)',
    );
    expect(problem('kind=Component')).toBe(
      'kind is always Resource for a cluster: leave it out',
    );
  });
});
