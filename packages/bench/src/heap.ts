/**
 * What a backend's memory is made of (`yarn bench --heap-snapshot`): the serving process is started with
 * `--inspect-port=<port>` in NODE_OPTIONS (which opens nothing), and once it has synced the bench sends it SIGUSR1
 * (Node opens its inspector on that port, on 127.0.0.1), reads the V8 heap statistics and the kernel's RSS split
 * (anonymous, file-backed), forces a full GC and reads them again, then streams a heap snapshot to a file through the
 * inspector protocol (HeapProfiler.takeHeapSnapshot) and closes the inspector. `src/heapSummary.ts` reads the file.
 * The snapshot itself makes the process grow (and the GC frees garbage): figures measured after it are not comparable
 * with a run without the flag.
 */
import { createWriteStream, readFileSync } from 'node:fs';

export interface MemoryFigures {
  /** /proc/<pid>/status, KiB. */
  rss: number;
  rssAnon: number;
  rssFile: number;
  /** process.memoryUsage(), bytes. */
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  /** v8.getHeapSpaceStatistics(): used bytes per space (new_space, old_space, code_space, large_object_space, ...). */
  spaces: Record<string, { used: number; size: number }>;
  /** v8.getHeapStatistics().malloced_memory: V8's own malloc. */
  malloced: number;
  /** v8.getHeapCodeStatistics(): bytecode and metadata, code and metadata, external scripts' source. */
  code: {
    bytecodeAndMetadata: number;
    codeAndMetadata: number;
    externalScriptSource: number;
  };
}

function procStatus(
  pid: number,
): Pick<MemoryFigures, 'rss' | 'rssAnon' | 'rssFile'> {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) =>
    Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(text)?.[1] ?? NaN);
  return {
    rss: kib('VmRSS'),
    rssAnon: kib('RssAnon'),
    rssFile: kib('RssFile'),
  };
}

const EXPRESSION = `(() => {
  const v8 = process.getBuiltinModule('v8');
  const m = process.memoryUsage();
  const h = v8.getHeapStatistics();
  const c = v8.getHeapCodeStatistics();
  return JSON.stringify({
    heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers,
    malloced: h.malloced_memory,
    spaces: Object.fromEntries(v8.getHeapSpaceStatistics().map(s => [s.space_name, { used: s.space_used_size, size: s.space_size }])),
    code: { bytecodeAndMetadata: c.bytecode_and_metadata_size, codeAndMetadata: c.code_and_metadata_size, externalScriptSource: c.external_script_source_size },
  });
})()`;

class Inspector {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (v: any) => void; reject: (e: Error) => void }
  >();
  onEvent: (method: string, params: any) => void = () => {};
  private readonly ws: WebSocket;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.addEventListener('message', ev => {
      const msg = JSON.parse(String(ev.data));
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(JSON.stringify(msg.error)));
        else p?.resolve(msg.result);
      } else this.onEvent(msg.method, msg.params);
    });
  }

  static async connect(port: number, timeoutMs = 15_000): Promise<Inspector> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const list = (await (
          await fetch(`http://127.0.0.1:${port}/json/list`)
        ).json()) as Array<{ webSocketDebuggerUrl: string }>;
        const ws = new WebSocket(list[0].webSocketDebuggerUrl);
        await new Promise<void>((resolve, reject) => {
          ws.addEventListener('open', () => resolve());
          ws.addEventListener('error', () =>
            reject(new Error('inspector WebSocket failed')),
          );
        });
        return new Inspector(ws);
      } catch (e) {
        if (Date.now() > deadline)
          throw new Error(
            `no inspector on 127.0.0.1:${port}: ${(e as Error).message}`,
          );
        await new Promise(r => setTimeout(r, 200));
      }
    }
  }

  send(method: string, params: object = {}): Promise<any> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  sendOnly(method: string, params: object = {}): void {
    this.ws.send(JSON.stringify({ id: this.nextId++, method, params }));
  }

  close(): void {
    this.ws.close();
  }
}

export async function memoryFigures(
  inspector: Inspector,
  pid: number,
): Promise<MemoryFigures> {
  const res = await inspector.send('Runtime.evaluate', {
    expression: EXPRESSION,
    returnByValue: true,
  });
  return { ...procStatus(pid), ...JSON.parse(res.result.value) };
}

/**
 * Opens the inspector of `pid` (started with --inspect-port=`port`), reads its memory figures before and after a full
 * GC, writes a heap snapshot to `file` and closes the inspector again.
 */
export async function snapshotBackend(
  pid: number,
  port: number,
  file: string,
): Promise<{ before: MemoryFigures; afterGc: MemoryFigures; ms: number }> {
  process.kill(pid, 'SIGUSR1');
  const inspector = await Inspector.connect(port);
  try {
    const before = await memoryFigures(inspector, pid);
    await inspector.send('HeapProfiler.enable');
    await inspector.send('HeapProfiler.collectGarbage');
    const afterGc = await memoryFigures(inspector, pid);
    const started = performance.now();
    const out = createWriteStream(file);
    inspector.onEvent = (method, params) => {
      if (method === 'HeapProfiler.addHeapSnapshotChunk')
        out.write(params.chunk);
    };
    await inspector.send('HeapProfiler.takeHeapSnapshot', {
      reportProgress: false,
    });
    await new Promise<void>((resolve, reject) =>
      out.end((e?: Error | null) => (e ? reject(e) : resolve())),
    );
    const ms = performance.now() - started;
    await inspector.send('HeapProfiler.disable');
    // Closes the inspector's port; the session ends with it, so no answer is awaited.
    inspector.sendOnly('Runtime.evaluate', {
      expression:
        "setImmediate(() => process.getBuiltinModule('inspector').close())",
    });
    return { before, afterGc, ms };
  } finally {
    inspector.close();
  }
}

const m = (bytes: number) => `${(bytes / 1048576).toFixed(0)}`;

/** One line: RSS = anonymous + file-backed; V8 heap used of total (per space), code, external, malloc. */
export function describeMemory(f: MemoryFigures): string {
  const s = (name: string) => m(f.spaces[name]?.used ?? 0);
  return (
    `RSS ${m(f.rss * 1024)} MiB (anonymous ${m(
      f.rssAnon * 1024,
    )}, file-backed ${m(f.rssFile * 1024)}); V8 heap used ${m(
      f.heapUsed,
    )} of ${m(f.heapTotal)} MiB ` +
    `(old ${s('old_space')}, young ${s('new_space')}, large objects ${s(
      'large_object_space',
    )}, code ${s('code_space')}, trusted ${s('trusted_space')}, shared ${s(
      'shared_space',
    )}); bytecode+metadata ${m(f.code.bytecodeAndMetadata)}, ` +
    `external ${m(f.external)} (ArrayBuffers ${m(
      f.arrayBuffers,
    )}), V8 malloc ${m(f.malloced)} MiB; ` +
    `outside the V8 heap and external: ${m(
      f.rssAnon * 1024 - f.heapTotal - f.external,
    )} MiB of anonymous RSS (Node/V8 native, libuv, SQLite, allocator slack)`
  );
}
