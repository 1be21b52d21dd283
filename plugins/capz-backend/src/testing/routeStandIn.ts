import express from 'express';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the plugin's own routes (`POST` and `GET /api/capz/*`), for the actions that call them on behalf of their
 * caller: what each request carried, and a fixed answer. `base` is what discovery gives for `/api/<plugin>`.
 */
export async function routeStandIn(answer: { status: number; body: unknown }) {
  const seen: { path: string; authorization?: string; body: unknown }[] = [];
  const app = express();
  app.use(express.json());
  app.post('/api/capz/*', (req, res) => {
    seen.push({
      path: req.path,
      authorization: req.headers.authorization,
      body: req.body,
    });
    res.status(answer.status).json(answer.body);
  });
  app.get('/api/capz/*', (req, res) => {
    seen.push({
      path: req.path,
      authorization: req.headers.authorization,
      body: undefined,
    });
    res.status(answer.status).json(answer.body);
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise(r => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, base, close: () => server.close() };
}
