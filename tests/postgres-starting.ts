import type { Socket, TCPSocketListener } from 'bun';

/**
 * A PostgreSQL server as docker-compose shows it to a service started beside it, on a port of its own: nothing listens
 * for `refuseMs` (connections early), then every connection is answered `answer` (by default 57P03, "the database
 * system is starting up") until `upAfterMs`, then relayed to `target`, the real server. Without `upAfterMs` it never
 * comes up. The real server is never stopped.
 */
export function startingPostgres(
  target: string,
  { refuseMs = 0, upAfterMs, answer = { code: '57P03', message: 'the database system is starting up' } }: StartingOptions,
) {
  const port = freePort();
  const started = performance.now();
  const up = () => upAfterMs !== undefined && performance.now() - started >= upAfterMs;
  const to = new URL(target);
  type Relayed = { upstream?: Socket<unknown>; pending: Uint8Array[]; early: boolean };
  let listener: TCPSocketListener<Relayed> | undefined;
  const listen = () =>
    (listener = Bun.listen<Relayed>({
      hostname: '127.0.0.1',
      port,
      socket: {
        async open(client) {
          client.data = { pending: [], early: !up() };
          if (client.data.early) return;
          const upstream = await Bun.connect({
            hostname: to.hostname,
            port: Number(to.port || 5432),
            socket: { data: (_, bytes) => void client.write(bytes), close: () => void client.end(), error: () => void client.end() },
          });
          client.data.upstream = upstream;
          for (const bytes of client.data.pending.splice(0)) upstream.write(bytes);
        },
        data(client, bytes) {
          // The startup message is answered with the error, as a server does before it accepts connections.
          if (client.data.early) return void client.end(errorResponse(answer.code, answer.message));
          if (client.data.upstream) client.data.upstream.write(bytes);
          else client.data.pending.push(new Uint8Array(bytes));
        },
        close: (client) => void client.data.upstream?.end(),
      },
    }));
  const timer = setTimeout(listen, refuseMs);
  if (refuseMs === 0) {
    clearTimeout(timer);
    listen();
  }
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    stop: () => {
      clearTimeout(timer);
      listener?.stop(true);
    },
  };
}

interface StartingOptions {
  refuseMs?: number;
  upAfterMs?: number;
  answer?: { code: string; message: string };
}

/** A port nothing listens on now (taken and let go; the kernel hands out another next). */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** PostgreSQL's ErrorResponse message: severity, SQLSTATE and text, as a server sends it before closing. */
function errorResponse(code: string, message: string): Uint8Array {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}
