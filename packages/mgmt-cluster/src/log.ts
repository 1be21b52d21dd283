/** Progress lines go to stderr so that stdout stays machine-readable (paths, env lines). */
export function log(message: string): void {
  process.stderr.write(`[mgmt-cluster] ${message}\n`);
}
