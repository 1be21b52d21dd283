/**
 * What the upgrade's preflight and steps both read: the two CAPZ API versions and the field-manager entries written
 * at the old one.
 */
import { kinds } from '../../kinds';
import type { ObservedObject } from '../../objects/types';
import { CAPZ, isRecord } from '../helpers';

export const V1ALPHA1 = `${CAPZ}/v1alpha1`;
export const V1BETA1 = `${CAPZ}/v1beta1`;
export const CAPI_V1BETA1 = `${kinds.Cluster.group}/v1beta1`;
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
export const CHANGE = `apiVersion: ${V1ALPHA1} -> ${V1BETA1}`;
export const ASO_MANAGED_KINDS = [
  'AzureASOManagedCluster',
  'AzureASOManagedControlPlane',
  'AzureASOManagedMachinePool',
];

export const isAlphaRef = (r: unknown) =>
  isRecord(r) && r.apiVersion === V1ALPHA1;
export type Entry = Record<string, unknown>;
export const entriesOf = (o: ObservedObject): Entry[] =>
  (o.metadata?.managedFields ?? []) as unknown as Entry[];
export const writtenAtAlpha = (e: Entry) =>
  e.subresource !== 'status' && e.apiVersion === V1ALPHA1;
