import type { LogLevel } from '../env.ts';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * Lines are batched and written to stdout at most every 20 ms (or at 64 KiB): one write per request costs more
 * than the rest of the gateway's work. `process.on('exit')` flushes what is left. One per process: the supervisor's
 * own lines and those it forwards from its workers (src/topology/cluster.ts) share it, so they never interleave mid-line.
 */
let stdoutLines: ((line: string) => void) | undefined;
export const writeLogLine = (line: string) => (stdoutLines ??= bufferedStdout())(line);

function bufferedStdout(): (line: string) => void {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    process.stdout.write(chunk);
  };
  process.on('exit', flush);
  return (line) => {
    pending.push(line);
    size += line.length;
    if (size >= 64 * 1024) flush();
    else timer ??= setTimeout(flush, 20);
  };
}

// Under load many lines share a millisecond: its ISO text is made once.
let stampedMs = Number.NaN;
let stamp = '';
const isoNow = () => {
  const ms = Date.now();
  if (ms !== stampedMs) {
    stampedMs = ms;
    stamp = new Date(ms).toISOString();
  }
  return stamp;
};

/**
 * `{"time":…,"level":…,"msg":…,…fields}`, as JSON.stringify of the spread object would write it, without building
 * that object (a line per request). Fields that reuse those names, or do not serialize as an object, take the slow path.
 */
function lineOf(level: string, msg: string, fields: Record<string, unknown> | undefined, base: Base): string {
  const head = `{"time":"${isoNow()}","level":"${level}"${base.text},"msg":${JSON.stringify(msg)}`;
  if (fields === undefined) return head + '}\n';
  const clash = 'time' in fields || 'level' in fields || 'msg' in fields || base.keys.some((k) => k in fields);
  const rest = clash ? '' : JSON.stringify(fields);
  if (rest[0] !== '{') return JSON.stringify({ time: isoNow(), level, ...base.fields, msg, ...fields }) + '\n';
  return head + (rest.length > 2 ? ',' + rest.slice(1) : '}') + '\n';
}

/** Fields every line of a logger carries, and their JSON text (`,"worker":2`) made once. */
interface Base {
  fields: Record<string, unknown>;
  keys: string[];
  text: string;
}
const baseOf = (fields: Record<string, unknown> = {}): Base => {
  const json = JSON.stringify(fields);
  return { fields, keys: Object.keys(fields), text: json.length > 2 ? ',' + json.slice(1, -1) : '' };
};

/**
 * One JSON object per line on stdout; never pass secrets or key material in `fields`. `base`: fields every line
 * carries (a worker process's number).
 */
export function createLogger(level: LogLevel, write?: (line: string) => void, base?: Record<string, unknown>): Logger {
  const prefix = baseOf(base);
  const min = ORDER[level];
  const out = write ?? (level === 'silent' ? () => {} : writeLogLine);
  const emit = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    out(lineOf(lvl, msg, fields, prefix));
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
