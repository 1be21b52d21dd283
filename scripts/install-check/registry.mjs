#!/usr/bin/env node
/**
 * A minimal npm registry for the packed tarballs of one directory (what publishing them would serve): the packument
 * of each package (`GET /@scope%2fname`) and the tarballs (`GET /-/<file>`). Writes its port to <port file>.
 * Usage: registry.mjs <tarball dir> <port file>
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [dir, portFile] = process.argv.slice(2);
const packuments = new Map();
const files = new Map();
const now = new Date().toISOString();
for (const file of readdirSync(dir).filter(f => f.endsWith('.tgz'))) {
  const data = readFileSync(join(dir, file));
  const pkg = JSON.parse(
    execFileSync('tar', ['-xzOf', join(dir, file), 'package/package.json'], {
      encoding: 'utf8',
    }),
  );
  files.set(file, data);
  const p = packuments.get(pkg.name) ?? {
    name: pkg.name,
    'dist-tags': {},
    versions: {},
    time: { created: now, modified: now },
  };
  p.versions[pkg.version] = {
    ...pkg,
    _id: `${pkg.name}@${pkg.version}`,
    dist: {
      shasum: createHash('sha1').update(data).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(data).digest('base64')}`,
      tarball: `/-/${encodeURIComponent(file)}`,
    },
  };
  p.time[pkg.version] = now;
  p['dist-tags'].latest = pkg.version;
  packuments.set(pkg.name, p);
}

const server = createServer((req, res) => {
  res.on('finish', () =>
    console.error(`registry: ${req.method} ${req.url} ${res.statusCode}`),
  );
  const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const origin = `http://${req.headers.host}`;
  if (url.startsWith('/-/') && files.has(url.slice(3))) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.end(files.get(url.slice(3)));
    return;
  }
  const p = packuments.get(url.slice(1));
  if (!p) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
    return;
  }
  const body = structuredClone(p);
  for (const v of Object.values(body.versions))
    v.dist.tarball = `${origin}${v.dist.tarball}`;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
});
server.listen(0, '127.0.0.1', () => {
  writeFileSync(portFile, String(server.address().port));
  console.error(
    `registry: ${[...packuments.keys()].join(', ')} on 127.0.0.1:${
      server.address().port
    }`,
  );
});
