import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  validateDnsLabel,
  validateDnsSubdomain,
} from '@capz-backstage/plugin-capz-common';
import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';
import express from 'express';
import request from 'supertest';
import YAML from 'yaml';
import { spec } from './openapi.generated';

type Schema = {
  $ref?: string;
  type?: string;
  pattern?: string;
  maxLength?: number;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  allOf?: Schema[];
};
const schemas = spec.components.schemas as unknown as Record<string, Schema>;
const resolve = (s: Schema | undefined): Schema | undefined =>
  s?.$ref ? resolve(schemas[s.$ref.split('/').pop()!]) : s;

/** The files that declare the plugin's routes, all on routers validated against openapi.yaml. */
const ROUTE_FILES = [
  'router.ts',
  'jobsRouter.ts',
  'clusterCreateRouter.ts',
  'pickersRouter.ts',
  'day2Router.ts',
  'fleetRouter.ts',
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
          join(__dirname, '..', 'routers', file),
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

  // The routers start with validateApiSpec off (routers/openApiRouter.ts): this is the check they skip.
  it('is a valid OpenAPI 3 document', async () => {
    const firstRequest = async (document: object) => {
      const router = await createValidatedOpenApiRouter(document as any, {
        validatorOptions: { validateApiSpec: true },
      });
      const app = express()
        .use(router)
        .use(
          (
            e: Error,
            _req: express.Request,
            res: express.Response,
            _next: express.NextFunction,
          ) => res.status(500).json({ error: e.message }),
        );
      return request(app).get('/health');
    };
    // The validator also logs what it found wrong in a broken document.
    const logged = jest.spyOn(console, 'error').mockImplementation(() => {});
    const broken = await firstRequest({
      ...spec,
      paths: { ...spec.paths, '/health': { get: { responses: 'none' } } },
    });
    expect(broken.status).toBe(500);
    expect(broken.body.error).toMatch(/openapi/i);
    expect(logged).toHaveBeenCalled();
    logged.mockRestore();
    const res = await firstRequest(spec);
    expect(res.body).not.toHaveProperty('error');
    expect(res.status).toBe(404);
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

/** One rule per kind of name, at the edge, and no body that takes a field it does not describe. */
describe('the OpenAPI document: names and bodies', () => {
  const accepts = (schema: string, value: string) => {
    const s = schemas[schema];
    return value.length <= s.maxLength! && new RegExp(s.pattern!).test(value);
  };
  const samples = [
    '.',
    '..',
    '../x',
    'a/b',
    'a..b',
    '.a',
    'a.',
    '-a',
    'a-',
    'A',
    'team_a',
    '',
    'a',
    'aso-credential',
    'my.secret.v2',
    '0a-1.b2',
    'x'.repeat(63),
    'x'.repeat(64),
    `${'x'.repeat(63)}.${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(61)}`,
    `${'x'.repeat(63)}.${'y'.repeat(63)}.${'z'.repeat(63)}.${'w'.repeat(62)}`,
  ];

  it("says what capz-common's name rules say (validateDnsLabel, validateDnsSubdomain)", () => {
    for (const v of samples) {
      const label = validateDnsLabel(v) === undefined;
      const subdomain = validateDnsSubdomain(v) === undefined;
      expect([v, accepts('NamespaceName', v)]).toEqual([v, label]);
      expect([v, accepts('ManagementClusterName', v)]).toEqual([v, label]);
      expect([v, accepts('SecretName', v)]).toEqual([v, subdomain]);
      // A Cluster's name is a subdomain that fits the cluster-name label.
      expect([v, accepts('ClusterName', v)]).toEqual([
        v,
        subdomain && v.length <= 63,
      ]);
    }
  });

  it('checks every name of a Kubernetes object a request carries with the schema of its kind', () => {
    const kinds: Record<string, string[]> = {
      managementCluster: ['ManagementClusterName'],
      namespace: ['NamespaceName'],
      targetNamespace: ['NamespaceName'],
      credentialSecret: ['SecretName'],
      credentialSecretName: ['SecretName'],
      // A Cluster's name, or (GET /credential-secrets) a Secret's.
      name: ['ClusterName', 'SecretName'],
    };
    const seen: string[] = [];
    const wrong: string[] = [];
    const check = (where: string, field: string, s: Schema | undefined) => {
      if (!kinds[field]) return;
      seen.push(where);
      const schema = s?.$ref?.split('/').pop() ?? JSON.stringify(s);
      if (!kinds[field].includes(schema)) wrong.push(`${where}: ${schema}`);
    };
    const parameters = spec.components.parameters as unknown as Record<
      string,
      { name: string; schema: Schema }
    >;
    for (const [path, ops] of Object.entries(
      spec.paths as unknown as Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{
              $ref?: string;
              name?: string;
              schema?: Schema;
            }>;
            requestBody?: { content: Record<string, { schema: Schema }> };
          }
        >
      >,
    ))
      for (const [method, op] of Object.entries(ops)) {
        for (const raw of op.parameters ?? []) {
          const p = raw.$ref
            ? parameters[raw.$ref.split('/').pop()!]
            : (raw as { name: string; schema: Schema });
          check(`${method} ${path} ${p.name}`, p.name, p.schema);
        }
        const body = resolve(
          op.requestBody?.content['application/json'].schema,
        );
        for (const branch of body?.oneOf?.map(resolve) ?? [body]) {
          const fields = {
            ...branch?.properties,
            ...resolve(branch?.properties?.params)?.properties,
          };
          for (const [field, s] of Object.entries(fields))
            check(`${method} ${path} body ${field}`, field, s);
        }
      }
    expect(wrong).toEqual([]);
    expect(seen).toEqual(
      expect.arrayContaining([
        'get /credential-secrets name',
        'get /azure/clusters credentialSecret',
        'get /pickers/regions credentialSecret',
        'get /pickers/kubernetes-versions credentialSecret',
        'post /jobs body credentialSecret',
        'post /jobs/preview body name',
        'post /clusters body credentialSecretName',
        'get /clusters/{managementCluster}/{namespace}/{name}/tree name',
      ]),
    );
  });

  it('refuses unknown fields in every request body, per day-2 action and per job type', () => {
    const open: string[] = [];
    const walk = (where: string, raw: Schema | undefined) => {
      const s = resolve(raw);
      if (!s) return;
      if (s.oneOf) {
        s.oneOf.forEach((o, i) => walk(`${where}|${o.$ref ?? i}`, o));
        return;
      }
      if (s.type === 'object' || s.properties) {
        // An object of named fields refuses others; a map says what its values are.
        if (s.properties && s.additionalProperties !== false) open.push(where);
        for (const [k, v] of Object.entries(s.properties ?? {}))
          walk(`${where}.${k}`, v);
        if (typeof s.additionalProperties === 'object')
          walk(`${where}.*`, s.additionalProperties);
      }
      if (s.items) walk(`${where}[]`, s.items);
    };
    for (const [path, ops] of Object.entries(
      spec.paths as unknown as Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, { schema: Schema }> } }
        >
      >,
    ))
      for (const [method, op] of Object.entries(ops))
        if (op.requestBody)
          walk(
            `${method} ${path}`,
            op.requestBody.content['application/json'].schema,
          );
    expect(open).toEqual([]);
  });

  it('takes the same planDigest on every day-2 action as Day2Action describes', () => {
    const described = (schemas.Day2Action.properties as Record<string, Schema>)
      .planDigest;
    expect(schemas.Day2PlanDigest.pattern).toBe(described.pattern);
    for (const branch of schemas.Day2Action.oneOf!.map(resolve))
      expect(branch!.properties!.planDigest).toEqual({
        $ref: '#/components/schemas/Day2PlanDigest',
      });
  });
});
