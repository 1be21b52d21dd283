/**
 * POST /clusters checks its names at the edge with the same schemas as every other route (the credential
 * Secret is a Secret name, the namespace a namespace name), answers in the form's words, and refuses a field it does
 * not take or a body that is not an object, before the management cluster is asked anything (the recorder is the
 * route's Kubernetes client).
 */
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type {
  CreateClusterRequest,
  KubeObject,
} from '@capz-backstage/plugin-capz-common';
import express from 'express';
import request from 'supertest';
import type { ClusterCreateClient } from '../cluster/clientViews';
import { createClusterCreateRouter } from './clusterCreateRouter';

const auth = { Authorization: mockCredentials.user.header() };
const body = (o: Partial<CreateClusterRequest> = {}): CreateClusterRequest => ({
  managementCluster: 'east',
  namespace: 'team-a',
  name: 'alpha',
  location: 'westeurope',
  kubernetesVersion: 'v1.33.2',
  credentialSecretName: 'aso-credential',
  pools: [
    { name: 'pool0', mode: 'System', vmSize: 'Standard_D2s_v3', replicas: 1 },
  ],
  ...o,
});
const SECRET_RULE =
  "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters";

async function app() {
  const calls: string[] = [];
  const client: ClusterCreateClient = {
    get: async ref => {
      calls.push(`get ${ref.kind} ${ref.name}`);
      return undefined;
    },
    apply: async (obj: KubeObject) => {
      calls.push(`apply ${obj.kind} ${obj.metadata.name}`);
      return obj;
    },
  } as ClusterCreateClient;
  const logger = mockServices.logger.mock();
  const served = express()
    .use(
      await createClusterCreateRouter({
        logger,
        httpAuth: mockServices.httpAuth(),
        permissions: mockServices.permissions(),
        auditor: mockServices.auditor.mock(),
        managementClusters: [
          {
            name: 'east',
            authMethod: 'serviceAccountToken',
            url: 'https://east.example',
            serviceAccountToken: 't',
          },
        ],
        client: async mc => {
          calls.push(`client ${mc}`);
          return client;
        },
      }),
    )
    .use(
      MiddlewareFactory.create({
        config: mockServices.rootConfig(),
        logger,
      }).error(),
    );
  const said = async (sent: unknown, raw = false) => {
    let req = request(served).post('/clusters').set(auth);
    if (raw) req = req.set('Content-Type', 'application/json');
    const res = await req.send(sent as object);
    expect(res.status).toBe(400);
    return res.body.error.message as string;
  };
  return { calls, said };
}

describe('POST /clusters: names and bodies at the edge', () => {
  it('names a credential Secret that is not a Secret name as the form does, asking nothing', async () => {
    const { calls, said } = await app();
    for (const name of ['.', '..', 'a..b'])
      expect(await said(body({ credentialSecretName: name }))).toBe(
        `Credential Secret name ${JSON.stringify(
          name,
        )} is not a Kubernetes Secret name: ${SECRET_RULE}`,
      );
    expect(await said(body({ namespace: 'Team_A' }))).toBe(
      `Namespace "Team_A" is not a Kubernetes namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters`,
    );
    expect(calls).toEqual([]);
  });

  it('refuses a body that is JSON but not an object, in those words', async () => {
    const { calls, said } = await app();
    expect(await said('"just a string"', true)).toBe(
      'The request body must be a JSON object, not "just a string"',
    );
    expect(await said([body()])).toBe('The request body must be a JSON object');
    expect(calls).toEqual([]);
  });
});
