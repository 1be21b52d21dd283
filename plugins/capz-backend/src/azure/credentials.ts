/**
 * The Azure credential for an ASO credential Secret, in ASO's order (docs/capz-aso-facts.md#aso-credential-keys,
 * docs/azure-facts.md#credential-from-aso-secret): AZURE_CLIENT_SECRET -> client secret; AZURE_CLIENT_CERTIFICATE (PEM)
 * -> certificate; else the ASO pod's own identity (AUTH_MODE podidentity = managed identity, otherwise workload
 * identity), which this backend cannot borrow: those need `capz.azureDiscovery.credential: default`, the backend's own
 * identity, used with the Secret's subscription and tenant.
 */
import {
  ClientCertificateCredential,
  ClientSecretCredential,
  DefaultAzureCredential,
  type TokenCredential,
} from '@azure/identity';
import type { AzureDiscoverySettings } from './config';
import {
  ARM_REQUEST_TIMEOUT_MS,
  AzureCredentialError,
  entraTokenBounds,
} from './errors';

export interface SecretCredential {
  credential: TokenCredential;
  subscriptionId: string;
  tenantId: string;
  /** How it authenticates, for messages: `client secret`, `client certificate`, `backend identity`. */
  mode: string;
}

/** The TLS and authority options every credential gets (nothing process-wide: per credential, verification on). */
export function identityOptions(settings: AzureDiscoverySettings) {
  return {
    ...(settings.authorityHost
      ? { authorityHost: settings.authorityHost }
      : {}),
    ...(settings.disableInstanceDiscovery
      ? { disableInstanceDiscovery: true }
      : {}),
    ...(settings.caData ? { tlsOptions: { ca: settings.caData } } : {}),
  };
}

/** The keys ASO requires in a per-namespace or per-resource credential Secret (docs/azure-facts.md#credential-from-aso-secret). */
export const ASO_REQUIRED_KEYS = [
  'AZURE_SUBSCRIPTION_ID',
  'AZURE_TENANT_ID',
  'AZURE_CLIENT_ID',
] as const;

/** What an ASO credential Secret holds, for messages. */
export const ASO_CREDENTIAL_HOLDS =
  'an ASO credential Secret holds AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID, and AZURE_CLIENT_SECRET ' +
  'or AZURE_CLIENT_CERTIFICATE (with neither, ASO uses workload identity)';

/** Cluster API's kubeconfig Secrets: `<cluster>-kubeconfig`, this type, the kubeconfig under `value`. */
export const CAPI_SECRET_TYPE = 'cluster.x-k8s.io/secret';

/**
 * Why a Secret is not what ASO reads as a credential, from its key names alone (never its values), or undefined when
 * it has every key ASO requires. ASO's own rule (ASO v2 `internal/identity/credential_provider.go`,
 * `newCredentialFromSecret`): AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID must be present; then a client
 * secret, a certificate, pod identity or, with none of those, workload identity. The CAPI kubeconfig Secret (type
 * cluster.x-k8s.io/secret, key `value`), an easy pick in a list of the namespace's Secrets, is named as such.
 */
export function asoCredentialKeyProblem(
  secretRef: string,
  keys: string[],
  type?: string,
): string | undefined {
  const missing = ASO_REQUIRED_KEYS.filter(k => !keys.includes(k));
  if (!missing.length) return undefined;
  const name = secretRef.split('/').pop() ?? secretRef;
  const capi =
    type === CAPI_SECRET_TYPE ||
    (name.endsWith('-kubeconfig') &&
      keys.includes('value') &&
      type === undefined);
  if (capi) {
    const cluster = name.replace(/-kubeconfig$/, '');
    return `Secret ${secretRef} is the Cluster API kubeconfig Secret${
      cluster !== name ? ` of cluster ${cluster}` : ''
    } (type ${CAPI_SECRET_TYPE}, key value), not an ASO credential: ${ASO_CREDENTIAL_HOLDS}`;
  }
  return `ASO credential Secret ${secretRef} has no ${missing.join(
    ', ',
  )}: ${ASO_CREDENTIAL_HOLDS}`;
}

/** `secretRef` names the Secret in messages (`namespace/name`); `data` is the Secret's decoded data. */
export function credentialFromSecret(
  secretRef: string,
  data: Record<string, string>,
  settings: AzureDiscoverySettings,
): SecretCredential {
  const value = (k: string) => (data[k] ?? '').trim() || undefined;
  const subscriptionId = value('AZURE_SUBSCRIPTION_ID');
  const tenantId = value('AZURE_TENANT_ID');
  const clientId = value('AZURE_CLIENT_ID');
  // ASO requires all three in a namespaced or per-resource Secret (docs/capz-aso-facts.md#aso-credential-keys); an
  // empty value is as good as none here (Entra ID would refuse it).
  const problem = asoCredentialKeyProblem(
    secretRef,
    Object.keys(data).filter(k => value(k)),
  );
  if (problem) throw new AzureCredentialError(problem);
  // Token requests get the bounds ARM requests have (docs/azure-facts.md#entra-throttling): one retry, a long
  // Retry-After answered at once, and the same request timeout.
  const bounds = entraTokenBounds(
    settings.requestTimeoutMs ?? ARM_REQUEST_TIMEOUT_MS,
  );
  const options = { ...identityOptions(settings), ...bounds.options };
  if (settings.credential === 'default') {
    return {
      credential: bounds.guard(
        new DefaultAzureCredential({ ...options, tenantId }),
      ),
      subscriptionId: subscriptionId!,
      tenantId: tenantId!,
      mode: 'backend identity',
    };
  }
  const clientSecret = value('AZURE_CLIENT_SECRET');
  if (clientSecret) {
    return {
      credential: bounds.guard(
        new ClientSecretCredential(tenantId!, clientId!, clientSecret, options),
      ),
      subscriptionId: subscriptionId!,
      tenantId: tenantId!,
      mode: 'client secret',
    };
  }
  const certificate = value('AZURE_CLIENT_CERTIFICATE');
  if (certificate) {
    if (!certificate.includes('-----BEGIN')) {
      // PKCS#12 is what ASO also accepts, but @azure/identity for JS reads PEM only
      // (docs/azure-facts.md#identity-credentials, docs/azure-facts.md#credential-from-aso-secret).
      throw new AzureCredentialError(
        `ASO credential Secret ${secretRef} holds a PKCS#12 certificate in AZURE_CLIENT_CERTIFICATE, which this backend cannot read: store it as PEM (certificate and private key), or set capz.azureDiscovery.credential to "default" to use the backend's own identity`,
      );
    }
    return {
      credential: bounds.guard(
        new ClientCertificateCredential(
          tenantId!,
          clientId!,
          {
            certificate,
            ...(value('AZURE_CLIENT_CERTIFICATE_PASSWORD')
              ? {
                  certificatePassword: value(
                    'AZURE_CLIENT_CERTIFICATE_PASSWORD',
                  ),
                }
              : {}),
          },
          options,
        ),
      ),
      subscriptionId: subscriptionId!,
      tenantId: tenantId!,
      mode: 'client certificate',
    };
  }
  const authMode = (value('AUTH_MODE') ?? 'workloadidentity').toLowerCase();
  const podIdentity =
    authMode === 'podidentity' ||
    value('USE_POD_IDENTITY_AUTH')?.toLowerCase() === 'true';
  const kind = podIdentity
    ? 'a managed identity (AUTH_MODE podidentity)'
    : 'workload identity (no AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE)';
  const howAso = podIdentity
    ? "the identity assigned to ASO's pod"
    : "ASO's projected service-account token";
  throw new AzureCredentialError(
    `ASO credential Secret ${secretRef} uses ${kind}: ASO authenticates with ${howAso}, which this backend cannot use. ` +
      'Either put a service principal with AZURE_CLIENT_SECRET in the Secret, or set capz.azureDiscovery.credential to "default" ' +
      'so the backend uses its own identity (DefaultAzureCredential: its workload identity, managed identity or environment) ' +
      "with the Secret's subscription and tenant; that identity needs Reader on the subscription.",
  );
}
