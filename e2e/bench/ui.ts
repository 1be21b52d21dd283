/**
 * `yarn bench:ui`: render times of the capz pages in Chromium on the production build. Not a test: it
 * prints numbers and asserts only that each page rendered.
 *
 * The backend serves the built app (`yarn workspace app build`, as in the e2e run but without the CLI's watcher)
 * with the guest sign-in, on its own port, with no management cluster; the capz API is answered by this script (page.route) with synthetic data of
 * the sizes the issue names, so "data" is the browser's side of a request (fetch, JSON parse), not the backend's read
 * path, which `yarn bench` measures. For each page, `--runs` (5) times in a fresh signed-in page, after the app
 * shell is loaded:
 *   - clusters page, 1,000 clusters (`--clusters`): in-app navigation to /capz until the table's first screen of rows
 *     (10; the table is virtualized) and the count above it are painted. The page asks GET /clusters for one page of
 *     its view (50) with the facets; this script answers that page and the fleet's facets, as the backend does;
 *   - cluster page, 50-pool tree (152 rows): in-app navigation until every row is painted;
 *   - 1,000-transition timeline (60 lanes): click on the Timeline tab until every lane is painted; then pointer over
 *     a lane until its tooltip is painted.
 * Phases, from the browser's clock: code = navigation (or click) until the page asks for its data (chunk load, parse
 * and the first render); data = the request until its JSON is parsed; render = from there until the next frame after
 * the DOM holds everything. Medians of the runs, next to the goals. The clusters page's runs also sum the long tasks
 * (Long Tasks API, over 50 ms) that start in the second after it is drawn: the work that answers landing later (the
 * permission checks) cause, which a click in that second waits for.
 *
 * `--trace` (off by default) also records, for each navigation's code phase (until the page asks for its data), the
 * requests the page made (Resource Timing: URL, bytes, start and end) and a CPU profile of the page (Chromium's
 * sampling profiler, stopped when the data request reaches this script, before it is answered), summed by script
 * (self time) and by function; printed per run and written to .local/bench-ui/trace/ (JSON and .cpuprofile files,
 * which Chromium's DevTools opens). The profiler slows the code it samples: compare traced runs with traced runs.
 *
 * `--trace-render` profiles instead from the data request (before it is answered) until the page is rendered: the
 * data and render phases; its list of requests goes on to the render's end (a request the render makes shows there).
 * Starting the profiler delays the answer, so its data phases are longer than a plain run's.
 *
 *   yarn bench:ui [--runs 5] [--clusters 1000] [--no-build] [--port 7027] [--trace | --trace-render]
 *                 [--config <app-config file, read after the bench's own>]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  chromium,
  type CDPSession,
  type Page,
  type Route,
} from '@playwright/test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name: string, def: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : def;
};
const RUNS = Number(opt('runs', '5'));
/** The fleet's size on the clusters page: the page asks the server for one page of 50 whatever it is. */
const CLUSTERS = Number(opt('clusters', '1000'));
const PORT = Number(opt('port', '7027'));
const BUILD = !args.includes('--no-build');
/** More app-config, after the bench's own (e.g. an extension turned off, to compare with and without it). */
const EXTRA_CONFIG = opt('config', '');
const TRACE_RENDER = args.includes('--trace-render');
const TRACE = TRACE_RENDER || args.includes('--trace');
const BASE = `http://127.0.0.1:${PORT}`;

const GOALS = { clusters: 300, tree: 300, timeline: 200, hover: 50 };

// ---- synthetic API answers (the shapes of capz-common's responses) ----

const T0 = Date.parse('2026-11-21T00:00:00Z');
const HEALTH = [
  'healthy',
  'healthy',
  'healthy',
  'progressing',
  'degraded',
  'failed',
];

function clusters(n: number) {
  return {
    items: Array.from({ length: n }, (_, i) => ({
      managementCluster: i % 2 ? 'mc-b' : 'mc-a',
      namespace: `team-${i % 20}`,
      name: `cluster-${String(i).padStart(4, '0')}`,
      uid: `uid-${i}`,
      api: i % 10 === 0 ? 'azure-managed' : 'aso-v1beta1',
      health: HEALTH[i % HEALTH.length],
      reason: i % 6 === 5 ? 'ReconciliationBlocked' : undefined,
      message: i % 6 === 5 ? 'quota exceeded in westeurope' : undefined,
      kubernetesVersion: '1.33.2',
      location: 'westeurope',
      pools: { total: 3, ready: 3, replicas: 9 },
      migrationCandidate: i % 10 === 0,
    })),
  };
}

const managementClusters = {
  items: ['mc-a', 'mc-b'].map(name => ({
    name,
    title: name,
    authMethod: 'kubeconfig',
    status: { state: 'connected', version: 'v1.33.2' },
    watch: { synced: true },
  })),
};

const node = (o: Record<string, unknown>) => ({
  health: 'healthy',
  conditions: [],
  facts: {},
  children: [] as unknown[],
  ...o,
});

/** The 50-pool tree of render-time.spec.ts: Cluster, Workers and 3 rows per pool (152 rows). */
function tree() {
  const workers = node({ id: 'workers', kind: 'Workers', name: 'Workers' });
  for (let i = 0; i < 50; i++) {
    const ap = node({
      id: `ap${i}`,
      uid: `ap${i}`,
      kind: 'ManagedClustersAgentPool',
      name: `pool${i}`,
    });
    const am = node({
      id: `am${i}`,
      uid: `am${i}`,
      kind: 'AzureASOManagedMachinePool',
      name: `pool${i}`,
      children: [ap],
    });
    workers.children.push(
      node({
        id: `mp${i}`,
        uid: `mp${i}`,
        kind: 'MachinePool',
        name: `pool${i}`,
        children: [am],
      }),
    );
  }
  return node({
    id: 'c',
    uid: 'c',
    kind: 'Cluster',
    name: 'big',
    children: [workers],
  });
}

/** 1,000 transitions of 20 objects over 3 condition types (60 lanes), as in render-time.spec.ts. */
function timeline(from: number, to: number) {
  const types = ['Ready', 'Available', 'Paused'];
  const at = (i: number) =>
    new Date(from + ((i + 1) / 1001) * (to - from)).toISOString();
  return {
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    transitions: Array.from({ length: 1000 }, (_, i) => ({
      objectUid: `o${i % 20}`,
      kind: 'MachinePool',
      name: `pool${i % 20}`,
      conditionType: types[Math.floor(i / 20) % 3],
      status: i % 3 ? 'True' : 'False',
      reason: i % 3 ? 'Succeeded' : 'ReconciliationBlocked',
      transitionTime: at(i),
      firstSeen: at(i),
    })),
    events: [],
    truncated: false,
  };
}

const summary = {
  managementCluster: 'perf',
  namespace: 'team-perf',
  name: 'big',
  uid: 'c',
  api: 'aso-v1beta1',
  health: 'healthy',
};

/** With --trace: called with each capz API path before it is answered (the tracer stops its profile there). */
type BeforeAnswer = (path: string) => Promise<void>;

async function mockCapz(page: Page, beforeAnswer?: BeforeAnswer) {
  // The page's view as the backend answers it: a page of the fleet (in the fleet's order: the cost is the same) with
  // its total, and the facets of the whole fleet (counted once here, as the server counts them per request).
  const fleet = clusters(CLUSTERS).items;
  const health: Record<string, number> = {};
  for (const c of fleet) health[c.health] = (health[c.health] ?? 0) + 1;
  const distinct = (xs: string[]) => [...new Set(xs)].sort();
  const facets = {
    total: fleet.length,
    health,
    attention: { now: 0, soon: 0 },
    managementClusters: distinct(fleet.map(c => c.managementCluster)),
    namespaces: distinct(fleet.map(c => c.namespace)),
    locations: distinct(fleet.map(c => c.location)),
    managedFrom: [],
  };
  const view = (u: URL) => {
    const offset = Number(u.searchParams.get('offset') ?? 0);
    const limit = Number(u.searchParams.get('limit') ?? fleet.length);
    if (!u.searchParams.has('limit')) return JSON.stringify({ items: fleet });
    return JSON.stringify({
      items: fleet.slice(offset, offset + limit),
      total: fleet.length,
      offset,
      ...(u.searchParams.get('facets') === 'true' ? { facets } : {}),
    });
  };
  const treeBody = JSON.stringify({ summary, tree: tree() });
  const json = (r: Route, body: string) =>
    r.fulfill({ status: 200, contentType: 'application/json', body });
  await page.route('**/api/capz/**', async r => {
    const u = new URL(r.request().url());
    const p = u.pathname.replace(/^\/api\/capz/, '');
    await beforeAnswer?.(u.pathname);
    if (p === '/clusters') return json(r, view(u));
    if (p === '/management-clusters')
      return json(r, JSON.stringify(managementClusters));
    if (p === '/clusters/perf/team-perf/big/tree') return json(r, treeBody);
    if (p === '/clusters/perf/team-perf/big/timeline') {
      const to = Date.parse(u.searchParams.get('to') ?? '') || T0;
      const from =
        Date.parse(u.searchParams.get('from') ?? '') || to - 6 * 3600_000;
      return json(r, JSON.stringify(timeline(from, to)));
    }
    if (p.startsWith('/jobs')) return json(r, JSON.stringify({ items: [] }));
    // Anything else the pages may ask (permissions of day-2 actions etc.): an empty answer, never the backend.
    return r.fulfill({
      status: 404,
      contentType: 'application/json',
      body: '{"error":{"name":"NotFoundError","message":"bench"}}',
    });
  });
}

// ---- in-page instrumentation ----

/**
 * Installed before the app's scripts: records when each capz request starts and when its JSON is parsed, and offers
 * `__bench.until(predicate)`, which resolves with the time of the first animation frame after the predicate holds
 * (checked on every DOM mutation).
 */
function instrument(fleetSize: number) {
  const w = window as any;
  // --trace reads the requests of each navigation from Resource Timing; the default buffer (250) fills at sign-in.
  performance.setResourceTimingBufferSize(10_000);
  const requests: Array<{ url: string; start: number; end?: number }> = [];
  const longTasks: Array<{ start: number; duration: number }> = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries())
      longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  const fetch0 = window.fetch.bind(window);
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    const entry: { url: string; start: number; end?: number } = {
      url,
      start: performance.now(),
    };
    if (url.includes('/api/capz/')) requests.push(entry);
    return fetch0(input, init);
  };
  const json0 = Response.prototype.json;
  Response.prototype.json = async function json(this: Response) {
    const out = await json0.call(this);
    const entry = requests.find(
      r => r.end === undefined && this.url.startsWith(r.url.split('?')[0]),
    );
    if (entry) entry.end = performance.now();
    return out;
  };
  const q = (sel: string) => document.querySelectorAll(sel).length;
  w.__bench = {
    requests,
    longTasks,
    // What "rendered" means for each page.
    checks: {
      // Every row of the 50-pool tree.
      tree: () => q('[role="treegrid"] [role="row"]') === 152,
      // The table's first rows (a screen's worth: the header and 10 rows) and the count above it. Its rows are `tr`
      // (a native table) or `[role="row"]` (BUI's react-aria table, before 2026-12-07: a baseline checkout's build).
      clusters: () =>
        q('section[aria-label="Clusters"] :is(tr, [role="row"])') >= 11 &&
        document.body.innerText.includes(`${fleetSize} clusters`),
      // Every lane and every transition's mark.
      lanes: () =>
        q(
          '[role="group"][aria-label="Condition timeline"] [role="listbox"]',
        ) === 60 &&
        // The transitions' marks; not the hidden ones that widen a short dip or end a deleted lane.
        q(
          '[role="group"][aria-label="Condition timeline"] rect:not([aria-hidden])',
        ) === 1000,
      tooltip: () => q('[role="tooltip"]') > 0,
    } as Record<string, () => boolean>,
    until(predicate: () => boolean): Promise<number> {
      return new Promise(resolve => {
        const done = () =>
          requestAnimationFrame(() => resolve(performance.now()));
        if (predicate()) {
          done();
          return;
        }
        const obs = new MutationObserver(() => {
          if (predicate()) {
            obs.disconnect();
            done();
          }
        });
        obs.observe(document.body, {
          childList: true,
          subtree: true,
          attributes: true,
        });
      });
    },
  };
}

interface Phases {
  code: number;
  data: number;
  render: number;
  total: number;
  /**
   * The clusters page: the main thread's long tasks (over 50 ms) that start in the second after the page is drawn,
   * summed: what the page still does once shown (a late answer drawing it again) and a click would wait for.
   */
  after?: number;
  /** The clusters page: its table's rows (the header's too) in the DOM when it was drawn. */
  rows?: number;
}

/**
 * Navigates in-app (history API, as a link does) and splits the time until `predicate` holds; with `settle`, also
 * sums the long tasks of the second after (Phases.after).
 */
async function navigate(
  page: Page,
  path: string,
  dataPath: string,
  predicate: 'tree' | 'clusters',
  settle = false,
): Promise<Phases> {
  return page.evaluate(
    async ({ path: to, dataPath: d, predicate: p, settle: wait }) => {
      const b = (window as any).__bench;
      b.requests.length = 0;
      const t0 = performance.now();
      const rendered = b.until(b.checks[p]);
      window.history.pushState({}, '', to);
      window.dispatchEvent(new PopStateEvent('popstate'));
      const t3 = await rendered;
      const req = b.requests.find((r: any) => r.url.includes(d));
      if (!req?.end) throw new Error(`no request for ${d}`);
      b.last = { t0, dataStart: req.start };
      // The rows mounted when the page was drawn (the page of 50 and the header; a screen's worth when BUI's
      // virtualized table drew it).
      const rows = document.querySelectorAll(
        'section[aria-label="Clusters"] :is(tr, [role="row"])',
      ).length;
      let after: number | undefined;
      if (wait) {
        // A window, not a condition: what happens in it is the measure.
        await new Promise(resolve => setTimeout(resolve, 1000));
        after = b.longTasks
          .filter((l: any) => l.start >= t3 && l.start < t3 + 1000)
          .reduce((sum: number, l: any) => sum + l.duration, 0);
      }
      return {
        code: req.start - t0,
        data: req.end - req.start,
        render: t3 - req.end,
        total: t3 - t0,
        ...(after === undefined ? {} : { after, rows }),
      };
    },
    { path, dataPath, predicate, settle },
  );
}

async function timelineClick(page: Page): Promise<Phases> {
  return page.evaluate(async p => {
    const b = (window as any).__bench;
    b.requests.length = 0;
    const tab = [...document.querySelectorAll('[role="tab"]')].find(
      t => t.textContent === 'Timeline',
    ) as HTMLElement;
    const t0 = performance.now();
    const rendered = b.until(b.checks[p]);
    // react-aria's tabs select on pointer down / press: a real click sequence.
    for (const type of [
      'pointerdown',
      'mousedown',
      'pointerup',
      'mouseup',
      'click',
    ])
      tab.dispatchEvent(
        new (type.startsWith('pointer') ? PointerEvent : MouseEvent)(type, {
          bubbles: true,
          cancelable: true,
          button: 0,
          pointerType: 'mouse',
          pointerId: 1,
          isPrimary: true,
        } as PointerEventInit),
      );
    const t3 = await rendered;
    const req = b.requests.find((r: any) => r.url.includes('/timeline'));
    if (!req?.end) throw new Error('no timeline request');
    return {
      code: req.start - t0,
      data: req.end - req.start,
      render: t3 - req.end,
      total: t3 - t0,
    };
  }, 'lanes');
}

/** Pointer over the middle of the first lane (a real mouse move), until the tooltip is painted. */
async function hover(page: Page): Promise<number> {
  const lane = page
    .locator('[role="group"][aria-label="Condition timeline"] [role="listbox"]')
    .first();
  const box = await lane.boundingBox();
  if (!box) throw new Error('no lane');
  await page.mouse.move(box.x + box.width / 2, box.y - 30);
  await page.evaluate(() => {
    const b = (window as any).__bench;
    b.hover = undefined;
    document.addEventListener(
      'pointermove',
      () => (b.hoverStart ??= performance.now()),
      { capture: true, once: true },
    );
    b.hoverStart = undefined;
    b.hoverDone = b.until(b.checks.tooltip);
  });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  return page.evaluate(async () => {
    const b = (window as any).__bench;
    const t = await b.hoverDone;
    return t - b.hoverStart;
  });
}

// ---- --trace: what a navigation's code phase loads and runs ----

interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: {
      functionName: string;
      url: string;
      lineNumber: number;
      columnNumber: number;
    };
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Starts the page's CPU profile before a navigation; it stops when the request for `dataPath` reaches mockCapz. */
class Tracer {
  private profile?: Promise<CpuProfile>;
  private stopAt?: string;
  private readonly session: CDPSession;
  private constructor(session: CDPSession) {
    this.session = session;
  }

  static async attach(page: Page): Promise<Tracer> {
    const session = await page.context().newCDPSession(page);
    await session.send('Profiler.enable');
    await session.send('Profiler.setSamplingInterval', { interval: 200 });
    return new Tracer(session);
  }

  async start(dataPath: string) {
    this.stopAt = dataPath;
    this.profile = undefined;
    if (!TRACE_RENDER) await this.session.send('Profiler.start');
  }

  readonly beforeAnswer: BeforeAnswer = async path => {
    if (this.stopAt === undefined || !path.includes(this.stopAt)) return;
    this.stopAt = undefined;
    // --trace-render: the profile starts here and stops once the page is rendered (report).
    if (TRACE_RENDER) await this.session.send('Profiler.start');
    else await this.stop();
  };

  private stop() {
    this.profile = this.session
      .send('Profiler.stop')
      .then(r => r.profile as CpuProfile);
    return this.profile;
  }

  /** The requests and the CPU profile of the last navigation (until its data request), written and summed up. */
  async report(page: Page, label: string) {
    const { t0, dataStart, resources } = await page.evaluate(whole => {
      const { t0: start, dataStart } = (window as any).__bench.last;
      // --trace-render: every request until now (the page rendered), the render phase's too.
      const end = whole ? performance.now() : dataStart;
      return {
        t0: start as number,
        dataStart: dataStart as number,
        resources: (
          performance.getEntriesByType(
            'resource',
          ) as PerformanceResourceTiming[]
        )
          .filter(e => e.startTime >= start && e.startTime <= end)
          .map(e => ({
            url: e.name,
            type: e.initiatorType,
            bytes: e.transferSize,
            decoded: e.decodedBodySize,
            start: e.startTime - start,
            end: e.responseEnd - start,
          })),
      };
    }, TRACE_RENDER);
    const profile = await (TRACE_RENDER ? this.stop() : this.profile);
    const dir = join(root, '.local', 'bench-ui', 'trace');
    mkdirSync(dir, { recursive: true });
    const base = join(dir, label);
    if (profile) writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile));
    const short = (url: string) => url.replace(/^.*\/(?=[^/]+$)/, '');
    const out: string[] = [
      `${label}: code phase ${(dataStart - t0).toFixed(0)} ms; ${
        resources.length
      } requests`,
    ];
    for (const r of resources)
      out.push(
        `  ${r.start.toFixed(0).padStart(5)} → ${r.end
          .toFixed(0)
          .padStart(5)} ms  ${String(Math.round(r.decoded / 1024)).padStart(
          5,
        )} KB  ${r.type.padEnd(6)} ${short(r.url)}`,
      );
    const summary: Record<string, unknown> = { t0, dataStart, resources };
    if (profile) {
      // Self time of each node: the time until the next sample.
      const self = new Map<number, number>();
      for (let i = 0; i < profile.samples.length; i++) {
        const dt =
          (i + 1 < profile.timeDeltas.length ? profile.timeDeltas[i + 1] : 0) /
          1000;
        self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
      }
      const byScript = new Map<string, number>();
      const byFunction = new Map<string, number>();
      for (const n of profile.nodes) {
        const ms = self.get(n.id) ?? 0;
        const f = n.callFrame;
        const script = f.url ? short(f.url) : f.functionName;
        byScript.set(script, (byScript.get(script) ?? 0) + ms);
        const fn = `${f.functionName || '(anonymous)'} ${script}:${
          f.lineNumber + 1
        }:${f.columnNumber + 1}`;
        byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
      }
      const top = (m: Map<string, number>, n: number) =>
        [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
      out.push(
        `  CPU profile ${((profile.endTime - profile.startTime) / 1000).toFixed(
          0,
        )} ms; self time by script:`,
      );
      for (const [k, ms] of top(byScript, 15))
        out.push(`    ${ms.toFixed(1).padStart(7)} ms  ${k}`);
      out.push('  self time by function:');
      for (const [k, ms] of top(byFunction, 15))
        out.push(`    ${ms.toFixed(1).padStart(7)} ms  ${k}`);
      summary.byScript = Object.fromEntries(top(byScript, 1000));
      summary.byFunction = Object.fromEntries(top(byFunction, 200));
    }
    writeFileSync(`${base}.json`, JSON.stringify(summary, null, 1));
    process.stdout.write(`${out.join('\n')}\n`);
  }
}

// ---- processes ----

function run(cmd: string, argv: string[]) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${argv.join(' ')} failed (${r.status})`);
}

async function startBackend(): Promise<ChildProcess> {
  const dir = join(root, '.local', 'bench-ui');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'app-config.bench-ui.yaml');
  // The e2e overrides on another port, and no management cluster: the capz API is answered in the browser.
  writeFileSync(
    config,
    [
      'app:',
      `  baseUrl: ${BASE}`,
      'backend:',
      `  baseUrl: ${BASE}`,
      '  listen:',
      `    port: ${PORT}`,
      '    host: 127.0.0.1',
      '  cors:',
      `    origin: ${BASE}`,
      '  database:',
      '    client: better-sqlite3',
      "    connection: ':memory:'",
      'capz:',
      '  managementClusters: []',
      '',
    ].join('\n'),
  );
  // The backend's entry point run as `backstage-cli package start` runs it, without its file watcher: other work on
  // the checkout would restart the backend in the middle of a run.
  const child = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      '--require',
      createRequire(import.meta.url).resolve(
        '@backstage/cli-node/config/nodeTransform.cjs',
      ),
      'src/index',
      '--config',
      '../../app-config.yaml',
      '--config',
      '../../e2e/app-config.e2e.yaml',
      '--config',
      config,
      ...(EXTRA_CONFIG ? ['--config', resolve(EXTRA_CONFIG)] : []),
    ],
    {
      cwd: join(root, 'packages', 'backend'),
      env: {
        ...process.env,
        NODE_ENV: process.env.NODE_ENV ?? 'development',
        ESBK_TSCONFIG_PATH: join(root, 'tsconfig.json'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    },
  );
  let stderr = '';
  child.stderr!.on('data', d => (stderr = (stderr + d).slice(-4000)));
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`backend exited: ${stderr}`);
    try {
      const res = await fetch(`${BASE}/api/capz/health`);
      if (res.ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise(r => setTimeout(r, 1000));
  }
  throw new Error(`backend not up after 300 s: ${stderr}`);
}

/** The guest sign-in, as e2e's signInAsGuest; a page that shows no sign-in button is loaded once more. */
async function signIn(page: Page) {
  const enter = page.getByRole('button', { name: 'Enter' });
  for (let attempt = 1; ; attempt++) {
    await page.goto('/');
    try {
      await enter.waitFor({ timeout: 60_000 });
      break;
    } catch (e) {
      const dir = join(root, '.local', 'bench-ui');
      await page.screenshot({ path: join(dir, `sign-in-${attempt}.png`) });
      if (attempt === 2) throw e;
      process.stdout.write(
        `no sign-in button after 60 s (screenshot in ${dir}); loading the page again\n`,
      );
    }
  }
  await enter.click();
  await page
    .getByTestId('sidebar-root')
    .getByRole('link', { name: 'AKS clusters' })
    .waitFor();
}

const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  if (
    BUILD ||
    !existsSync(join(root, 'packages', 'app', 'dist', 'index.html'))
  ) {
    process.stdout.write('building the app (yarn workspace app build)…\n');
    run('yarn', ['workspace', 'app', 'build']);
  }
  process.stdout.write(`starting the backend on ${BASE}…\n`);
  const backend = await startBackend();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const results: Record<'clusters' | 'tree' | 'timeline', Phases[]> = {
    clusters: [],
    tree: [],
    timeline: [],
  };
  const hovers: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      // A fresh context per run: no chunk in the memory cache (the HTTP cache is the context's too).
      for (const which of ['clusters', 'tree'] as const) {
        const context = await browser.newContext({
          baseURL: BASE,
          viewport: { width: 1400, height: 900 },
        });
        const page = await context.newPage();
        // Waits only detect a hang: on a loaded machine the sign-in alone can take longer than Playwright's 30 s.
        page.setDefaultTimeout(180_000);
        await page.addInitScript(instrument, CLUSTERS);
        const tracer = TRACE ? await Tracer.attach(page) : undefined;
        await mockCapz(page, tracer?.beforeAnswer);
        await signIn(page);
        if (which === 'clusters') {
          await tracer?.start('/api/capz/clusters');
          results.clusters.push(
            await navigate(
              page,
              '/capz',
              '/api/capz/clusters',
              'clusters',
              true,
            ),
          );
          await tracer?.report(page, `clusters-${i + 1}`);
        } else {
          await tracer?.start('/tree');
          results.tree.push(
            await navigate(
              page,
              '/capz/clusters/perf/team-perf/big',
              '/tree',
              'tree',
            ),
          );
          await tracer?.report(page, `tree-${i + 1}`);
          results.timeline.push(await timelineClick(page));
          hovers.push(await hover(page));
        }
        await context.close();
      }
      process.stdout.write(
        `run ${i + 1}/${RUNS}: clusters ${results.clusters[i].total.toFixed(
          0,
        )} ms (${results.clusters[i].rows} rows; then ${(
          results.clusters[i].after ?? 0
        ).toFixed(0)} ms busy), tree ${results.tree[i].total.toFixed(0)} ms, ` +
          `timeline ${results.timeline[i].total.toFixed(0)} ms, hover ${hovers[
            i
          ].toFixed(0)} ms\n`,
      );
    }
  } finally {
    await browser.close();
    try {
      process.kill(-backend.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  }

  const f = (x: number) => `${x.toFixed(0)} ms`;
  const lines = [
    `Chromium render times, production build, medians of ${RUNS} (after the app shell is loaded; capz API answered in the browser)`,
    '',
    '| page | code load | data | render | total | goal (total) |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  const row = (label: string, xs: Phases[], goal: number) => {
    const m = (k: 'code' | 'data' | 'render' | 'total') =>
      median(xs.map(x => x[k]));
    lines.push(
      `| ${label} | ${f(m('code'))} | ${f(m('data'))} | ${f(m('render'))} | ${f(
        m('total'),
      )} | ≤ ${goal} ms ${m('total') <= goal ? '✓' : '✗'} |`,
    );
  };
  row(
    `clusters page, ${CLUSTERS.toLocaleString('en')} clusters (navigation)`,
    results.clusters,
    GOALS.clusters,
  );
  row(
    'cluster page, 50-pool tree, 152 rows (navigation)',
    results.tree,
    GOALS.tree,
  );
  row(
    'timeline, 1,000 transitions, 60 lanes (tab click)',
    results.timeline,
    GOALS.timeline,
  );
  const h = median(hovers);
  lines.push(
    `| timeline hover → tooltip | | | | ${f(h)} | ≤ ${GOALS.hover} ms ${
      h <= GOALS.hover ? '✓' : '✗'
    } |`,
  );
  const after = results.clusters.map(x => x.after ?? 0);
  lines.push(
    '',
    `Clusters page, long tasks in the second after it is drawn (summed): median ${f(
      median(after),
    )} (${after.map(f).join(', ')})`,
  );
  const out = lines.join('\n');
  process.stdout.write(`\n${out}\n`);
  const file = join(root, '.local', 'bench', 'result-ui.md');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${out}\n`);
  process.stdout.write(`\nwritten to ${file}\n`);
}

main().catch(e => {
  process.stderr.write(`${e instanceof Error ? e.stack : e}\n`);
  process.exit(1);
});
