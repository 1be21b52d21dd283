/**
 * The app's permission policy (packages/backend/src/permissionPolicy.ts) with the demo's two people, against a real
 * backend process (packages/backend) on a management cluster of the test's own (capz-sim simulating Azure, ASO, CAPZ
 * and CAPI): Pat (the demo-team-member sign-in, a member of group:default/payments) and the guest (a member of the
 * platform group). Two clusters in one namespace: payments-a owned by the payments team (its Cluster's capz.io/owner),
 * platform-a by the default owner (the platform). Each decision is read back from the backend's audit log: the
 * allowed changes as their routes' events, the refusals as capz-permission-denied.
 */
import { OWNER_ANNOTATION } from '@capz-backstage/plugin-capz-common';
import {
  httpJson,
  signIn,
  type BackendProcess,
} from '../testing/backendProcess';
import { clusterObjectsGone, createDay2Cluster } from '../testing/day2Fixtures';
import { JobsWorld } from '../testing/jobsWorld';

const w = new JobsWorld('owners');
const ns = 'owned';
let b: BackendProcess;
let patToken = '';

/** A request to /api/<path> with Pat's token. */
const asPat = (method: string, path: string, body?: unknown) =>
  httpJson(`${b.url}/api/${path}`, method, body, {
    Authorization: `Bearer ${patToken}`,
  });
const clusterPath = (name: string) => `capz/clusters/${w.mcName}/${ns}/${name}`;
const userReplicas = async (name: string) =>
  (await w.c.get('MachinePool', ns, `${name}-user`)).spec.replicas;
const scale = (replicas: number) => ({
  action: 'scale',
  pool: 'user',
  replicas,
});

/**
 * An audit event's fields from its log line, as the development logger prints them (`key=<JSON>`, colored, in the
 * order eventId, severityLevel, actor, request, meta, status, then the error's fields). actor and request are flat
 * objects; meta is whatever lies between ` meta=` and ` status=`.
 */
function auditEvent(line: string): Record<string, any> {
  // eslint-disable-next-line no-control-regex
  const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
  const field = (re: RegExp) => {
    const m = re.exec(plain);
    return m ? JSON.parse(m[1]) : undefined;
  };
  return {
    eventId: field(/ eventId=("[^"]*")/),
    severityLevel: field(/ severityLevel=("[^"]*")/),
    status: field(/ status=("[^"]*")/),
    actor: field(/ actor=(\{[^}]*\})/),
    request: field(/ request=(\{[^}]*\})/),
    meta: field(/ meta=(\{.*\}) status=/),
  };
}

/** The backend's audit events of one event id and status, in the order it logged them. */
function audits(eventId: string, status: string): Record<string, any>[] {
  return b
    .log()
    .split('\n')
    .filter(l => l.includes('isAuditEvent') && l.includes(`"${eventId}"`))
    .map(auditEvent)
    .filter(e => e.eventId === eventId && e.status === status);
}

beforeAll(async () => {
  await w.start({ scenarios: 'none' });
  await w.namespaceWithCredential(ns);
  await createDay2Cluster(w, {
    namespace: ns,
    name: 'payments-a',
    kubernetesVersion: 'v1.33.2',
    userReplicas: 2,
    owner: 'group:default/payments',
  });
  await createDay2Cluster(w, {
    namespace: ns,
    name: 'platform-a',
    kubernetesVersion: 'v1.33.2',
    userReplicas: 2,
  });
  b = await w.backend('owners', w.sqlite('owners'));
  // Pat's sign-in as the app's sign-in page asks for it (app-config.yaml's auth.providers.demo-team-member).
  const pat = await signIn(b.url, 'demo-team-member');
  // Checked before anything relies on it: the token is Pat's, with the payments team among its claims.
  if (
    pat.identity.userEntityRef !== 'user:default/pat' ||
    !pat.identity.ownershipEntityRefs.includes('group:default/payments')
  )
    throw new Error(`Pat's sign-in: ${JSON.stringify(pat.identity)}`);
  patToken = pat.token;
  await w.waitFor(
    'both clusters healthy on the backend',
    async () => {
      const r = await b.request('GET', 'capz/clusters');
      const health = (r.body.items ?? [])
        .filter((c: any) => c.namespace === ns)
        .map((c: any) => `${c.name} ${c.health}`)
        .sort();
      return (
        health.join(', ') === 'payments-a healthy, platform-a healthy' ||
        health.join(', ')
      );
    },
    180_000,
  );
}, 600_000);

afterAll(async () => {
  await w.stop();
}, 180_000);

describe("the app's policy with two users", () => {
  it("lets the owner see and scale their own cluster only: another team's cluster and a delete are refused, nothing written, every decision audited", async () => {
    const listed = await asPat('GET', 'capz/clusters');
    expect(listed.status).toBe(200);
    expect(
      listed.body.items
        .filter((c: any) => c.namespace === ns)
        .map((c: any) => c.name),
    ).toEqual(['payments-a']);
    // The owner comes from the cluster in the cache, not from anything the request says.
    expect(
      (await w.c.get('Cluster', ns, 'payments-a')).metadata.annotations[
        OWNER_ANNOTATION
      ],
    ).toBe('group:default/payments');

    const preview = await asPat(
      'POST',
      `${clusterPath('payments-a')}/actions/preview`,
      scale(3),
    );
    expect(preview.status).toBe(200);
    const applied = await asPat(
      'POST',
      `${clusterPath('payments-a')}/actions`,
      {
        ...scale(3),
        planDigest: preview.body.planDigest,
      },
    );
    expect(applied.status).toBe(200);
    expect(applied.body.applied).toBe(true);
    expect(await userReplicas('payments-a')).toBe(3);

    // The platform's cluster: neither its page nor a scale.
    const tree = await asPat('GET', `${clusterPath('platform-a')}/tree`);
    expect(tree.status).toBe(403);
    const refusedScale = await asPat(
      'POST',
      `${clusterPath('platform-a')}/actions/preview`,
      scale(5),
    );
    expect(refusedScale.status).toBe(403);
    expect(refusedScale.body.error.message).toBe(
      `Not allowed to scale cluster ${w.mcName}/${ns}/platform-a (capz.cluster.scale)`,
    );
    // Deletes are the platform's, also of the team's own cluster.
    const refusedDelete = await asPat('DELETE', clusterPath('payments-a'), {
      confirmName: 'payments-a',
    });
    expect(refusedDelete.status).toBe(403);
    expect(refusedDelete.body.error.message).toMatch(
      /^Not allowed to delete cluster .*\/payments-a \(capz\.cluster\.delete\)$/,
    );
    expect(await userReplicas('platform-a')).toBe(2);
    expect(await w.c.get('Cluster', ns, 'payments-a')).toMatchObject({
      metadata: { name: 'payments-a' },
    });
    expect(
      (await w.c.get('Cluster', ns, 'payments-a')).metadata.deletionTimestamp,
    ).toBeUndefined();

    const scaled = audits('capz-cluster-day2', 'succeeded').filter(
      e => e.meta?.dryRun === false,
    );
    expect(scaled).toHaveLength(1);
    expect(scaled[0]).toMatchObject({
      actor: { actorId: 'user:default/pat' },
      meta: { target: { namespace: ns, name: 'payments-a' } },
    });
    const refusals = audits('capz-permission-denied', 'failed');
    expect(
      refusals.map(e => [e.actor.actorId, e.request.method, e.request.url]),
    ).toEqual([
      ['user:default/pat', 'GET', `/api/${clusterPath('platform-a')}/tree`],
      [
        'user:default/pat',
        'POST',
        `/api/${clusterPath('platform-a')}/actions/preview`,
      ],
      ['user:default/pat', 'DELETE', `/api/${clusterPath('payments-a')}`],
    ]);
    expect(refusals.map(e => e.severityLevel)).toEqual([
      'medium',
      'medium',
      'medium',
    ]);
  }, 120_000);

  it("lets the platform delete the team's cluster, audited with the platform user", async () => {
    const preview = await b.request(
      'GET',
      `${clusterPath('payments-a')}/delete-preview`,
    );
    expect(preview.status).toBe(200);
    expect(preview.body.blockers).toEqual([]);
    const deleted = await b.request('DELETE', clusterPath('payments-a'), {
      confirmName: 'payments-a',
      planDigest: preview.body.planDigest,
    });
    expect(deleted.status).toBe(202);
    await w.waitFor(
      "payments-a's objects gone",
      () => clusterObjectsGone(w, ns, 'payments-a'),
      120_000,
    );
    const events = audits('capz-cluster-delete', 'succeeded');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: { actorId: 'user:default/guest' },
      severityLevel: 'critical',
      meta: { target: { namespace: ns, name: 'payments-a' } },
    });
    // The refusals of the first test stay the only ones.
    expect(audits('capz-permission-denied', 'failed')).toHaveLength(3);
  }, 180_000);
});
