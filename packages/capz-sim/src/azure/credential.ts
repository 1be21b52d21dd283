/**
 * The service principal of the simulated world: what the seeded ASO credential Secrets and the legacy controllers'
 * `<cluster>-aso-secret` name, what `capz-sim run` registers with the simulated Entra ID, and what the simulated ARM
 * endpoint lets read the run's subscription. Not a real secret: it only opens the local simulators.
 */
import { b64 } from '../runtime/meta.ts';

export interface SimServicePrincipal {
  tenantId: string;
  clientId: string;
  clientSecret: string;
}

export const SIM_SERVICE_PRINCIPAL: SimServicePrincipal = {
  tenantId: '00000000-0000-0000-0000-0000000000aa',
  clientId: '00000000-0000-0000-0000-0000000000bb',
  clientSecret: 'capz-sim-client-secret',
};

/**
 * The data of an ASO credential Secret for a service principal with a client secret, the first mode ASO tries
 * (docs/capz-aso-facts.md#aso-credential-keys: SUBSCRIPTION/TENANT/CLIENT are required; AZURE_CLIENT_SECRET selects
 * client-secret auth).
 */
export function servicePrincipalSecretData(
  subscription: string,
  sp: SimServicePrincipal = SIM_SERVICE_PRINCIPAL,
): Record<string, string> {
  return {
    AZURE_SUBSCRIPTION_ID: b64(subscription),
    AZURE_TENANT_ID: b64(sp.tenantId),
    AZURE_CLIENT_ID: b64(sp.clientId),
    AZURE_CLIENT_SECRET: b64(sp.clientSecret),
  };
}
