/**
 * The Azure pickers' credential Secret is a Secret name, checked at the edge. A name that is not one
 * (".", "..") would reach the API server as a path segment (`.../secrets/.` lists every Secret of the namespace):
 * the pickers answer 400 in the form's words and ask neither the API server nor ARM (the recorder is the pickers'
 * Azure source, which reads the Secret).
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import express from 'express';
import request from 'supertest';
import type { ManagementClusterConfig } from '../config/managementClusters';
import { createPickersRouter, type PickerSources } from './pickersRouter';

const auth = { Authorization: mockCredentials.user.header() };
const clusters: ManagementClusterConfig[] = [
  {
    name: 'east',
    authMethod: 'serviceAccountToken',
    url: 'https://east.example',
    serviceAccountToken: 't',
  },
];
const SECRET_RULE =
  "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters";

async function app() {
  const calls: string[] = [];
  const azure = {
    listLocations: async (q: { credentialSecret: string }) => {
      calls.push(`locations ${q.credentialSecret}`);
      return { subscriptionId: 's', items: [] };
    },
    listKubernetesVersions: async (q: {
      credentialSecret: string;
      location: string;
    }) => {
      calls.push(`versions ${q.credentialSecret}`);
      return {
        subscriptionId: 's',
        location: q.location,
        previewsHidden: 0,
        items: [],
      };
    },
  } as unknown as NonNullable<PickerSources['azure']>;
  const logger = mockServices.logger.mock();
  const router = await createPickersRouter({
    logger,
    httpAuth: mockServices.httpAuth(),
    permissions: mockServices.permissions(),
    managementClusters: clusters,
    cache: { list: () => [] },
    azure,
    listNamespaces: async c => {
      calls.push(`namespaces ${c.name}`);
      return [];
    },
  });
  return {
    calls,
    app: express()
      .use(router)
      .use(
        MiddlewareFactory.create({
          config: mockServices.rootConfig(),
          logger,
        }).error(),
      ),
  };
}

describe('pickers: the credential Secret is a Secret name', () => {
  it("asks nothing for a credential Secret that is not a Secret name, and says so in the form's words", async () => {
    const { app: a, calls } = await app();
    for (const credentialSecret of ['.', '..', '../x', 'Aso_Credential'])
      for (const [path, extra] of [
        ['/pickers/regions', {}],
        ['/pickers/kubernetes-versions', { location: 'westeurope' }],
      ] as const) {
        const res = await request(a)
          .get(path)
          .query({
            managementCluster: 'east',
            namespace: 'team-a',
            credentialSecret,
            ...extra,
          })
          .set(auth);
        expect([path, res.status]).toEqual([path, 400]);
        expect(res.body.error.message).toBe(
          `Credential Secret name ${JSON.stringify(
            credentialSecret,
          )} is not a Kubernetes Secret name: ${SECRET_RULE}`,
        );
      }
    const ns = await request(a)
      .get('/pickers/namespaces')
      .query({ managementCluster: '..' })
      .set(auth);
    expect(ns.status).toBe(400);
    expect(ns.body.error.message).toBe(
      `Management cluster ".." is not a management cluster name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(calls).toEqual([]);
  });

  it('asks with a name that is one (the recorder records)', async () => {
    const { app: a, calls } = await app();
    const res = await request(a)
      .get('/pickers/regions')
      .query({
        managementCluster: 'east',
        namespace: 'team-a',
        credentialSecret: 'aso.credential-2',
      })
      .set(auth);
    expect(res.status).toBe(200);
    expect(calls).toEqual(['locations aso.credential-2']);
  });
});
