/**
 * Keeps a server of this package's CLIs for as long as it is wanted: closed on SIGINT and SIGTERM, and when the
 * process `parent` (scripts/test.sh's shell, `--exit-with`) is gone, so that an aborted run leaves none behind.
 */
export function closeWith(close: () => Promise<void>, parent: number): void {
  const stop = () => {
    close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (parent) {
    setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch {
        stop();
      }
    }, 1000).unref();
  }
}
