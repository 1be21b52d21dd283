import type { LoggerService } from '@backstage/backend-plugin-api';
import type { EventsService } from '@backstage/plugin-events-node';
import {
  CAPZ_SIGNAL_CHANNEL,
  type CapzChangeSignal,
} from '@capz-backstage/plugin-capz-common';
import type { ClusterChangeStream } from './CapzClusterEntityProvider';

/**
 * The events topic Backstage's SignalsService publishes on (`@backstage/plugin-signals-node`'s DefaultSignalsService:
 * `events.publish({ topic: 'signals', eventPayload: signal })`); the signals backend forwards it to browsers.
 */
export const SIGNALS_TOPIC = 'signals';

/**
 * The capz backend's change stream as the catalog hears it: the capz backend announces changed Clusters on the signals
 * channel `capz:changes` (its live updates for pages), and signals travel on the events service, so a backend module
 * subscribes to the same events the browsers get, without a connection of its own. In-process with one backend; with
 * several replicas and the events backend, one subscriber per ID gets each event, which is enough for the shared
 * catalog database.
 */
export class CapzSignalChangeStream implements ClusterChangeStream {
  constructor(
    private readonly deps: { events: EventsService; logger: LoggerService },
  ) {}

  async subscribe(onChange: (clusterUids: string[]) => void) {
    let active = true;
    await this.deps.events.subscribe({
      id: 'capz-cluster-entities',
      topics: [SIGNALS_TOPIC],
      onEvent: async ({ eventPayload }) => {
        const signal = eventPayload as {
          channel?: string;
          message?: Partial<CapzChangeSignal>;
        };
        if (!active || signal?.channel !== CAPZ_SIGNAL_CHANNEL) return;
        const uids = signal.message?.clusterUids;
        if (!Array.isArray(uids)) {
          this.deps.logger.warn(
            `capz: ignoring a ${CAPZ_SIGNAL_CHANNEL} signal without clusterUids`,
          );
          return;
        }
        onChange(uids.filter((u): u is string => typeof u === 'string'));
      },
    });
    // The events service cannot unsubscribe: stop forwarding instead.
    return () => {
      active = false;
    };
  }
}
