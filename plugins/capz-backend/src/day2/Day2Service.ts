import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  ConflictError,
  InputError,
  NotFoundError,
  ServiceUnavailableError,
} from '@backstage/errors';
import { createHash } from 'node:crypto';
import {
  apiVersionOf,
  appliedBy,
  canonicalDay2PlanBasis,
  CLUSTER_NAME_LABEL,
  computeDeletePreview,
  day2ReadObjects,
  describeDay2Drift,
  connectInfo,
  day2ActionTitle,
  formatDay2Problems,
  gitOpsRefusal,
  kinds,
  nextControlPlaneVersions,
  planDay2Action,
  poolObjectName,
  readDay2Cluster,
  withV,
  type ClusterPlace,
  type ConnectInfo,
  type Day2Action,
  type Day2Cluster,
  type Day2GitChange,
  type Day2Plan,
  type Day2PlanBasis,
  type Day2PlanContext,
  type Day2PlanResult,
  type Day2Target,
  type Day2Write,
  type DeletePreview,
  type ObservedObject,
  type PlacedObject,
  type UpgradeOptions,
} from '@capz-backstage/plugin-capz-common';
import type { AksDiscovery } from '../azure/AksDiscovery';
import type { WatchCache } from '../cluster/WatchCache';
import { CLUSTER_KINDS } from '../cluster/watchedKinds';
import { AzureServiceError } from '../azure/errors';
import { KubeRequestError } from '../cluster/ManagementClusterClient';
import type { Day2Client } from '../cluster/clientViews';
import {
  gitView,
  type Day2GitOps,
  type ProposableGitChange,
} from './gitChange';
import { gitDeleteBody, gitDeleteFor, type GitDelete } from './gitDelete';

export interface Day2ServiceOptions {
  logger: LoggerService;
  managementClusters: string[];
  cache: Pick<WatchCache, 'list'>;
  client: (managementCluster: string) => Promise<Day2Client>;
  /** AKS's versions per region through ARM (capz.azureDiscovery); without it upgrades are refused. */
  azure?: Pick<AksDiscovery, 'listKubernetesVersions'>;
  /**
   * `capz.connect.allowLocalAccountKubeconfig`, as ClusterConnect is given it: the connect info says in advance
   * whether the kubeconfig download is available (default false, as ClusterConnect's).
   */
  allowLocalAccountKubeconfig?: boolean;
  /**
   * Plans whose objects a Flux Kustomization applies become a change of its Git repository (day2/gitChange.ts):
   * previewed as diffs, proposed as a branch and pull request at the confirm. Without it, such a confirm is a 409.
   */
  gitOps?: Day2GitOps;
}

/** ASO's default credential Secret in a namespace when an object names none (docs/capz-aso-facts.md#aso-credential-scope). */
const DEFAULT_ASO_CREDENTIAL = 'aso-credential';

/** The ASO kinds a plan reads from the watch cache (ARM ids, reconcile policies, credential): never written here. */
const ASO_KINDS = [
  'ResourceGroup',
  'ManagedCluster',
  'ManagedClustersAgentPool',
  'VirtualNetwork',
  'VirtualNetworksSubnet',
];

/** A plan made from a live read, with what it was made from (the basis of its digest). */
interface Planned {
  result: Extract<Day2PlanResult, { ok: true }>;
  basis: Day2PlanBasis;
  live: ObservedObject[];
  cluster: Day2Cluster;
  /** The plan as a Git change, when Flux applies what it changes; `change` when the confirm proposes it. */
  git?: { view: Day2GitChange; change?: ProposableGitChange };
}

/** How many previews' bases a replica keeps to explain a stale confirm (a digest it does not know still works). */
const PREVIEWS_KEPT = 500;

/** sha256 (hex) of a plan's canonical basis: what a preview answers and a confirm must carry back. */
const day2PlanDigest = (basis: Day2PlanBasis) =>
  createHash('sha256').update(canonicalDay2PlanBasis(basis)).digest('hex');

/**
 * The digest of a planned action: its basis, and for a change proposed to Git the commit it is made from and the
 * files it writes, so that a confirm proposes exactly the previewed change (the repository moved: 409).
 */
const digestOf = (planned: Planned) => {
  const base = day2PlanDigest(planned.basis);
  const change = planned.git?.change;
  if (!change) return base;
  return createHash('sha256')
    .update(
      JSON.stringify([
        base,
        change.source.commit,
        change.files.map(f => [f.path, f.after]),
      ]),
    )
    .digest('hex');
};

const kindInfo = (kind: string | undefined) =>
  Object.values(kinds).find(k => k.kind === kind);

const targetOf = (
  kind: string,
  namespace: string,
  name: string,
): Day2Target | undefined => {
  const k = kindInfo(kind);
  return k ? { apiVersion: apiVersionOf(k), kind, namespace, name } : undefined;
};

const describe = (t: { kind: string; namespace?: string; name: string }) =>
  `${t.kind} ${t.namespace}/${t.name}`;

/**
 * 503 for a management cluster that did not answer (its API server down, hung or cut off: see
 * cluster/unreachable.ts), saying what was written: before the first write, nothing; during the writes, those made
 * and whether the one in flight may have been applied.
 */
function unavailable(
  mc: string,
  e: KubeRequestError,
  writing?: { written: string[]; current: string },
): ServiceUnavailableError {
  const why = e.noAnswer?.reason ?? `HTTP ${e.statusCode}`;
  if (!writing)
    return new ServiceUnavailableError(
      `Management cluster ${mc} did not answer (${why}), so nothing was written. The page shows the cluster as last ` +
        'seen; try again once the management cluster answers.',
    );
  const before = writing.written.length
    ? `already written: ${writing.written.join(', ')}`
    : 'nothing was written before it';
  const current = e.noAnswer?.maybeSent
    ? `${writing.current} was sent and its answer lost, so it may or may not have been applied`
    : `${writing.current} was not applied`;
  return new ServiceUnavailableError(
    `Management cluster ${mc} stopped answering while the action was applied (${why}): ${before}; ${current}. ` +
      'Once it answers, look at the cluster and preview again.',
  );
}

/** The API server's refusals in the user's words: 400 for what it rejects, 409 for a change since the plan was read. */
function translate(e: unknown, mc: string): Error {
  if (!(e instanceof KubeRequestError)) return e as Error;
  if (e.noAnswer) return unavailable(mc, e);
  if (e.statusCode === 409)
    return new ConflictError(
      `${e.message} (the object changed since it was read: look at it again and retry)`,
    );
  if (e.statusCode === 400 || e.statusCode === 422)
    return new InputError(`The API server rejected ${e.message}`);
  if (e.statusCode === 404)
    return new ConflictError(`${e.message} (it is gone)`);
  if (e.statusCode === 403)
    return new Error(
      `${e.message}: the backend's identity lacks the grant plugins/capz-backend/rbac/day2.yaml gives`,
    );
  return e;
}

/**
 * The day-2 actions of one cluster: plans made from live reads with capz-common's rules, checked by the API server
 * with `dryRun=All` before anything is written, then applied; and the read-only views (upgrade options, delete
 * preview, connect) from the watch cache. Authorization and audit are the router's.
 */
export class Day2Service {
  /** Applies in flight on this replica, by cluster: a second one for the same cluster is a 409. */
  private readonly inFlight = new Set<string>();

  constructor(private readonly o: Day2ServiceOptions) {}

  private requireManagementCluster(mc: string) {
    if (!this.o.managementClusters.includes(mc))
      throw new NotFoundError(`No management cluster named "${mc}"`);
  }

  /** Every object of the clusters' kinds in a namespace from the cache, kinds filled in (no Events, nothing of Flux). */
  private namespaceObjects(mc: string, namespace: string): ObservedObject[] {
    return CLUSTER_KINDS.flatMap(k =>
      this.o.cache
        .list(mc, k.name, namespace)
        .map(o => ({ ...o, kind: o.kind ?? k.name } as ObservedObject)),
    );
  }

  private cachedCluster(
    p: ClusterPlace,
    namespaces?: Map<string, ObservedObject[]>,
  ): {
    cluster: ObservedObject;
    objects: ObservedObject[];
  } {
    this.requireManagementCluster(p.managementCluster);
    const key = `${p.managementCluster}\u0000${p.namespace}`;
    let objects = namespaces?.get(key);
    if (!objects) {
      objects = this.namespaceObjects(p.managementCluster, p.namespace);
      namespaces?.set(key, objects);
    }
    const cluster = objects.find(
      o => o.kind === 'Cluster' && o.metadata?.name === p.name,
    );
    if (!cluster)
      throw new NotFoundError(
        `No cluster ${p.namespace}/${p.name} on management cluster ${p.managementCluster}`,
      );
    return { cluster, objects };
  }

  /**
   * The cluster's CAPI and CAPZ objects read live (the plan's base and its resourceVersions), plus the ASO objects
   * from the cache (read only: ARM ids, policies, the credential).
   */
  private async readLive(
    client: Day2Client,
    p: ClusterPlace,
  ): Promise<{
    cluster: Day2Cluster;
    objects: ObservedObject[];
    live: ObservedObject[];
  }> {
    const get = async (kind: string | undefined, name: string | undefined) => {
      const t = kind && name ? targetOf(kind, p.namespace, name) : undefined;
      return t ? client.get(t) : undefined;
    };
    const cluster = await get('Cluster', p.name);
    if (!cluster)
      throw new NotFoundError(
        `No cluster ${p.namespace}/${p.name} on management cluster ${p.managementCluster}`,
      );
    const objects: ObservedObject[] = [cluster];
    // The control plane (version, embedded ManagedCluster); the infrastructure cluster holds nothing a plan needs.
    const cpRef = cluster.spec?.controlPlaneRef as
      | { kind?: string; name?: string }
      | undefined;
    const controlPlane = await get(cpRef?.kind, cpRef?.name);
    if (controlPlane) objects.push(controlPlane);
    const cached = this.namespaceObjects(p.managementCluster, p.namespace);
    // The MachinePools listed live: one added a moment ago may not be in the watch cache yet.
    const pools = (
      await client.list({
        apiVersion: apiVersionOf(kinds.MachinePool),
        kind: 'MachinePool',
        namespace: p.namespace,
      })
    ).filter(
      o =>
        ((o.spec?.clusterName as string | undefined) ??
          o.metadata?.labels?.[CLUSTER_NAME_LABEL]) === p.name,
    );
    for (const live of pools) {
      objects.push(live);
      const ref = (
        live.spec?.template as
          | { spec?: { infrastructureRef?: { kind?: string; name?: string } } }
          | undefined
      )?.spec?.infrastructureRef;
      const infra = await get(ref?.kind, ref?.name);
      if (infra) objects.push(infra);
    }
    const live = [...objects];
    objects.push(...cached.filter(o => ASO_KINDS.includes(o.kind ?? '')));
    return { cluster: readDay2Cluster(cluster, objects), objects, live };
  }

  /** What AKS offers in the cluster's region, or why that cannot be known. */
  private async offered(
    p: ClusterPlace,
    c: Day2Cluster,
  ): Promise<
    Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'>
  > {
    if (!this.o.azure)
      return {
        offeredVersionsError:
          'Azure discovery is not configured on this backend (capz.azureDiscovery)',
      };
    if (!c.location)
      return {
        offeredVersionsError: `the cluster's region is not known (no location on its ManagedCluster)`,
      };
    try {
      const r = await this.o.azure.listKubernetesVersions({
        managementCluster: p.managementCluster,
        namespace: p.namespace,
        credentialSecret: c.credentialSecret ?? DEFAULT_ASO_CREDENTIAL,
        ...(c.subscriptionId ? { subscriptionId: c.subscriptionId } : {}),
        location: c.location,
      });
      return { offeredVersions: r.items.map(i => i.version) };
    } catch (e) {
      // Azure throttling or unavailable says nothing about the versions: the request fails with 503 and when to try
      // again (docs/azure-facts.md#arm-throttling), not with a plan refused for a version it could not check.
      if (e instanceof AzureServiceError && e.statusCode === 503) throw e;
      return { offeredVersionsError: (e as Error).message };
    }
  }

  private async run(
    client: Day2Client,
    w: Day2Write,
    dryRun: boolean,
  ): Promise<void> {
    if (w.type === 'apply') await client.apply(w.object, { dryRun });
    else if (w.type === 'merge')
      await client.mergePatch(w.target, w.patch, {
        dryRun,
        resourceVersion: w.resourceVersion,
      });
    else await client.delete(w.target, { dryRun, uid: w.uid });
  }

  /**
   * The plan from a live read, or the refusal (400 for a broken rule, 409 for the cluster's state), with what it was
   * made from: the basis of its digest.
   */
  private async planLive(
    client: Day2Client,
    p: ClusterPlace,
    action: Day2Action,
    retry = false,
  ): Promise<Planned | 'done'> {
    const { cluster, live } = await this.readLive(client, p);
    const ctx: Day2PlanContext = {};
    if (action.action === 'upgrade' && action.target === 'controlPlane')
      Object.assign(ctx, await this.offered(p, cluster));
    if (action.action === 'addPool' && typeof action.pool?.name === 'string') {
      const objName = poolObjectName(p.name, action.pool.name);
      const taken: string[] = [];
      for (const kind of [
        'MachinePool',
        'AzureASOManagedMachinePool',
        'AzureManagedMachinePool',
        'ManagedClustersAgentPool',
      ]) {
        if (await client.get(targetOf(kind, p.namespace, objName)!))
          taken.push(objName);
      }
      ctx.takenNames = taken;
    }
    const result = planDay2Action(cluster, action, ctx);
    if (!result.ok) {
      // A retry after a write of this action answered 409: a removal that got through before the refusal leaves
      // the pool gone or being deleted, which is the action done, not a broken rule.
      if (
        retry &&
        action.action === 'removePool' &&
        result.problems.every(
          x => x.rule === 'pool-exists' || x.rule === 'pool-deleting',
        )
      )
        return 'done';
      const inputs = result.problems.filter(x => x.kind === 'input');
      if (inputs.length) throw new InputError(formatDay2Problems(inputs));
      throw new ConflictError(formatDay2Problems(result.problems));
    }
    return {
      result,
      basis: {
        action,
        changes: result.changes,
        warnings: result.warnings,
        read: day2ReadObjects(live, p.namespace),
      },
      live,
      cluster,
    };
  }

  /**
   * Every write through the API server's validation (schemas, admission, preconditions) before the first is made;
   * then, when `apply`, each for real, naming each one made in `written` (nothing is rolled back).
   */
  private async write(
    client: Day2Client,
    writes: Day2Write[],
    apply: boolean,
    written: string[] = [],
    progress: { current?: string } = {},
  ): Promise<void> {
    for (const w of writes) await this.run(client, w, true);
    if (!apply) return;
    for (const w of writes) {
      progress.current = describe(
        w.type === 'apply'
          ? { ...w.object.metadata, kind: w.object.kind }
          : w.target,
      );
      await this.run(client, w, false);
      written.push(progress.current);
    }
    progress.current = undefined;
  }

  /** The bases of recent previews by digest, to say what changed when a confirm finds another plan. */
  private readonly previews = new Map<string, Day2PlanBasis>();

  private remember(digest: string, basis: Day2PlanBasis) {
    this.previews.delete(digest);
    this.previews.set(digest, basis);
    while (this.previews.size > PREVIEWS_KEPT)
      this.previews.delete(this.previews.keys().next().value as string);
  }

  private answer(planned: Planned, applied: boolean): Day2Plan {
    // A change the confirm proposes to Git is not refused: the GitOps blockers are what it answers.
    const proposed = !!planned.git?.change;
    return {
      action: planned.basis.action,
      changes: planned.result.changes,
      warnings: planned.result.warnings,
      ...(planned.result.notes?.length ? { notes: planned.result.notes } : {}),
      ...(planned.result.effects ? { effects: planned.result.effects } : {}),
      ...(planned.result.cautions ? { cautions: planned.result.cautions } : {}),
      applied,
      planDigest: digestOf(planned),
      ...(planned.result.appliedBy
        ? {
            appliedBy: planned.result.appliedBy.map(x => ({
              kind: x.kind,
              namespace: x.namespace,
              name: x.name,
              appliedBy: x.appliedBy,
              blocks: x.blocks,
            })),
          }
        : {}),
      ...(planned.result.blockers && !proposed
        ? { blockers: planned.result.blockers }
        : {}),
      ...(planned.git ? { git: planned.git.view } : {}),
    };
  }

  /** The 409 of a confirm whose plan is not the previewed one, naming what moved when this replica made the preview. */
  private stale(
    sent: string,
    now: { live: ObservedObject[]; cluster: Day2Cluster },
    written: string[],
    what?: string,
  ): ConflictError {
    const preview = this.previews.get(sent);
    const poolOf = new Map(
      now.cluster.pools.map(x => [x.machinePool.metadata?.name, x.name]),
    );
    const drift = preview
      ? describeDay2Drift(
          preview,
          day2ReadObjects(now.live, now.cluster.namespace),
          (kind, name) =>
            kind === 'MachinePool' && poolOf.has(name)
              ? `pool ${poolOf.get(name)}`
              : `${kind} ${name}`,
        )
      : [];
    const details = what ? [what, ...drift] : drift;
    return new ConflictError(
      `The cluster changed since the preview${
        details.length ? ` (${details.join('; ')})` : ''
      }; ${
        written.length
          ? `already written: ${written.join(', ')}`
          : 'nothing was written'
      }. Preview again.`,
    );
  }

  /**
   * Plans an action from live reads; refuses (400 input, 409 state) naming each rule; validates every write with
   * `dryRun=All`. A preview answers the plan with its digest (the changes, warnings and the resourceVersion of every
   * object read live). A confirm (`apply`) must carry that digest: it plans again from a new read and writes only
   * when the digest is the same, each write guarded by those resourceVersions; otherwise, or when a write meets a
   * newer object, 409 and nothing (more) is written. An action that changes nothing writes nothing.
   */
  async act(
    p: ClusterPlace,
    requested: Day2Action,
    o: { apply: boolean; actor?: string },
  ): Promise<Day2Plan> {
    this.requireManagementCluster(p.managementCluster);
    const { planDigest: sent, ...rest } = requested ?? ({} as Day2Action);
    const action = rest as Day2Action;
    if (o.apply && !sent)
      throw new InputError(
        "Preview the action first: the confirm carries the preview's planDigest",
      );
    if (o.apply && !/^[0-9a-f]{64}$/.test(String(sent)))
      throw new InputError(
        "planDigest: the preview's planDigest, 64 hexadecimal digits",
      );
    const key = `${p.managementCluster}/${p.namespace}/${p.name}`;
    if (o.apply && this.inFlight.has(key))
      throw new ConflictError(
        `Another action on cluster ${key} is being applied`,
      );
    if (o.apply) this.inFlight.add(key);
    try {
      return await this.plan(p, action, o, String(sent), key);
    } catch (e) {
      // Reads (and dry runs) that got no answer: nothing was written.
      const answer = translate(e, p.managementCluster);
      if (answer instanceof ServiceUnavailableError)
        this.o.logger.warn(
          `day-2 ${action.action} on cluster ${key}: ${answer.message}`,
        );
      throw answer;
    } finally {
      if (o.apply) this.inFlight.delete(key);
    }
  }

  /** {@link act} once the request is checked and the cluster taken: read, plan, validate, write. */
  private async plan(
    p: ClusterPlace,
    action: Day2Action,
    o: { apply: boolean; actor?: string },
    sent: string,
    key: string,
  ): Promise<Day2Plan> {
    const client = await this.o.client(p.managementCluster);
    // Controllers write these objects' status all the time, which moves their resourceVersion: a precondition
    // failure (409) before anything is written means "read again", and a plan made again from the new read is the
    // previewed one when its digest is the same (the digest leaves status out: see capz-common day2ReadObjects).
    let first: Planned | undefined;
    for (let attempt = 1; ; attempt++) {
      const planned = await this.planLive(client, p, action, attempt > 1);
      if (planned === 'done') {
        this.o.logger.info(
          `day-2 ${action.action} on cluster ${key}: done by attempt ${
            attempt - 1
          } (its write answered 409 but went through)`,
        );
        return this.answer(first!, o.apply);
      }
      first ??= planned;
      // Flux applies an object the plan changes (read live just now): the plan as a change of its repository.
      if (planned.result.blockers?.length && this.o.gitOps) {
        const change = await this.o.gitOps.changeFor(
          p.managementCluster,
          this.answer(planned, false),
        );
        if (change) planned.git = gitView(this.answer(planned, false), change);
      }
      const planDigest = digestOf(planned);
      if (o.apply && planned.git?.change) {
        try {
          return await this.propose(client, p, planned, {
            planDigest,
            sent,
            key,
            actor: o.actor,
          });
        } catch (e) {
          // Its dry run met a write made since the read (a controller's status, Flux's labels): nothing was written
          // or proposed, so read again, as a live write does.
          if (
            e instanceof KubeRequestError &&
            e.statusCode === 409 &&
            !e.noAnswer &&
            attempt < 3
          )
            continue;
          throw e;
        }
      }
      // A GitOps controller applies an object the plan changes (read live just now): it would put the change back.
      if (o.apply && planned.result.blockers?.length) {
        const e = new ConflictError(
          `Nothing was written: ${[
            ...planned.result.blockers,
            ...(planned.git?.view.reason ? [planned.git.view.reason] : []),
          ].join(' ')}`,
        );
        this.o.logger.info(
          `day-2 ${action.action} on cluster ${key}: ${e.message}`,
        );
        throw e;
      }
      if (o.apply && planDigest !== sent) {
        const e = this.stale(sent, planned, []);
        this.o.logger.info(
          `day-2 ${action.action} on cluster ${key}: ${e.message}`,
        );
        throw e;
      }
      const written: string[] = [];
      const progress: { current?: string } = {};
      try {
        await this.write(
          client,
          planned.result.writes,
          o.apply,
          written,
          progress,
        );
      } catch (e) {
        // No answer during the writes themselves: say what was written and what may have been.
        if (e instanceof KubeRequestError && e.noAnswer && progress.current)
          throw unavailable(p.managementCluster, e, {
            written,
            current: progress.current,
          });
        if (!(e instanceof KubeRequestError && e.statusCode === 409)) {
          if (e instanceof KubeRequestError && o.apply && !e.noAnswer)
            e.message = `${e.message}; already written: ${
              written.join(', ') || 'nothing'
            }`;
          throw translate(e, p.managementCluster);
        }
        // A write made and a later one refused: the plan is no longer what is on the cluster, say so.
        if (written.length) throw this.stale(sent, planned, written, e.message);
        if (attempt >= 3) throw translate(e, p.managementCluster);
        continue;
      }
      if (o.apply)
        this.o.logger.info(
          `day-2 ${action.action} on cluster ${key}: ${
            written.join(', ') || 'nothing to change'
          }${attempt > 1 ? ` (attempt ${attempt})` : ''}`,
        );
      else this.remember(planDigest, planned.basis);
      return this.answer(planned, o.apply);
    }
  }

  /**
   * The confirm of a plan whose objects Flux applies: the previewed Git change or nothing (409), checked by the API
   * server (dry run) as a live write would be, then pushed as a branch named by its digest (a second confirm of the
   * same change finds the branch and its pull request) from the revision Flux applied. Nothing is written to the
   * cluster: Flux applies the change once the pull request is merged.
   */
  private async propose(
    client: Day2Client,
    p: ClusterPlace,
    planned: Planned,
    {
      planDigest,
      sent,
      key,
      actor,
    }: {
      planDigest: string;
      sent: string;
      key: string;
      actor?: string;
    },
  ): Promise<Day2Plan> {
    const action = planned.basis.action;
    if (planDigest !== sent) {
      const preview = this.previews.get(sent);
      const src = planned.git!.change!.source;
      // The cluster is as previewed: the repository is not (Flux applied a newer revision since).
      const e =
        preview && day2PlanDigest(preview) === day2PlanDigest(planned.basis)
          ? new ConflictError(
              `The Git change is not the previewed one: Kustomization ${src.kustomization.namespace}/${src.kustomization.name} has applied ${src.revision} since the preview; nothing was proposed. Preview again.`,
            )
          : this.stale(sent, planned, []);
      this.o.logger.info(
        `day-2 ${action.action} on cluster ${key}: ${e.message}`,
      );
      throw e;
    }
    await this.write(client, planned.result.writes, false);
    const title = `${day2ActionTitle(action)} (cluster ${p.namespace}/${
      p.name
    })`;
    const change = planned.git!.change!;
    const body = [
      `Proposed from Backstage${
        actor ? ` by ${actor}` : ''
      }: ${title}, on management cluster ${p.managementCluster}.`,
      `Made from ${change.source.revision}, the revision Kustomization ${change.source.kustomization.namespace}/${change.source.kustomization.name} applied.`,
      '',
      ...planned.result.changes.map(
        c =>
          `- ${c.operation} ${c.kind} ${c.namespace}/${c.name}${
            c.fields?.length
              ? `: ${c.fields
                  .map(
                    f =>
                      `${f.path} ${JSON.stringify(f.before)} → ${JSON.stringify(
                        f.after,
                      )}`,
                  )
                  .join(', ')}`
              : ''
          }`,
      ),
      ...(planned.result.warnings.length || planned.result.notes?.length
        ? [
            '',
            ...[
              ...planned.result.warnings,
              ...(planned.result.notes ?? []),
            ].map(w => `Note: ${w}`),
          ]
        : []),
    ].join('\n');
    const proposed = await this.o.gitOps!.propose(change, {
      branch: `capz/${p.namespace}-${p.name}-${
        action.action
      }-${planDigest.slice(0, 12)}`,
      title,
      body,
    });
    this.o.logger.info(
      `day-2 ${action.action} on cluster ${key}: proposed to Git as branch ${
        proposed.branch
      } (${proposed.commit})${
        proposed.pullRequest ? `, pull request ${proposed.pullRequest.url}` : ''
      }`,
    );
    const answer = this.answer(planned, false);
    return { ...answer, git: { ...answer.git!, proposed } };
  }

  /**
   * A cluster's part of a fleet upgrade's preview, from the cache: its day-2 reading and the versions AKS offers in its
   * region. `offeredMemo` shares ARM's answers between the clusters of one preview: one call per region and credential.
   */
  async cachedUpgradeBasis(
    p: ClusterPlace,
    offeredMemo: Map<
      string,
      Promise<Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'>>
    >,
    /**
     * The namespaces' objects as one preview read them, by management cluster and namespace: a fleet's clusters share
     * their namespaces (500 clusters in one at the bench's 10,000), and each namespace read copies its objects (at
     * 10,000, 7,000 copies per cluster planned, 1.5 GiB of garbage for a preview over 1,000 clusters).
     */
    namespaceMemo?: Map<string, ObservedObject[]>,
  ): Promise<{
    cluster: Day2Cluster;
    ctx: Pick<Day2PlanContext, 'offeredVersions' | 'offeredVersionsError'> & {
      throughGit: boolean;
    };
  }> {
    const { cluster, objects } = this.cachedCluster(p, namespaceMemo);
    const c = readDay2Cluster(cluster, objects);
    const key = [
      p.managementCluster,
      p.namespace,
      c.credentialSecret ?? DEFAULT_ASO_CREDENTIAL,
      c.subscriptionId ?? '',
      c.location ?? '',
    ].join('\u0000');
    let offered = offeredMemo.get(key);
    if (!offered) {
      offered = this.offered(p, c);
      offeredMemo.set(key, offered);
    }
    // A change Flux applies is proposed to Git at the confirm when a delivery is configured (act, above).
    return {
      cluster: c,
      ctx: { ...(await offered), throughGit: !!this.o.gitOps },
    };
  }

  /** The versions the control plane may move to next (ARM, the region), and the pools' versions. From the cache. */
  async upgrades(p: ClusterPlace): Promise<UpgradeOptions> {
    const { cluster, objects } = this.cachedCluster(p);
    const c = readDay2Cluster(cluster, objects);
    const problems: string[] = [];
    let available: string[] = [];
    if (c.version) {
      const offered = await this.offered(p, c);
      if (offered.offeredVersions)
        available = nextControlPlaneVersions(
          c.version,
          offered.offeredVersions,
        );
      else
        problems.push(
          `The versions AKS offers are not known: ${offered.offeredVersionsError}`,
        );
    } else {
      problems.push('The control plane has no spec.version to upgrade from.');
    }
    // A pinned version blocks any control plane upgrade: the plan's own message, with its fix.
    const probe = available[0] ?? (c.version ? withV(c.version) : undefined);
    if (probe && c.pinnedKubernetesVersion !== undefined) {
      const r = planDay2Action(
        c,
        { action: 'upgrade', version: probe, target: 'controlPlane' },
        { offeredVersions: [probe] },
      );
      if (!r.ok)
        problems.push(
          ...r.problems
            .filter(x => x.rule === 'pinned-version')
            .map(x => x.message),
        );
    }
    return {
      controlPlane: c.version ?? '',
      pools: c.pools.map(x => ({ name: x.name, version: x.version ?? '' })),
      available,
      problems,
    };
  }

  /**
   * What deleting the cluster does in Azure ({@link deletePreview}) and, for a cluster a Flux Kustomization applies,
   * the delete as a change of its repository that the confirm proposes (day2/gitDelete.ts).
   */
  async deletePreviewWithGit(p: ClusterPlace): Promise<DeletePreview> {
    const git = await this.gitDelete(p);
    if (!git) return this.deletePreview(p);
    return {
      ...this.deletePreview(p, { throughGit: !!git.change }),
      git: git.view,
      ...(git.planDigest ? { planDigest: git.planDigest } : {}),
    };
  }

  /** The cluster delete as a Git change, when Flux applies the Cluster (read from the cache) and Git is configured. */
  private async gitDelete(p: ClusterPlace): Promise<GitDelete | undefined> {
    if (!this.o.gitOps) return undefined;
    const { cluster, objects } = this.cachedCluster(p);
    try {
      return await gitDeleteFor({
        gitOps: this.o.gitOps,
        managementCluster: p.managementCluster,
        cluster,
        objects,
      });
    } catch (e) {
      throw translate(e, p.managementCluster);
    }
  }

  /**
   * The confirm of a delete through Git: the previewed change or nothing (409), pushed as a branch from the revision
   * Flux applied, with its pull request where the host has one. Nothing is deleted live.
   */
  private async proposeDelete(
    p: ClusterPlace,
    git: GitDelete,
    planDigest: string | undefined,
    actor: string | undefined,
  ): Promise<DeletePreview> {
    const preview = this.deletePreview(p, { throughGit: !!git.change });
    const refuse = (why: string) =>
      new ConflictError(`Nothing was deleted or proposed: ${why}`);
    if (!git.change)
      throw refuse(git.view.reason ?? 'the delete cannot be made in Git');
    if (preview.blockers.length) throw refuse(preview.blockers.join('; '));
    if (!planDigest)
      throw new InputError(
        "planDigest: preview the delete first; the confirm carries the preview's planDigest",
      );
    if (planDigest !== git.planDigest)
      throw refuse(
        `the Git change is not the previewed one (Kustomization ${git.change.source.kustomization.namespace}/${git.change.source.kustomization.name} is at ${git.change.source.revision}, or the cluster changed). Preview again.`,
      );
    const proposed = await this.o.gitOps!.propose(git.change, {
      branch: `capz/${p.namespace}-${p.name}-delete-${planDigest.slice(0, 12)}`,
      title: `Delete cluster ${p.namespace}/${p.name}`,
      body: gitDeleteBody({
        preview,
        change: git.change,
        notes: git.view.notes,
        actor,
      }),
    });
    this.o.logger.info(
      `deleting cluster ${p.managementCluster}/${p.namespace}/${
        p.name
      } through Git: branch ${proposed.branch} (${proposed.commit})${
        proposed.pullRequest ? `, pull request ${proposed.pullRequest.url}` : ''
      }`,
    );
    return {
      ...preview,
      git: { ...git.view, proposed },
      planDigest,
    };
  }

  /** What deleting the cluster does in Azure, from the cache (this namespace, and ASO objects everywhere else). */
  deletePreview(
    p: ClusterPlace,
    opts: { throughGit?: boolean } = {},
  ): DeletePreview {
    const { cluster, objects } = this.cachedCluster(p);
    const elsewhere: PlacedObject[] = this.o.managementClusters.flatMap(mc =>
      ['ResourceGroup', 'ManagedCluster'].flatMap(kind =>
        this.o.cache
          .list(mc, kind)
          .filter(
            o =>
              mc !== p.managementCluster ||
              o.metadata.namespace !== p.namespace,
          )
          .map(o => ({
            place: `${mc}/${o.metadata.namespace}`,
            object: { ...o, kind: o.kind ?? kind } as ObservedObject,
          })),
      ),
    );
    return computeDeletePreview(
      p.managementCluster,
      cluster,
      objects,
      elsewhere,
      opts,
    );
  }

  /**
   * Deletes the Cluster once the typed name matches and nothing blocks it; answers with the preview it checked. A
   * cluster a Flux Kustomization applies is not deleted live: its previewed Git change is proposed instead.
   */
  async deleteCluster(
    p: ClusterPlace,
    confirmName: string,
    o: { planDigest?: string; actor?: string } = {},
  ): Promise<DeletePreview> {
    if (confirmName !== p.name)
      throw new InputError(
        `confirmName: type the cluster's name "${p.name}" to delete it`,
      );
    const git = await this.gitDelete(p);
    if (git) return this.proposeDelete(p, git, o.planDigest, o.actor);
    const preview = this.deletePreview(p);
    if (preview.blockers.length)
      throw new ConflictError(preview.blockers.join('; '));
    const client = await this.o.client(p.managementCluster);
    const t = targetOf('Cluster', p.namespace, p.name)!;
    const live = await client.get(t).catch(e => {
      throw translate(e, p.managementCluster);
    });
    if (!live)
      throw new NotFoundError(
        `No cluster ${p.namespace}/${p.name} on management cluster ${p.managementCluster}`,
      );
    if (live.metadata?.deletionTimestamp)
      throw new ConflictError(`cluster ${p.name} is already being deleted`);
    // The cache said no GitOps controller applies it; the live Cluster says so too (labels may have come since).
    const gitOps = appliedBy(live, { deleting: true });
    if (gitOps?.reconciles)
      throw new ConflictError(
        `Nothing was deleted: ${gitOpsRefusal(
          gitOps,
          { kind: 'Cluster', namespace: p.namespace, name: p.name },
          { operation: 'delete' },
        )}`,
      );
    if (live.spec?.paused === true)
      throw new ConflictError(
        preview.blockers[0] ?? `cluster ${p.name} is paused: resume it first`,
      );
    // Guarded by uid, not resourceVersion: CAPI writes the Cluster's status all the time.
    const uid = live.metadata?.uid;
    let dryRun = true;
    try {
      await client.delete(t, { dryRun: true, uid });
      dryRun = false;
      await client.delete(t, { dryRun: false, uid });
    } catch (e) {
      if (e instanceof KubeRequestError && e.noAnswer && !dryRun)
        throw unavailable(p.managementCluster, e, {
          written: [],
          current: `the delete of ${describe(t)}`,
        });
      throw translate(e, p.managementCluster);
    }
    this.o.logger.info(
      `deleting cluster ${p.managementCluster}/${p.namespace}/${p.name}: Azure deletes ${preview.deletes.length}, keeps ${preview.keeps.length}`,
    );
    return preview;
  }

  /** How to connect: commands, never a credential; and whether the kubeconfig download is available, and why not. */
  connect(p: ClusterPlace): ConnectInfo {
    return connectInfo(this.cluster(p), p.managementCluster, {
      azure: !!this.o.azure,
      allowLocalAccountKubeconfig: this.o.allowLocalAccountKubeconfig ?? false,
    });
  }

  /** The cluster as the watch cache shows it (404 when it is not there). */
  cluster(p: ClusterPlace): Day2Cluster {
    const { cluster, objects } = this.cachedCluster(p);
    return readDay2Cluster(cluster, objects);
  }
}
