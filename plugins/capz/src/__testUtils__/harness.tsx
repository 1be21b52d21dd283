import { renderInTestApp } from '@backstage/frontend-test-utils';
import { signalApiRef, SignalApi } from '@backstage/plugin-signals-react';
import {
  CapzChangeSignal,
  ManagementClustersResponse,
} from '@capz-backstage/plugin-capz-common';
import { http, HttpResponse } from 'msw';
import { act } from '@testing-library/react';
import { setupServer } from 'msw/node';
import { capzApiRef } from '../api/CapzApi';
import { CapzClient } from '../api/CapzClient';
import { rootRouteRef } from '../routes';
import { BASE } from './fixtures';

/**
 * An msw server for the capz HTTP API; unhandled requests fail the test. It answers GET /management-clusters with
 * `local` connected unless a test says otherwise (the cluster page reads its management cluster's state).
 */
export function setupCapzServer() {
  const server = setupServer(
    http.get(`${BASE}/management-clusters`, () =>
      HttpResponse.json({
        items: [
          {
            name: 'local',
            authMethod: 'kubeconfig',
            status: { state: 'connected', version: 'v1.33.2' },
          },
        ],
      } satisfies ManagementClustersResponse),
    ),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

export const client = new CapzClient({
  discoveryApi: { getBaseUrl: async () => BASE },
  fetchApi: { fetch: (input, init) => fetch(input, init) },
});

/** A signals API the test drives: `publish` delivers a message to every subscriber of the channel. */
export class FakeSignals implements SignalApi {
  private readonly subs = new Map<string, Set<(m: any) => void>>();
  subscribe(channel: string, onMessage: (message: any) => void) {
    const set = this.subs.get(channel) ?? new Set();
    set.add(onMessage);
    this.subs.set(channel, set);
    return { unsubscribe: () => set.delete(onMessage) };
  }
  publish(channel: string, message: CapzChangeSignal) {
    act(() => this.subs.get(channel)?.forEach(fn => fn(message)));
  }
  subscriberCount(channel: string) {
    return this.subs.get(channel)?.size ?? 0;
  }
}

/** Renders an element of the plugin in a Backstage test app, with the real client against msw. */
export function renderCapz(
  element: JSX.Element,
  opts: {
    signals?: FakeSignals;
    path?: string;
    mountPath?: string;
    /** More API overrides, e.g. `mockApis.permission(...)`. */
    apis?: any[];
    /** More routes mounted (an external route ref is bound to the path). */
    routes?: Record<string, any>;
    /** App config, e.g. `{ capz: { docsBaseUrl } }`. */
    config?: Record<string, any>;
  } = {},
) {
  const apis: any[] = [[capzApiRef, client], ...(opts.apis ?? [])];
  if (opts.signals) apis.push([signalApiRef, opts.signals]);
  return renderInTestApp(element, {
    apis,
    mountedRoutes: { '/capz': rootRouteRef, ...opts.routes },
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.path ? { initialRouteEntries: [opts.path] } : {}),
    ...(opts.mountPath ? { mountPath: opts.mountPath } : {}),
  });
}
