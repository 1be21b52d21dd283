import { spec } from '../schema/openapi.generated';
import {
  describeSchema,
  explainValidationMessage,
  type ValidatedOperation,
} from './validationMessages';

/** The spec's own operations, so a change of openapi.yaml shows here. */
const paths = spec.paths as unknown as Record<
  string,
  Record<string, ValidatedOperation>
>;
const createCluster = paths['/clusters'].post;
const tree = paths['/clusters/{managementCluster}/{namespace}/{name}/tree'].get;
const timeline =
  paths['/clusters/{managementCluster}/{namespace}/{name}/timeline'].get;
const listClusters = paths['/clusters'].get;
const listManagementClusters = paths['/management-clusters'].get;

const pool = {
  name: 'pool0',
  mode: 'System',
  vmSize: 'Standard_D2s_v3',
  replicas: 1,
};

describe('explainValidationMessage', () => {
  it('names a missing field as the sender wrote it and says what to put there', () => {
    const { replicas: _replicas, ...noReplicas } = pool;
    expect(
      explainValidationMessage(
        "request/body/pools/0 must have required property 'replicas'",
        createCluster,
        { body: { pools: [noReplicas] } },
      ),
    ).toBe(
      'pools[0].replicas is missing: set it to a whole number from 0 to 1000',
    );
  });

  it('quotes the refused value and the rule in words: enum, range, length, list size', () => {
    const body = {
      location: '',
      pools: [{ ...pool, mode: 'system', replicas: 5000 }],
    };
    const say = (m: string) =>
      explainValidationMessage(m, createCluster, { body });
    expect(
      say(
        'request/body/pools/0/mode must be equal to one of the allowed values: System, User',
      ),
    ).toBe('pools[0].mode is "system": it must be one of System, User');
    expect(say('request/body/pools/0/replicas must be <= 1000')).toBe(
      'pools[0].replicas is 5000: it must be a whole number from 0 to 1000',
    );
    expect(
      say('request/body/location must NOT have fewer than 1 characters'),
    ).toBe('location is "": it must be non-empty text');
    expect(
      explainValidationMessage(
        'request/body/pools must NOT have fewer than 1 items',
        createCluster,
        { body: { pools: [] } },
      ),
    ).toMatch(/^pools is \[\]: it must be a list of 1 to 100 items, each /);
  });

  it("finds the field in a body chosen by its discriminator (a job's type), whose pointers lack `body`", () => {
    const startJob = paths['/jobs'].post;
    const body = {
      type: 'migrate',
      params: { managementCluster: 'east', namespace: 'Team_A', name: 'x' },
    };
    const said = explainValidationMessage(
      'request/params/namespace must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"',
      startJob,
      { body },
    );
    expect(said).toBe(
      `Namespace "Team_A" is not a Kubernetes namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
  });

  it('names unknown fields, and the fields there are', () => {
    expect(
      explainValidationMessage(
        'request/body/pools/0 must NOT have additional properties',
        createCluster,
        { body: { pools: [{ ...pool, count: 3, size: 'x' }] } },
      ),
    ).toBe(
      '"count", "size" are not fields of pools[0]: remove it (the fields are name, mode, osType, vmSize, replicas, autoscaling)',
    );
  });

  it('explains each of several problems, one sentence each', () => {
    expect(
      explainValidationMessage(
        "request/body must have required property 'location', request/body/pools/0/osType must be equal to one of the allowed values: Linux, Windows",
        createCluster,
        { body: { pools: [{ ...pool, osType: 'linux' }] } },
      ),
    ).toBe(
      'location is missing: set it to non-empty text; pools[0].osType is "linux": it must be one of Linux, Windows',
    );
  });

  it('words path segments and query parameters from their schemas and descriptions', () => {
    expect(
      explainValidationMessage(
        'request/params/namespace must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"',
        tree,
        { params: { namespace: 'Team_A' } },
      ),
    ).toBe(
      `Namespace "Team_A" is not a Kubernetes namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(
      explainValidationMessage(
        'request/query/from must match format "date-time"',
        timeline,
        { query: { from: 'yesterday' } },
      ),
    ).toBe(
      'query parameter from is "yesterday": it must be a date and time in ISO 8601, e.g. 2026-01-31T12:00:00Z',
    );
    expect(
      explainValidationMessage(
        'request/query/group must match pattern "^[0-9]{1,4}$"',
        tree,
        { query: { group: '-1' } },
      ),
    ).toBe(
      'query parameter group is "-1": it must be a whole number of at most 4 digits',
    );
  });

  it('names an unknown query parameter and the ones the route takes', () => {
    expect(
      explainValidationMessage("Unknown query parameter 'color'", timeline, {
        query: { color: 'red' },
      }),
    ).toBe(
      '"color" is not a query parameter of this request: remove it (it takes from, to, uid, limit)',
    );
    expect(
      explainValidationMessage(
        "Unknown query parameter 'color'",
        listClusters,
        {
          query: { color: 'red' },
        },
      ),
    ).toBe(
      '"color" is not a query parameter of this request: remove it (it takes include, uids, q, managementCluster, namespace, health, api, migration, location, attention, sort, dir, offset, limit, today, facets)',
    );
    expect(
      explainValidationMessage(
        "Unknown query parameter 'color'",
        listManagementClusters,
        { query: { color: 'red' } },
      ),
    ).toBe(
      '"color" is not a query parameter of this request: remove it (it takes none)',
    );
  });

  it('says when the body is not JSON at all', () => {
    expect(
      explainValidationMessage(
        `Expected property name or '}' in JSON at position 1 (line 1 column 2)`,
        createCluster,
        {},
      ),
    ).toBe(
      "The request body is not valid JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2))",
    );
  });

  it('leaves alone what it does not recognise, so no message is lost', () => {
    expect(
      explainValidationMessage(
        'unsupported media type text/plain',
        createCluster,
        {},
      ),
    ).toBeUndefined();
    expect(
      explainValidationMessage(
        "request/body must have required property 'name', something else entirely",
        createCluster,
        {},
      ),
    ).toBeUndefined();
  });

  it('still speaks without the route (a request the validator could not match)', () => {
    expect(
      explainValidationMessage(
        "request/body/pools/0 must have required property 'replicas'",
        undefined,
        {},
      ),
    ).toBe('pools[0].replicas is missing: set it to a valid value');
  });
});

/** The words of each route family's refusals (the routes' own tests show nothing is read behind them). */
describe('explainValidationMessage: names and bodies, per route family', () => {
  const SECRET_RULE =
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters";
  const CLUSTER_RULE =
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 63 characters";
  const SUBDOMAIN =
    '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

  it("credential-secrets, Azure clusters and the pickers: a Secret name in the form's words", () => {
    for (const route of [
      '/azure/clusters',
      '/pickers/regions',
      '/pickers/kubernetes-versions',
    ])
      expect(
        explainValidationMessage(
          `request/query/credentialSecret must match pattern "${SUBDOMAIN}"`,
          paths[route].get,
          { query: { credentialSecret: '.' } },
        ),
      ).toBe(
        `Credential Secret name "." is not a Kubernetes Secret name: ${SECRET_RULE}`,
      );
    expect(
      explainValidationMessage(
        `request/query/name must match pattern "${SUBDOMAIN}"`,
        paths['/credential-secrets'].get,
        { query: { name: '..' } },
      ),
    ).toBe(`Secret name ".." is not a Kubernetes Secret name: ${SECRET_RULE}`);
    expect(
      explainValidationMessage(
        'request/query/managementCluster must NOT have more than 63 characters',
        paths['/pickers/namespaces'].get,
        { query: { managementCluster: 'e'.repeat(64) } },
      ),
    ).toBe(
      `Management cluster "${'e'.repeat(
        56,
      )}... is not a management cluster name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (it has 64)`,
    );
  });

  it("jobs: the adoption's Secret and the cluster's name, and a field the job does not take", () => {
    const startJob = paths['/jobs'].post;
    expect(
      explainValidationMessage(
        `request/params/credentialSecret must match pattern "${SUBDOMAIN}"`,
        startJob,
        { body: { type: 'adopt', params: { credentialSecret: '.' } } },
      ),
    ).toBe(
      `Credential Secret name "." is not a Kubernetes Secret name: ${SECRET_RULE}`,
    );
    expect(
      explainValidationMessage(
        `request/params/name must match pattern "${SUBDOMAIN}"`,
        paths['/jobs/preview'].post,
        { body: { type: 'migrate', params: { name: '../x' } } },
      ),
    ).toBe(
      `Cluster name "../x" is not a Cluster API Cluster name: ${CLUSTER_RULE}`,
    );
    expect(
      explainValidationMessage(
        'request must NOT have additional properties',
        startJob,
        { body: { type: 'migrate', params: {}, dryRun: true } },
      ),
    ).toBe(
      'Unknown field "dryRun" for the migrate job: it takes only type, params',
    );
    expect(
      explainValidationMessage(
        "'type' must be equal to one of the allowed values: adopt, migrate, upgrade-api-version.",
        startJob,
        { body: { type: 'delete' } },
      ),
    ).toBe(
      'type is "delete": it must be one of adopt, migrate, upgrade-api-version',
    );
  });

  it('day-2 actions: a field the action does not take, a missing pool, an upgrade target', () => {
    const act =
      paths['/clusters/{managementCluster}/{namespace}/{name}/actions'].post;
    expect(
      explainValidationMessage(
        'request must NOT have additional properties, request must NOT have additional properties',
        act,
        { body: { action: 'pause', extra: 1, replicas: 2 } },
      ),
    ).toBe(
      'Unknown fields "extra", "replicas" for the pause action: it takes only action, planDigest',
    );
    expect(
      explainValidationMessage(
        "request must have required property 'pool'",
        act,
        { body: { action: 'scale', replicas: 3 } },
      ),
    ).toBe(
      "pool is required for the scale action: set it to the name of one of the cluster's pools",
    );
    expect(
      explainValidationMessage(
        'request/target must be string, request/target must be equal to one of the allowed values: controlPlane, request/target/pools must NOT have fewer than 1 items, request/target must match exactly one schema in oneOf',
        act,
        {
          body: {
            action: 'upgrade',
            version: 'v1.34.1',
            target: { pools: [] },
          },
        },
      ),
    ).toBe(
      'target is {"pools":[]}: it must be "controlPlane", or an object whose pools field lists the pools to upgrade (1 to 100 pool names)',
    );
  });

  it('clusters, tree and timeline: the path names, and a timestamp that was not encoded', () => {
    expect(
      explainValidationMessage(
        `request/params/name must match pattern "${SUBDOMAIN}"`,
        tree,
        { params: { name: '.' } },
      ),
    ).toBe(
      `Cluster name "." is not a Cluster API Cluster name: ${CLUSTER_RULE}`,
    );
    expect(
      explainValidationMessage(
        'request/params/managementCluster must match pattern "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"',
        timeline,
        { params: { managementCluster: 'East' } },
      ),
    ).toBe(
      `Management cluster "East" is not a management cluster name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(
      explainValidationMessage(
        "Parameter 'uid' must be url encoded. Its value may not contain reserved characters.",
        timeline,
        {},
      ),
    ).toBe(
      'query parameter uid has characters that must be URL-encoded (such as : / ? # & = +): encode its value, e.g. with encodeURIComponent',
    );
  });

  it('POST /clusters: the Secret named as the form names it; a body that is JSON but not an object', () => {
    expect(
      explainValidationMessage(
        `request/body/credentialSecretName must match pattern "${SUBDOMAIN}"`,
        createCluster,
        { body: { credentialSecretName: '..' } },
      ),
    ).toBe(
      `Credential Secret name ".." is not a Kubernetes Secret name: ${SECRET_RULE}`,
    );
    expect(
      explainValidationMessage(
        `Unexpected token '"', ""just a string"" is not valid JSON`,
        createCluster,
        {},
      ),
    ).toBe('The request body must be a JSON object, not "just a string"');
    expect(
      explainValidationMessage(
        `Unexpected token '4', "42" is not valid JSON`,
        createCluster,
        {},
      ),
    ).toBe('The request body must be a JSON object, not 42');
    expect(
      explainValidationMessage('request/body must be object', createCluster, {
        body: [1],
      }),
    ).toBe('The request body must be a JSON object');
    // Broken JSON stays broken JSON.
    expect(
      explainValidationMessage(
        `Unexpected token '}', "{"a":}" is not valid JSON`,
        createCluster,
        {},
      ),
    ).toBe(
      `The request body is not valid JSON (Unexpected token '}', "{"a":}" is not valid JSON)`,
    );
  });
});

describe('describeSchema', () => {
  it('follows references into the spec', () => {
    expect(describeSchema({ $ref: '#/components/schemas/NamespaceName' })).toBe(
      "a Kubernetes namespace name (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)",
    );
  });

  it('says text lengths, booleans and objects in words', () => {
    expect(
      describeSchema({ type: 'string', minLength: 1, maxLength: 253 }),
    ).toBe('text from 1 to 253 characters');
    expect(describeSchema({ type: 'boolean' })).toBe('true or false');
    expect(
      describeSchema({
        type: 'object',
        properties: {
          minCount: { type: 'integer' },
          maxCount: { type: 'integer' },
        },
      }),
    ).toBe('an object with the fields minCount, maxCount');
  });
});
