/**
 * "Plan an upgrade" of the clusters the page shows: a target (the next minor version, or one version) and stages (one,
 * or one per namespace or per management cluster), then POST /fleet-runs/preview's answer: each cluster's plan or why
 * it is left out. Nothing changes until the user starts the run the preview showed (POST /fleet-runs), with its
 * gates: a soak after each stage and an approval before the next; the run's page follows it.
 */
import { useApi, useRouteRef } from '@backstage/frontend-plugin-api';
import {
  Alert,
  Button,
  Checkbox,
  Dialog,
  DialogBody,
  DialogFooter,
  DialogHeader,
  Flex,
  Radio,
  RadioGroup,
  Text,
  TextField,
} from '@backstage/ui';
import {
  FLEET_MIGRATION_NAMESPACE,
  fleetStepWords,
  isFleetJobStep,
  parseKubernetesVersion,
  type ClusterPlace,
  type FleetClusterPlan,
  type FleetRunOptions,
  type FleetRunPreview,
  type FleetRunSpec,
} from '@capz-backstage/plugin-capz-common';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { capzApiRef } from '../../api/CapzApi';
import { fleetRunRouteRef } from '../../routes';
import { ErrorAlert } from '../shared/errors';

type StageBy = 'one' | 'namespace' | 'managementCluster';

/**
 * The run's stages from the clusters, in the page's order: one stage, or one per namespace / management cluster; with
 * `groupByNamespace`, each cluster in its namespace's group (a stage's groups side by side, a group's clusters one
 * after the other).
 */
export function fleetStages(
  clusters: readonly ClusterPlace[],
  by: StageBy,
  groupByNamespace = false,
): FleetRunSpec['stages'] {
  const place = (c: ClusterPlace) => ({
    managementCluster: c.managementCluster,
    namespace: c.namespace,
    name: c.name,
    ...(groupByNamespace ? { group: c.namespace } : {}),
  });
  if (by === 'one') return [{ name: 'all', clusters: clusters.map(place) }];
  const stages = new Map<string, ClusterPlace[]>();
  for (const c of clusters) {
    const key = by === 'namespace' ? c.namespace : c.managementCluster;
    stages.set(key, [...(stages.get(key) ?? []), place(c)]);
  }
  return [...stages].map(([name, cs]) => ({ name, clusters: cs }));
}

/** Why a typed target version cannot be sent (none while empty). */
const versionProblemOf = (v: string) =>
  v && !parseKubernetesVersion(v)
    ? `"${v}" is not a version like v1.34.2`
    : undefined;

/** Why a typed soak cannot be sent (none while empty: no soak). */
const soakProblemOf = (v: string) =>
  v.trim() && !/^\d{1,5}$/.test(v.trim())
    ? 'minutes, a whole number (0 for none)'
    : undefined;

/** Why a typed count cannot be sent: a whole number from `min` to `max`. */
const countProblemOf = (v: string, min: number, max: number) => {
  const t = v.trim();
  return !/^\d{1,5}$/.test(t) || Number(t) < min || Number(t) > max
    ? `a whole number from ${min} to ${max}`
    : undefined;
};

/** The run's gates: the soak after every stage, an approval before each stage after the first. */
export function fleetGates(
  stages: FleetRunSpec['stages'],
  soakMinutes: number,
  approval: boolean,
): FleetRunOptions['gates'] {
  return Object.fromEntries(
    stages.map((st, i) => [
      st.name,
      {
        soakSeconds: soakMinutes * 60,
        approval: approval && i < stages.length - 1,
      },
    ]),
  );
}

const OUTCOME: Record<FleetClusterPlan['outcome'], string> = {
  upgrade: 'upgrades',
  current: 'already there',
  refused: 'left out',
};

/** What one cluster's part does, in a line: its steps, or why it is left out. */
function planWords(c: FleetClusterPlan, migrate: boolean): string {
  if (c.outcome === 'refused') return c.problems.join(' ');
  if (c.outcome === 'current')
    return migrate
      ? 'already on the ASO API'
      : `runs ${c.to} already, pools included`;
  return c.steps
    .map(s => {
      if (isFleetJobStep(s))
        return `${s.title} (${s.plan.length} job steps)${
          s.warnings.length ? `; ${s.warnings.join(' ')}` : ''
        }`;
      const words =
        s.target === 'controlPlane'
          ? `control plane ${c.from} → ${s.version}`
          : fleetStepWords(s, '→');
      // Flux applies what it changes: a pull request someone merges, not a live write.
      return s.throughGit
        ? `${words} through a pull request (${s.throughGit})`
        : words;
    })
    .join(', then ');
}

/** Why a typed target namespace pattern cannot be sent (it is checked per cluster by each migration's preflight). */
const patternProblemOf = (v: string) => {
  if (!v.trim())
    return 'a namespace, with {name} (and {namespace}) for each cluster';
  if (!v.includes('{name}'))
    return 'include {name}: each migration creates its own namespace';
  return undefined;
};

export function FleetPlanDialog(props: {
  clusters: readonly ClusterPlace[];
  onClose: () => void;
}) {
  const api = useApi(capzApiRef);
  const [kind, setKind] = useState<'next-minor' | 'version' | 'migrate'>(
    'next-minor',
  );
  const [version, setVersion] = useState('');
  const [into, setInto] = useState(FLEET_MIGRATION_NAMESPACE);
  const migrate = kind === 'migrate';
  const [stageBy, setStageBy] = useState<StageBy>('one');
  const [grouped, setGrouped] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<Error>();
  const [preview, setPreview] = useState<FleetRunPreview>();
  // The spec the preview answered: the run starts exactly that.
  const [previewed, setPreviewed] = useState<FleetRunSpec>();
  const [soak, setSoak] = useState('10');
  const [atOnce, setAtOnce] = useState('1');
  const [failures, setFailures] = useState('0');
  const [approval, setApproval] = useState(true);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<Error>();
  const runLink = useRouteRef(fleetRunRouteRef);
  const navigate = useNavigate();

  const versionProblem = versionProblemOf(version);
  const ready =
    kind === 'next-minor' ||
    (kind === 'migrate' && !patternProblemOf(into)) ||
    (kind === 'version' && !!version && !versionProblem);

  const targetOf = (): FleetRunSpec['target'] => {
    if (kind === 'version') return { kind: 'version', version: version.trim() };
    if (kind === 'migrate')
      return { kind: 'migrate', targetNamespace: into.trim() };
    return { kind: 'next-minor' };
  };

  const run = async () => {
    setPending(true);
    setError(undefined);
    setPreview(undefined);
    setStartError(undefined);
    const spec: FleetRunSpec = {
      target: targetOf(),
      stages: fleetStages(
        props.clusters,
        stageBy,
        grouped && stageBy !== 'namespace',
      ),
    };
    try {
      setPreview(await api.previewFleetRun(spec));
      setPreviewed(spec);
    } catch (e) {
      setError(e as Error);
    } finally {
      setPending(false);
    }
  };

  const settingsProblem =
    soakProblemOf(soak) ??
    countProblemOf(atOnce, 1, 50) ??
    countProblemOf(failures, 0, 10000);
  const start = async () => {
    if (!previewed) return;
    setStarting(true);
    setStartError(undefined);
    try {
      const created = await api.startFleetRun(
        { ...previewed, concurrency: Number(atOnce.trim()) },
        {
          gates: fleetGates(
            previewed.stages,
            Number(soak.trim() || 0),
            approval,
          ),
          maxFailures: Number(failures.trim()),
        },
      );
      if (runLink) navigate(runLink({ id: created.id }));
    } catch (e) {
      setStartError(e as Error);
      setStarting(false);
    }
  };

  const n = props.clusters.length;
  return (
    <Dialog
      isOpen
      isDismissable
      onOpenChange={open => !open && props.onClose()}
      width={800}
    >
      <DialogHeader>{`Plan ${
        migrate ? 'a migration' : 'an upgrade'
      } of ${n} cluster${n === 1 ? '' : 's'}`}</DialogHeader>
      <DialogBody>
        <Flex direction="column" gap="3">
          <Text variant="body-small" color="secondary">
            {migrate
              ? "First a preview: each legacy cluster's migration is checked as its wizard checks it (the migration job's preflight, read live), or left out with the reason. Nothing changes until you start the run."
              : "First a preview: each cluster's upgrade is planned as its own page plans it (the control plane, then its pools), or left out with the reason. Nothing changes until you start the run."}
          </Text>
          <RadioGroup
            label="Target"
            value={kind}
            onChange={v => {
              setKind(v as typeof kind);
              setPreview(undefined);
              setPreviewed(undefined);
            }}
          >
            <Radio value="next-minor">
              The next minor version (its newest patch in each cluster's region)
            </Radio>
            <Radio value="version">One version for all</Radio>
            <Radio value="migrate">
              Migrate legacy clusters to the ASO API (a migration job each)
            </Radio>
          </RadioGroup>
          {kind === 'migrate' && (
            <TextField
              label="Target namespace"
              description="Created by each migration, so it must not exist yet: {namespace} and {name} stand for the cluster's."
              value={into}
              onChange={v => {
                setInto(v);
                setPreview(undefined);
                setPreviewed(undefined);
              }}
              validationBehavior="aria"
              validate={v => patternProblemOf(v) ?? null}
            />
          )}
          {kind === 'version' && (
            <TextField
              label="Version"
              placeholder="v1.34.2"
              value={version}
              onChange={v => {
                setVersion(v);
                setPreview(undefined);
                setPreviewed(undefined);
              }}
              // Said as it is typed (react-aria's FieldError shows what `validate` answers).
              validationBehavior="aria"
              validate={v => versionProblemOf(v) ?? null}
            />
          )}
          <RadioGroup
            label="Stages, in this order"
            value={stageBy}
            onChange={v => {
              setStageBy(v as StageBy);
              setPreview(undefined);
              setPreviewed(undefined);
            }}
          >
            <Radio value="one">One stage</Radio>
            <Radio value="namespace">One per namespace</Radio>
            <Radio value="managementCluster">One per management cluster</Radio>
          </RadioGroup>
          {stageBy !== 'namespace' && (
            <Checkbox
              isSelected={grouped}
              onChange={v => {
                setGrouped(v);
                setPreview(undefined);
                setPreviewed(undefined);
              }}
            >
              In a stage, one cluster at a time per namespace (a group per
              namespace, the groups side by side)
            </Checkbox>
          )}
          {error && (
            <ErrorAlert
              title={`Could not plan the ${migrate ? 'migration' : 'upgrade'}`}
              error={error}
            />
          )}
          {preview && <FleetPreviewView preview={preview} />}
          {preview && preview.counts.upgrade > 0 && (
            <section aria-label="Run it">
              <Flex direction="column" gap="2">
                <Text as="h3" variant="body-medium" weight="bold">
                  Run it
                </Text>
                <Text variant="body-small" color="secondary">
                  {migrate
                    ? 'The stages run in order; in a stage each cluster is migrated by its own migration job. When the failures pass what is allowed the run stops (a cluster being migrated finishes its part). Clusters left out above are skipped.'
                    : "The stages run in order; in a stage each cluster's control plane, then its pools. When the failures pass what is allowed the run stops (a cluster being upgraded finishes its part). Clusters left out above are skipped."}
                </Text>
                <TextField
                  label="Clusters of a stage at a time"
                  value={atOnce}
                  onChange={setAtOnce}
                  validationBehavior="aria"
                  validate={v => countProblemOf(v, 1, 50) ?? null}
                />
                <TextField
                  label="Failures allowed before the run stops"
                  description="0: the first failure stops it."
                  value={failures}
                  onChange={setFailures}
                  validationBehavior="aria"
                  validate={v => countProblemOf(v, 0, 10000) ?? null}
                />
                <TextField
                  label="Soak after each stage (minutes)"
                  description="Every cluster the stage upgraded or migrated must stay healthy this long before the next stage starts."
                  value={soak}
                  onChange={setSoak}
                  validationBehavior="aria"
                  validate={v => soakProblemOf(v) ?? null}
                />
                {preview.stages.length > 1 && (
                  <Checkbox isSelected={approval} onChange={setApproval}>
                    Wait for an approval before each next stage
                  </Checkbox>
                )}
                {startError && (
                  <ErrorAlert
                    title="Could not start the run"
                    error={startError}
                  />
                )}
              </Flex>
            </section>
          )}
        </Flex>
      </DialogBody>
      <DialogFooter>
        <Button variant="secondary" onPress={props.onClose}>
          Done
        </Button>
        <Button
          variant={preview?.counts.upgrade ? 'secondary' : 'primary'}
          isDisabled={!ready || n === 0}
          isPending={pending}
          onPress={run}
        >
          Preview
        </Button>
        {preview && preview.counts.upgrade > 0 && (
          <Button
            variant="primary"
            isDisabled={!!settingsProblem}
            isPending={starting}
            onPress={start}
          >
            {`Start the run (${preview.counts.upgrade} cluster${
              preview.counts.upgrade === 1 ? '' : 's'
            })`}
          </Button>
        )}
      </DialogFooter>
    </Dialog>
  );
}

function FleetPreviewView({ preview }: { preview: FleetRunPreview }) {
  const { upgrade, current, refused } = preview.counts;
  const migrate = preview.target.kind === 'migrate';
  return (
    <Flex direction="column" gap="3">
      <Alert
        role="status"
        status={refused ? 'warning' : 'info'}
        icon
        title={`${upgrade} would ${
          migrate ? 'migrate' : 'upgrade'
        }, ${current} already there, ${refused} left out`}
      />
      {preview.stages.map((stage, i) => (
        <section key={stage.name} aria-label={`Stage ${i + 1}: ${stage.name}`}>
          <Text as="h3" variant="body-medium" weight="bold">
            {`Stage ${i + 1}: ${stage.name}`}
          </Text>
          <ul style={{ margin: 0, paddingLeft: 20 }}>
            {stage.clusters.map(c => (
              <li key={`${c.managementCluster}/${c.namespace}/${c.name}`}>
                <Text variant="body-small">
                  <strong>{`${c.namespace}/${c.name}`}</strong>
                  {c.group ? ` [group ${c.group}]` : ''}
                  {` (${
                    migrate && c.outcome === 'upgrade'
                      ? 'migrates'
                      : OUTCOME[c.outcome]
                  }): ${planWords(c, migrate)}`}
                </Text>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </Flex>
  );
}
