import { get as httpGet } from 'node:http';

/** The HTTP status of a GET (2 s at the most), or 0 when nothing answered: for polling a server's health endpoint. */
export function httpStatus(url: string): Promise<number> {
  return new Promise(resolvePromise => {
    const req = httpGet(url, { timeout: 2000 }, res => {
      res.resume();
      resolvePromise(res.statusCode ?? 0);
    });
    req.on('error', () => resolvePromise(0));
    req.on('timeout', () => req.destroy());
  });
}
