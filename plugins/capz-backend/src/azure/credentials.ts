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
import { AzureCredentialError } from './errors';

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
  // ASO requires all three in a namespaced or per-resource Secret (docs/capz-aso-facts.md#aso-credential-keys).
  const missing = (
    [
      ['AZURE_SUBSCRIPTION_ID', subscriptionId],
      ['AZURE_TENANT_ID', tenantId],
      ['AZURE_CLIENT_ID', clientId],
    ] as const
  )
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length) {
    throw new AzureCredentialError(
      `ASO credential Secret ${secretRef} has no ${missing.join(
        ', ',
      )}: ASO needs AZURE_SUBSCRIPTION_ID, AZURE_TENANT_ID and AZURE_CLIENT_ID`,
    );
  }
  const options = identityOptions(settings);
  if (settings.credential === 'default') {
    return {
      credential: new DefaultAzureCredential({ ...options, tenantId }),
      subscriptionId: subscriptionId!,
      tenantId: tenantId!,
      mode: 'backend identity',
    };
  }
  const clientSecret = value('AZURE_CLIENT_SECRET');
  if (clientSecret) {
    return {
      credential: new ClientSecretCredential(
        tenantId!,
        clientId!,
        clientSecret,
        options,
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
      credential: new ClientCertificateCredential(
        tenantId!,
        clientId!,
        {
          certificate,
          ...(value('AZURE_CLIENT_CERTIFICATE_PASSWORD')
            ? {
                certificatePassword: value('AZURE_CLIENT_CERTIFICATE_PASSWORD'),
              }
            : {}),
        },
        options,
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
