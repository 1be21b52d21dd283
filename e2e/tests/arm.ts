import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, join } from 'node:path';

/**
 * Reads the simulated Azure through its ARM endpoint, as `az rest` would: the simulator writes its address, CA and a
 * static token to arm.json beside the discovery config that scripts/test.sh exports (CAPZ_AZURE_DISCOVERY_CONFIG).
 */
function connection() {
  const discovery = process.env.CAPZ_AZURE_DISCOVERY_CONFIG;
  if (!discovery)
    throw new Error(
      'CAPZ_AZURE_DISCOVERY_CONFIG is not set: scripts/test.sh exports it for the e2e stage',
    );
  const a = JSON.parse(
    readFileSync(join(dirname(discovery), 'arm.json'), 'utf8'),
  );
  return {
    url: new URL(a.url as string),
    ca: a.caPem as string,
    token: a.token as string,
    subscription: (a.subscriptions as string[])[0],
  };
}

/** GET on ARM: the status and the JSON body (ARM's error for a 4xx). `path` starts after the subscription. */
export function armGet(
  path: string,
  apiVersion: string,
): Promise<{ status: number; body: any }> {
  const c = connection();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: c.url.hostname,
        port: c.url.port,
        path: `/subscriptions/${c.subscription}${path}?api-version=${apiVersion}`,
        method: 'GET',
        ca: c.ca,
        headers: { authorization: `Bearer ${c.token}` },
      },
      res => {
        let text = '';
        res.on('data', chunk => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}
