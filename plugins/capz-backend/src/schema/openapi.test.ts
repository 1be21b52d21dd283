import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { spec } from './openapi.generated';

describe('the OpenAPI document', () => {
  it('is what openapi.yaml says (run `yarn generate:openapi` after editing the YAML)', () => {
    const yaml = YAML.parse(
      readFileSync(join(__dirname, 'openapi.yaml'), 'utf8'),
    );
    expect(spec).toEqual(yaml);
  });

  it('describes every route the router serves', () => {
    const router = readFileSync(
      join(__dirname, '..', 'service', 'router.ts'),
      'utf8',
    );
    const served = [...router.matchAll(/\.get\('([^']+)'/g)]
      .map(m => m[1].replace(/:(\w+)/g, '{$1}'))
      .sort();
    expect(served).toEqual(Object.keys(spec.paths).sort());
  });
});
