/**
 * An error thrown from inside postgres.js's own connection code (its socket writes and reads, on a timer of its own,
 * where no query's promise can catch it): a connection that broke mid-write when the server restarted. The pool
 * drops that connection and opens another for the next query, so it is a lost connection, not a broken process.
 * Recognised by the first frame of the stack that has a file: in postgres.js's package, not in this code calling it.
 */
export function fromPostgresDriver(err: unknown): boolean {
  if (!(err instanceof Error) || typeof err.stack !== 'string') return false;
  for (const line of err.stack.split('\n').slice(1)) {
    const frame = line.trim();
    if (!frame.startsWith('at ')) continue;
    // Frames of the runtime (native code, node: modules) sit above the driver's when the socket itself threw.
    if (!/[/\\]/.test(frame) || /\(?(native|node:)/.test(frame)) continue;
    return DRIVER_FILE.test(frame);
  }
  return false;
}

const DRIVER_FILE = /[/\\]node_modules[/\\]postgres[/\\](src|cjs[/\\]src|cf[/\\]src)[/\\]/;
