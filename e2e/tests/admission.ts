import { expect } from '@playwright/test';
import { kube } from './kube';

const ADMISSION = '/apis/admissionregistration.k8s.io/v1';

/**
 * A refusal the management cluster's API server makes, as a team's admission rule would (Kyverno, Gatekeeper, or a
 * ValidatingAdmissionPolicy like this one): UPDATEs of one named object that break `expression` are denied with
 * `message`. Nothing in the simulated world refuses a write on its own; this is how a test makes a write fail.
 */
export interface Refusal {
  /** The policy's and its binding's name. */
  name: string;
  namespace: string;
  apiGroup: string;
  /** The plural resource, e.g. `clusters`. */
  resource: string;
  resourceName: string;
  /** CEL over `object` and `oldObject`: the update is allowed when it holds. */
  expression: string;
  message: string;
  /** An update that breaks the rule, sent as a dry run (nothing written) until the API server refuses it. */
  probe: { path: string; patch: unknown };
}

/** Puts the refusal in place and waits until the API server applies it (it loads a new policy a moment later). */
export async function refuse(r: Refusal): Promise<void> {
  await lift(r);
  await kube('POST', `${ADMISSION}/validatingadmissionpolicies`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: r.name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        namespaceSelector: {
          matchLabels: { 'kubernetes.io/metadata.name': r.namespace },
        },
        resourceRules: [
          {
            apiGroups: [r.apiGroup],
            apiVersions: ['*'],
            operations: ['UPDATE'],
            resources: [r.resource],
            resourceNames: [r.resourceName],
          },
        ],
      },
      validations: [
        { expression: r.expression, message: r.message, reason: 'Invalid' },
      ],
    },
  });
  await kube('POST', `${ADMISSION}/validatingadmissionpolicybindings`, {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: r.name },
    spec: { policyName: r.name, validationActions: ['Deny'] },
  });
  await expect
    .poll(
      () =>
        kube('PATCH', `${r.probe.path}?dryRun=All`, r.probe.patch).then(
          () => 'accepted',
          (e: Error) => e.message,
        ),
      { timeout: 30_000 },
    )
    .toContain(r.message);
}

/** Removes the refusal (nothing when it is not there). */
export async function lift(r: Pick<Refusal, 'name'>): Promise<void> {
  for (const kind of [
    'validatingadmissionpolicybindings',
    'validatingadmissionpolicies',
  ])
    await kube('DELETE', `${ADMISSION}/${kind}/${r.name}`).catch((e: Error) => {
      if (!/: 404 /.test(e.message)) throw e;
    });
}
