import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import {
  AuthorizeResult,
  PolicyDecision,
} from '@backstage/plugin-permission-common';
import { TimelineResponse } from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import YAML from 'yaml';
import { CachedObject } from '../cluster/ClusterWatch';
import { ConnectionMonitor } from '../cluster/ConnectionMonitor';
import { clusterOwnerOf } from '../cluster/clusterOwners';
import type { ClusterOwnerOf } from '../permissions/rules';
import { WatchCache } from '../cluster/WatchCache';
import { ManagementClusterConfig } from '../config/managementClusters';
import { createRouter, TimelineReader } from './router';
import { TREE_GZIP_MIN_BYTES } from './treeBodies';

const mcs: ManagementClusterConfig[] = [
  {
    name: 'east',
    authMethod: 'serviceAccountToken',
    url: 'https://east.example',
    serviceAccountToken: 'sa-token-east',
  },
  {
    name: 'west',
    authMethod: 'serviceAccountToken',
    url: 'https://west.example',
    serviceAccountToken: 'sa-token-west',
  },
];

let n = 0;
const obj = (
  kind: string,
  ns: string,
  name: string,
  extra: Record<string, unknown> = {},
): CachedObject => ({
  apiVersion:
    kind === 'Cluster'
      ? 'cluster.x-k8s.io/v1beta2'
      : 'infrastructure.cluster.x-k8s.io/v1beta1',
  kind,
  metadata: {
    name,
    namespace: ns,
    uid: `uid-${kind.toLowerCase()}-${ns}-${name}-${++n}`,
  },
  ...extra,
});

/** A WatchCache stand-in with fixed content: the router only reads list(), status() and initialListing(). */
function fakeCache(
  content: Record<string, Record<string, CachedObject[]>>,
  listing: string[] = [],
): WatchCache {
  return {
    list: (mc: string, kind: string, ns?: string) =>
      (content[mc]?.[kind] ?? []).filter(
        o => ns === undefined || o.metadata.namespace === ns,
      ),
    status: () => ({ synced: true, kinds: {} }),
    initialListing: (mc?: string) =>
      mc === undefined ? listing.length > 0 : listing.includes(mc),
    get: (mc: string, kind: string, ns: string | undefined, name: string) =>
      (content[mc]?.[kind] ?? []).find(
        o => o.metadata.namespace === ns && o.metadata.name === name,
      ),
  } as unknown as WatchCache;
}

const clusterIn = (ns: string, name: string) =>
  obj('Cluster', ns, name, {
    spec: {
      controlPlaneRef: {
        apiGroup: 'infrastructure.cluster.x-k8s.io',
        kind: 'AzureASOManagedControlPlane',
        name,
      },
    },
  });

/** The AzureASOManagedControlPlane of a Cluster made by clusterIn, owned by it. */
const controlPlaneOf = (
  cluster: CachedObject,
  extra: { annotations?: Record<string, string>; spec?: unknown } = {},
) => {
  const { name, namespace, uid } = cluster.metadata;
  return obj('AzureASOManagedControlPlane', namespace!, name, {
    metadata: {
      name,
      namespace,
      uid: `uid-cp-${name}`,
      ownerReferences: [
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Cluster', name, uid },
      ],
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    ...(extra.spec ? { spec: extra.spec } : {}),
  });
};

const eastA = clusterIn('team-a', 'alpha');
const eastACp = controlPlaneOf(eastA, {
  annotations: {
    'kubectl.kubernetes.io/last-applied-configuration': '{"secret":"s3cr3t"}',
  },
  spec: { windowsProfile: { adminPassword: 'hunter2' } },
});
const eastB = clusterIn('team-b', 'beta');
const westC = clusterIn('team-a', 'gamma');
const cache = fakeCache({
  east: { Cluster: [eastA, eastB], AzureASOManagedControlPlane: [eastACp] },
  west: { Cluster: [westC] },
});

const timeline: TimelineResponse = {
  from: '',
  to: '',
  initial: [],
  transitions: [],
  deletions: [],
  events: [],
  truncated: false,
};

async function app(
  opts: {
    decision?: PolicyDecision;
    history?: TimelineReader;
    cache?: WatchCache;
    validateResponses?: boolean;
    ownerOf?: ClusterOwnerOf;
  } = {},
) {
  const logger = mockServices.logger.mock();
  const permissions = opts.decision
    ? mockServices.permissions.mock({
        authorizeConditional: async () => [opts.decision!],
      })
    : mockServices.permissions();
  const middleware = MiddlewareFactory.create({
    config: mockServices.rootConfig(),
    logger,
  });
  // The root HTTP router's compression middleware, as in a backend: it changes how an answer's headers are sent.
  return express()
    .use(middleware.compression())
    .use(
      await createRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions,
        managementClusters: mcs,
        connections: new ConnectionMonitor(mcs, logger),
        cache: opts.cache ?? cache,
        history: opts.history,
        validateResponses: opts.validateResponses ?? true,
        ownerOf: opts.ownerOf,
      }),
    )
    .use(middleware.error());
}

const q = (params: Record<string, string>) =>
  new URLSearchParams(params).toString();
const auth = { Authorization: mockCredentials.user.header() };
const names = (res: request.Response) =>
  res.body.items
    .map(
      (c: { managementCluster: string; name: string }) =>
        `${c.managementCluster}/${c.name}`,
    )
    .sort();

/** A conditional decision: the caller may read the clusters of namespace team-a only. */
const teamAOnly: PolicyDecision = {
  result: AuthorizeResult.CONDITIONAL,
  pluginId: 'capz',
  resourceType: 'capz-cluster',
  conditions: {
    rule: 'IS_IN_NAMESPACE',
    resourceType: 'capz-cluster',
    params: { namespaces: ['team-a'] },
  },
};

describe('router', () => {
  it('lists every cluster when the read permission is granted', async () => {
    const res = await request(await app())
      .get('/clusters')
      .set(auth);
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['east/alpha', 'east/beta', 'west/gamma']);
    expect(res.body.listing).toBeUndefined();
  });

  it('keeps in the attention view the clusters whose judgement for the asked day needs it', async () => {
    // delta runs 1.29, out of AKS support by the day asked; alpha's control plane has no version, gamma none at all.
    const delta = clusterIn('team-a', 'delta');
    const deltaCp = controlPlaneOf(delta, { spec: { version: 'v1.29.4' } });
    const server = await app({
      cache: fakeCache({
        east: {
          Cluster: [eastA, eastB, delta],
          AzureASOManagedControlPlane: [eastACp, deltaCp],
        },
        west: { Cluster: [westC] },
      }),
    });
    for (const attention of ['now', 'any']) {
      const res = await request(server)
        .get(`/clusters?${q({ attention, today: '2026-12-07' })}`)
        .set(auth);
      expect(res.status).toBe(200);
      expect({ items: names(res), total: res.body.total }).toEqual({
        items: ['east/delta'],
        total: 1,
      });
    }
    const soon = await request(server)
      .get(`/clusters?${q({ attention: 'soon', today: '2026-12-07' })}`)
      .set(auth);
    expect(soon.body).toMatchObject({ items: [], total: 0 });
  });

  it('answers a view of the clusters: filtered, sorted and paged as the clusters page does, with its total', async () => {
    const server = await app();
    const order = (res: request.Response) =>
      res.body.items.map(
        (c: { managementCluster: string; name: string }) =>
          `${c.managementCluster}/${c.name}`,
      );
    const first = await request(server)
      .get(`/clusters?${q({ sort: 'name', limit: '2' })}`)
      .set(auth);
    expect(first.status).toBe(200);
    expect({ items: order(first), total: first.body.total }).toEqual({
      items: ['east/alpha', 'east/beta'],
      total: 3,
    });
    const next = await request(server)
      .get(`/clusters?${q({ sort: 'name', offset: '2', limit: '2' })}`)
      .set(auth);
    expect({
      items: order(next),
      total: next.body.total,
      offset: next.body.offset,
    }).toEqual({ items: ['west/gamma'], total: 3, offset: 2 });
    const backwards = await request(server)
      .get(`/clusters?${q({ sort: 'name', dir: 'descending' })}`)
      .set(auth);
    expect(order(backwards)).toEqual(['west/gamma', 'east/beta', 'east/alpha']);
    const filtered = await request(server)
      .get(`/clusters?${q({ namespace: 'team-a', q: 'GAM' })}`)
      .set(auth);
    expect({ items: order(filtered), total: filtered.body.total }).toEqual({
      items: ['west/gamma'],
      total: 1,
    });
    // None of these has a Kubernetes version: nothing needs attention.
    const attention = await request(server)
      .get(`/clusters?${q({ attention: 'any' })}`)
      .set(auth);
    expect(attention.body).toMatchObject({ items: [], total: 0 });
    // Without a view's parameters, the whole list as before (no total).
    const plain = await request(server).get('/clusters').set(auth);
    expect(plain.body.total).toBeUndefined();
    const bad = await request(server)
      .get(`/clusters?${q({ limit: '0' })}`)
      .set(auth);
    expect(bad.status).toBe(400);
  });

  it('answers the clusters named by uid, only those the caller may read, and refuses uids with a view', async () => {
    const decision = teamAOnly;
    const server = await app({ decision });
    const uids = [westC, eastB, eastA]
      .map(c => c.metadata.uid)
      .concat('gone-0000')
      .join(',');
    const res = await request(server)
      .get(`/clusters?${q({ uids, include: 'certificateAuthority' })}`)
      .set(auth);
    expect(res.status).toBe(200);
    // team-b's beta is not the caller's; the unknown uid is left out; the order is the one asked.
    expect(
      res.body.items.map((c: { uid: string; name: string }) => [c.uid, c.name]),
    ).toEqual([
      [westC.metadata.uid, 'gamma'],
      [eastA.metadata.uid, 'alpha'],
    ]);
    expect(res.body.total).toBeUndefined();

    const withView = await request(server)
      .get(`/clusters?${q({ uids, namespace: 'team-a' })}`)
      .set(auth);
    expect(withView.status).toBe(400);
    expect(withView.body.error.message).toMatch(
      /uids .* cannot be combined with a view's filters \(namespace\)/,
    );
    const tooMany = await request(server)
      .get(
        `/clusters?${q({
          uids: Array.from({ length: 101 }, (_, i) => `u${i}`).join(','),
        })}`,
      )
      .set(auth);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(
      /uids is .*: it must be at most 100 Cluster uids separated by commas/,
    );
  });

  it("pages only the clusters the caller may read: the total counts none of the others'", async () => {
    const decision = teamAOnly;
    const res = await request(await app({ decision }))
      .get(`/clusters?${q({ limit: '1', sort: 'name' })}`)
      .set(auth);
    expect(res.body.total).toBe(2);
    expect(res.body.items.map((c: { name: string }) => c.name)).toEqual([
      'alpha',
    ]);
    // The facets count the clusters the caller may read, whatever the view's filters, and nothing else.
    const faceted = await request(await app({ decision }))
      .get(`/clusters?${q({ health: 'failed', facets: 'true' })}`)
      .set(auth);
    expect(faceted.status).toBe(200);
    expect(faceted.body.facets.total).toBe(2);
    expect(faceted.body.facets.namespaces).toEqual(['team-a']);
    expect(
      Object.values(
        faceted.body.facets.health as Record<string, number>,
      ).reduce((a, b) => a + b, 0),
    ).toBe(2);
  });

  it('names the management clusters still doing their first list, whose clusters are not all listed yet', async () => {
    const res = await request(
      await app({ cache: fakeCache({ west: { Cluster: [westC] } }, ['east']) }),
    )
      .get('/clusters')
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body.listing).toEqual(['east']);
  });

  it('applies a conditional decision by namespace and management cluster', async () => {
    const decision: PolicyDecision = {
      result: AuthorizeResult.CONDITIONAL,
      pluginId: 'capz',
      resourceType: 'capz-cluster',
      conditions: {
        allOf: [
          {
            rule: 'IS_IN_MANAGEMENT_CLUSTER',
            resourceType: 'capz-cluster',
            params: { managementClusters: ['east'] },
          },
          {
            rule: 'IS_IN_NAMESPACE',
            resourceType: 'capz-cluster',
            params: { namespaces: ['team-a'] },
          },
        ],
      },
    };
    const server = await app({ decision });
    expect(names(await request(server).get('/clusters').set(auth))).toEqual([
      'east/alpha',
    ]);
    expect(
      (await request(server).get('/clusters/east/team-a/alpha/tree').set(auth))
        .status,
    ).toBe(200);
    const denied = await request(server)
      .get('/clusters/east/team-b/beta/tree')
      .set(auth);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe(
      'Not allowed to read clusters in east/team-b',
    );
    expect(
      (
        await request(server)
          .get('/clusters/west/team-a/gamma/timeline')
          .set(auth)
      ).status,
    ).toBe(403);
  });

  it("applies an IS_CLUSTER_OWNER decision with each cluster's catalog owner from the watch cache", async () => {
    const owned = (ns: string, name: string, owner?: string) => ({
      ...clusterIn(ns, name),
      metadata: {
        ...clusterIn(ns, name).metadata,
        ...(owner ? { annotations: { 'capz.io/owner': owner } } : {}),
      },
    });
    const owners = fakeCache({
      east: {
        Cluster: [
          // A bare name is a group in the default namespace, as the catalog reads spec.owner.
          owned('team-a', 'alpha', 'Team-A'),
          owned('team-a', 'delta', 'group:default/team-b'),
          // No annotation: the default owner, as the catalog module writes the entity.
          owned('team-b', 'beta'),
        ],
      },
    });
    const asOwner = (claims: string[]) =>
      app({
        cache: owners,
        ownerOf: clusterOwnerOf(owners, 'group:default/platform'),
        decision: {
          result: AuthorizeResult.CONDITIONAL,
          pluginId: 'capz',
          resourceType: 'capz-cluster',
          conditions: {
            rule: 'IS_CLUSTER_OWNER',
            resourceType: 'capz-cluster',
            params: { claims },
          },
        },
      });
    const teamA = await asOwner(['user:default/alice', 'group:default/team-a']);
    expect(names(await request(teamA).get('/clusters').set(auth))).toEqual([
      'east/alpha',
    ]);
    expect(
      (await request(teamA).get('/clusters/east/team-a/alpha/tree').set(auth))
        .status,
    ).toBe(200);
    // Same namespace, another owner: the namespace says nothing about who owns a cluster.
    expect(
      (await request(teamA).get('/clusters/east/team-a/delta/tree').set(auth))
        .status,
    ).toBe(403);
    const platform = await asOwner(['group:default/platform']);
    expect(names(await request(platform).get('/clusters').set(auth))).toEqual([
      'east/beta',
    ]);
    // Claims that own nothing read nothing, and a cluster not in the cache has no owner to match.
    const nobody = await asOwner(['user:default/bob']);
    expect(names(await request(nobody).get('/clusters').set(auth))).toEqual([]);
    expect(
      (await request(nobody).get('/clusters/east/team-z/ghost/tree').set(auth))
        .status,
    ).toBe(403);
  });

  it('answers 403 on a denied read permission, on every read route', async () => {
    const server = await app({ decision: { result: AuthorizeResult.DENY } });
    for (const path of [
      '/clusters',
      '/management-clusters',
      '/clusters/east/team-a/alpha/tree',
    ]) {
      expect((await request(server).get(path).set(auth)).status).toBe(403);
    }
  });

  it('rejects bad input with a 400 naming the field, before any handler runs', async () => {
    const server = await app();
    const badName = await request(server)
      .get('/clusters/east/Team_A/alpha/tree')
      .set(auth);
    expect(badName.status).toBe(400);
    expect(badName.body.error.message).toMatch(/namespace/);
    const badGroup = await request(server)
      .get('/clusters/east/team-a/alpha/tree?group=-1')
      .set(auth);
    expect(badGroup.status).toBe(400);
    expect(badGroup.body.error.message).toMatch(/group/);
    const unknownParam = await request(server)
      .get('/clusters?color=red')
      .set(auth);
    expect(unknownParam.status).toBe(400);
    const badTime = await request(server)
      .get('/clusters/east/team-a/alpha/timeline?from=yesterday')
      .set(auth);
    expect(badTime.status).toBe(400);
    expect(badTime.body.error.message).toMatch(/from/);
  });

  it('serves a tree from its serialized bytes: gzipped when asked and large, 304 on a matching ETag, the same JSON as validated', async () => {
    // A tree's size is mostly its conditions' messages: one of 3,000 characters makes a tree between the compression
    // middleware's 1 KB threshold and TREE_GZIP_MIN_BYTES, one of 20,000 a tree above it.
    const withMessage = (name: string, length: number) => {
      const c = clusterIn('team-c', name);
      return {
        ...c,
        status: {
          conditions: [
            {
              type: 'Ready',
              status: 'False',
              reason: 'Provisioning',
              message: 'm'.repeat(length),
              lastTransitionTime: '2026-11-27T10:00:00Z',
            },
          ],
        },
      };
    };
    const sized = fakeCache({
      east: {
        Cluster: [
          eastA,
          eastB,
          withMessage('small', 3_000),
          withMessage('large', 20_000),
        ],
        AzureASOManagedControlPlane: [eastACp],
      },
    });
    const path = '/clusters/east/team-c/large/tree';
    const validated = await request(await app({ cache: sized }))
      .get(path)
      .set(auth);
    expect(Buffer.byteLength(JSON.stringify(validated.body))).toBeGreaterThan(
      TREE_GZIP_MIN_BYTES,
    );
    const server = await app({ cache: sized, validateResponses: false });
    const plain = await request(server)
      .get(path)
      .set(auth)
      .set('Accept-Encoding', 'identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.body).toEqual(validated.body);
    // One answer of known length, not a chunked one.
    expect(plain.headers['transfer-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(
      Buffer.byteLength(JSON.stringify(validated.body)),
    );
    const gzipped = await request(server)
      .get(path)
      .set(auth)
      .set('Accept-Encoding', 'gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers['cache-control']).toBe('no-cache');
    expect(gzipped.headers.vary).toMatch(/Accept-Encoding/);
    expect(gzipped.body).toEqual(validated.body); // supertest gunzips
    expect(gzipped.headers['transfer-encoding']).toBeUndefined();
    expect(Number(gzipped.headers['content-length'])).toBeLessThan(
      Number(plain.headers['content-length']),
    );
    const etag = plain.headers.etag;
    expect(gzipped.headers.etag).toBe(etag);
    const again = await request(server)
      .get(path)
      .set(auth)
      .set('If-None-Match', etag);
    expect(again.status).toBe(304);
    const other = await request(server)
      .get('/clusters/east/team-b/beta/tree')
      .set(auth)
      .set('If-None-Match', etag);
    expect(other.status).toBe(200);
    expect(other.headers.etag).not.toBe(etag);

    // A small tree goes plain even to a client that takes gzip, and the root router's compression middleware, which
    // would compress anything over 1 KB, is told to leave it alone.
    const small = await request(server)
      .get('/clusters/east/team-c/small/tree')
      .set(auth)
      .set('Accept-Encoding', 'gzip');
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['cache-control']).toBe('no-cache, no-transform');
    const smallBytes = Number(small.headers['content-length']);
    expect(smallBytes).toBe(Buffer.byteLength(JSON.stringify(small.body)));
    expect(smallBytes).toBeGreaterThan(1024);
    expect(smallBytes).toBeLessThan(TREE_GZIP_MIN_BYTES);
  });

  it('serves the Git source of a cluster Flux applies in the list and the tree, as the OpenAPI document describes it', async () => {
    const A = '1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d';
    const flux = {
      'kustomize.toolkit.fluxcd.io/name': 'clusters',
      'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
    };
    const applied = clusterIn('team-g', 'gitops');
    applied.metadata.labels = flux;
    const withFlux = fakeCache({
      east: {
        Cluster: [applied],
        Kustomization: [
          {
            apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
            kind: 'Kustomization',
            metadata: {
              name: 'clusters',
              namespace: 'flux-system',
              uid: 'uid-ks',
              generation: 1,
            },
            spec: {
              sourceRef: { kind: 'GitRepository', name: 'gitops' },
              path: './clusters',
              suspend: false,
            },
            status: {
              observedGeneration: 1,
              lastAppliedRevision: `main@sha1:${A}`,
              conditions: [{ type: 'Ready', status: 'True', reason: 'X' }],
            },
          },
        ],
        GitRepository: [
          {
            apiVersion: 'source.toolkit.fluxcd.io/v1',
            kind: 'GitRepository',
            metadata: {
              name: 'gitops',
              namespace: 'flux-system',
              uid: 'uid-r',
            },
            spec: {
              url: 'https://git.example.com/org/gitops.git',
              ref: { tag: 'v1' },
            },
            status: { artifact: { revision: `v1@sha1:${A}` } },
          },
        ],
      },
    });
    // Responses are validated against openapi.yaml (additionalProperties: false): an undescribed field is a 500.
    const server = await app({ cache: withFlux });
    const list = await request(server).get('/clusters').set(auth);
    expect(list.status).toBe(200);
    const tree = await request(server)
      .get('/clusters/east/team-g/gitops/tree')
      .set(auth);
    expect(tree.status).toBe(200);
    for (const summary of [list.body.items[0], tree.body.summary])
      expect(summary.gitSource).toEqual({
        kustomization: { namespace: 'flux-system', name: 'clusters' },
        source: {
          kind: 'GitRepository',
          namespace: 'flux-system',
          name: 'gitops',
        },
        sourceFound: true,
        url: 'https://git.example.com/org/gitops.git',
        ref: { type: 'tag', value: 'v1' },
        path: './clusters',
        lastAppliedRevision: `main@sha1:${A}`,
        sourceRevision: `v1@sha1:${A}`,
        ready: { status: 'True', reason: 'X' },
        suspended: false,
        generation: 1,
        observedGeneration: 1,
        inSync: false,
      });
  });

  it('answers 404 naming what is missing', async () => {
    const server = await app();
    const noMc = await request(server)
      .get('/clusters/north/team-a/alpha/tree')
      .set(auth);
    expect(noMc.status).toBe(404);
    expect(noMc.body.error.message).toBe('No management cluster named "north"');
    const noCluster = await request(server)
      .get('/clusters/east/team-a/nope/tree')
      .set(auth);
    expect(noCluster.status).toBe(404);
    expect(noCluster.body.error.message).toBe(
      'No Cluster team-a/nope on management cluster "east"',
    );
  });

  it('serves an object of the cluster as YAML with secrets redacted, and only objects of that cluster', async () => {
    const server = await app();
    const res = await request(server)
      .get(`/clusters/east/team-a/alpha/objects/${eastACp.metadata.uid}`)
      .set(auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'AzureASOManagedControlPlane',
      name: 'alpha',
      namespace: 'team-a',
    });
    expect(res.body.yaml).not.toMatch(/hunter2|s3cr3t/);
    expect(YAML.parse(res.body.yaml).spec.windowsProfile.adminPassword).toBe(
      '<redacted>',
    );
    const other = await request(server)
      .get(`/clusters/east/team-b/beta/objects/${eastACp.metadata.uid}`)
      .set(auth);
    expect(other.status).toBe(404);
  });

  it('reads the timeline from the history with defaults and limits checked', async () => {
    const calls: any[] = [];
    const history: TimelineReader = {
      timeline: async query => {
        calls.push(query);
        return {
          ...timeline,
          from: query.from.toISOString(),
          to: query.to.toISOString(),
        };
      },
    };
    const server = await app({ history });
    const res = await request(server)
      .get(
        `/clusters/east/team-a/alpha/timeline?${q({
          from: '2026-11-20T00:00:00Z',
          to: '2026-11-21T00:00:00Z',
          uid: 'abc-123',
        })}`,
      )
      .set(auth);
    expect(res.status).toBe(200);
    expect(calls[0]).toMatchObject({
      managementCluster: 'east',
      namespace: 'team-a',
      cluster: 'alpha',
      objectUid: 'abc-123',
      limit: 5000,
    });
    expect(res.body.from).toBe('2026-11-20T00:00:00.000Z');
    const defaults = await request(server)
      .get('/clusters/east/team-a/alpha/timeline')
      .set(auth);
    expect(
      new Date(defaults.body.to).getTime() -
        new Date(defaults.body.from).getTime(),
    ).toBe(24 * 3600 * 1000);
    const reversed = await request(server)
      .get(
        `/clusters/east/team-a/alpha/timeline?${q({
          from: '2026-11-21T00:00:00Z',
          to: '2026-11-20T00:00:00Z',
        })}`,
      )
      .set(auth);
    expect(reversed.status).toBe(400);
    expect(
      (
        await request(server)
          .get('/clusters/east/team-a/alpha/timeline?limit=0')
          .set(auth)
      ).status,
    ).toBe(400);
    expect(calls).toHaveLength(2);
  });

  it("never shows a management cluster's credentials", async () => {
    const res = await request(await app())
      .get('/management-clusters')
      .set(auth);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toMatch(/sa-token/);
  });

  it('publishes its OpenAPI document', async () => {
    const res = await request(await app())
      .get('/openapi.json')
      .set(auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.paths)).toContain(
      '/clusters/{managementCluster}/{namespace}/{name}/timeline',
    );
  });
});

/** The names of the cluster routes are checked at the edge, and a timestamp may be typed as it is. */
describe('router: names and timestamps at the edge', () => {
  const CLUSTER_RULE =
    "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 63 characters";

  it('takes an ISO 8601 timestamp unencoded in from and to, as a person types it', async () => {
    const calls: Array<{ from: Date; to: Date }> = [];
    const server = await app({
      history: {
        timeline: async query => {
          calls.push(query);
          return { ...timeline, from: '', to: '' };
        },
      },
    });
    const res = await request(server)
      .get(
        '/clusters/east/team-a/alpha/timeline?from=2026-11-27T00:00:00Z&to=2026-11-27T12:30:00Z',
      )
      .set(auth);
    expect(res.status).toBe(200);
    expect(calls.map(c => [c.from.toISOString(), c.to.toISOString()])).toEqual([
      ['2026-11-27T00:00:00.000Z', '2026-11-27T12:30:00.000Z'],
    ]);
    // An offset's "+" unencoded is a space in a query string: the answer says how to write it.
    const offset = await request(server)
      .get(
        '/clusters/east/team-a/alpha/timeline?from=2026-11-27T00:00:00+01:00',
      )
      .set(auth);
    expect(offset.status).toBe(400);
    expect(offset.body.error.message).toBe(
      'query parameter from is "2026-11-27T00:00:00 01:00": it must be a date and time in ISO 8601, e.g. 2026-01-31T12:00:00Z (a "+" in a URL is a space: write it %2B, or give the time in UTC with Z)',
    );
  });

  it('reads neither the watch cache nor the history for a name that is not one', async () => {
    const reads: string[] = [];
    const recorded = {
      ...cache,
      list: (mc: string, kind: string, ns?: string) => {
        reads.push(`${mc}/${kind}/${ns}`);
        return cache.list(mc, kind, ns);
      },
      status: cache.status,
      initialListing: cache.initialListing,
    } as unknown as WatchCache;
    const history: TimelineReader = {
      timeline: async () => {
        reads.push('history');
        return timeline;
      },
    };
    const server = await app({ cache: recorded, history });
    const said = async (path: string) => {
      const res = await request(server).get(path).set(auth);
      expect([path, res.status]).toEqual([path, 400]);
      return res.body.error.message as string;
    };
    for (const name of ['..', 'a..b', 'Alpha'])
      for (const route of ['tree', 'timeline', 'objects/uid-1'])
        expect(await said(`/clusters/east/team-a/${name}/${route}`)).toBe(
          `Cluster name ${JSON.stringify(
            name,
          )} is not a Cluster API Cluster name: ${CLUSTER_RULE}`,
        );
    expect(await said('/clusters/east/team.a/alpha/tree')).toBe(
      `Namespace "team.a" is not a Kubernetes namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(await said('/clusters/East/team-a/alpha/timeline')).toBe(
      `Management cluster "East" is not a management cluster name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(reads).toEqual([]);
    // The recorder does record: a name that is one is read.
    expect(
      (await request(server).get('/clusters/east/team-a/alpha/tree').set(auth))
        .status,
    ).toBe(200);
    expect(reads.length).toBeGreaterThan(0);
  });
});
