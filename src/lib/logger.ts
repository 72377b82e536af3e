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
 * than the rest of the gateway's work. `process.on('exit')` flushes what is left.
 */
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

/** One JSON object per line on stdout; never pass secrets or key material in `fields`. */
export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const min = ORDER[level];
  const out = write ?? (level === 'silent' ? () => {} : bufferedStdout());
  const emit = (lvl: Exclude<LogLevel, 'silent'>) => (msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    out(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + '\n');
  };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}
