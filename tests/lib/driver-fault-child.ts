/**
 * A process with the service's PostgreSQL pool and its uncaught-exception handler, whose socket writes fail once
 * inside postgres.js (as a connection broken by a server restart does): it prints what it logged and whether the
 * pool still answered afterwards, or exits as the handler decided. Run by tests/lib/uncaught.test.ts.
 */
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { closeDatabase, executeSql } from '../../src/db/engine.ts';
import { openPostgres } from '../../src/db/postgres/client.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { uncaughtExceptionHandler } from '../../src/lib/uncaught.ts';

const lines: Record<string, unknown>[] = [];
const logger = createLogger('info', (line) => void lines.push(JSON.parse(line)));
process.on('uncaughtException', uncaughtExceptionHandler({ logger, exit: (code) => process.exit(code) }));

const db = await openPostgres(process.env.FAULT_DATABASE_URL!, { max: 4 });
await executeSql(db, sql`select 1`);
const write = net.Socket.prototype.write;
// postgres.js writes a query's bytes on a timer of its own: `socket.write` failing there escapes every promise.
(net.Socket.prototype as { write: unknown }).write = undefined;
void executeSql(db, sql`select 2`).catch(() => {});
for (let i = 0; i < 500 && lines.length === 0; i++) await Bun.sleep(10);
net.Socket.prototype.write = write;
const [after] = await Promise.race([executeSql(db, sql`select 3 as n`), Bun.sleep(10_000).then(() => [{ n: 'no answer in 10 s' }])]);
console.log(JSON.stringify({ lines, after }));
await Promise.race([closeDatabase(db), Bun.sleep(1000)]);
process.exit(0);
