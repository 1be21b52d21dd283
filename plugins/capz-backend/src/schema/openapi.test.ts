import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { spec } from './openapi.generated';

/** The files that declare the plugin's routes, all on routers validated against openapi.yaml. */
const ROUTE_FILES = [
  'router.ts',
  'jobsRouter.ts',
  'clusterCreate.ts',
  'pickersRouter.ts',
  '../day2/day2Router.ts',
];

describe('the OpenAPI document', () => {
  it('is what openapi.yaml says (run `yarn generate:openapi` after editing the YAML)', () => {
    const yaml = YAML.parse(
      readFileSync(join(__dirname, 'openapi.yaml'), 'utf8'),
    );
    expect(spec).toEqual(yaml);
  });

  it('describes every route the routers serve, and serves every route it describes', () => {
    const served = ROUTE_FILES.flatMap(file =>
      [
        ...readFileSync(
          join(__dirname, '..', 'service', file),
          'utf8',
        ).matchAll(/\.(get|post|put|patch|delete)\(\s*'(\/[^']*)'/g),
      ].map(m => `${m[1]} ${m[2].replace(/:(\w+)/g, '{$1}')}`),
    ).sort();
    const described = Object.entries(
      spec.paths as Record<string, Record<string, unknown>>,
    )
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter(m => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
          .map(m => `${m} ${path}`),
      )
      .sort();
    expect(served).toEqual(described);
  });

  it('describes the jobs routes, with the 409 that names the job', () => {
    const paths = spec.paths as Record<string, Record<string, any>>;
    for (const path of [
      '/jobs',
      '/jobs/{id}/pause',
      '/jobs/{id}/resume',
      '/jobs/{id}/cancel',
    ])
      expect(paths[path].post.responses['409']).toEqual({
        $ref: '#/components/responses/JobConflict',
      });
    expect(
      (spec.components.schemas as Record<string, any>).JobConflict.allOf[1]
        .required,
    ).toEqual(['jobId']);
  });
});
