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
  it("names a missing field as the sender wrote it and says what to put there (issue 24's example)", () => {
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
      name: '',
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
    expect(say('request/body/name must NOT have fewer than 1 characters')).toBe(
      'name is "": it must be non-empty text',
    );
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
      'params.namespace is "Team_A": it must be a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit',
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
        "request/body must have required property 'name', request/body/pools/0/osType must be equal to one of the allowed values: Linux, Windows",
        createCluster,
        { body: { pools: [{ ...pool, osType: 'linux' }] } },
      ),
    ).toBe(
      'name is missing: set it to non-empty text; pools[0].osType is "linux": it must be one of Linux, Windows',
    );
  });

  it('words path segments and query parameters from their schemas and descriptions', () => {
    expect(
      explainValidationMessage(
        'request/params/namespace must match pattern "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"',
        tree,
        { params: { namespace: 'Team_A' } },
      ),
    ).toBe(
      'path segment namespace is "Team_A": it must be a Kubernetes name: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
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
      '"color" is not a query parameter of this request: remove it (it takes include)',
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

describe('describeSchema', () => {
  it('follows references into the spec', () => {
    expect(describeSchema({ $ref: '#/components/schemas/DnsLabel' })).toBe(
      'a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit',
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
