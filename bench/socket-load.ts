/**
 * A closed loop of GETs over raw keep-alive sockets: `concurrency` connections, each writing its next request as soon
 * as the last answer is whole. It spends a fraction of fetch's CPU per request, so on a 2-core machine the server,
 * not the client, sets the pace even for a hello-world: with fetch, the hello-world's rate was the client's.
 * Answers are read by Content-Length (or to the last chunk of a chunked body); only status 200 counts as good.
 */
export async function socketLoad(o: { url: string; headers: Record<string, string>; concurrency: number; durationMs: number }) {
  const { hostname, port, pathname, search } = new URL(o.url);
  const head = [`GET ${pathname}${search} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(o.headers).map(([k, v]) => `${k}: ${v}`)];
  const request = Buffer.from(head.join('\r\n') + '\r\n\r\n', 'latin1');
  const end = performance.now() + o.durationMs;
  let ok = 0;
  let failed = 0;
  const latencies: number[] = [];

  const connection = () =>
    new Promise<void>((resolve, reject) => {
      let buffer: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = (socket: Bun.Socket) => {
        if (performance.now() >= end) {
          socket.end();
          return resolve();
        }
        sentAt = performance.now();
        socket.write(request);
      };
      Bun.connect({
        hostname,
        port: Number(port),
        socket: {
          open: send,
          data(socket, chunk) {
            buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
            for (;;) {
              const headerEnd = buffer.indexOf('\r\n\r\n');
              if (headerEnd < 0) return;
              const header = buffer.toString('latin1', 0, headerEnd);
              const length = /\r\ncontent-length: *(\d+)/i.exec(header);
              let size: number;
              if (length) size = headerEnd + 4 + Number(length[1]);
              else if (/\r\ntransfer-encoding: *chunked/i.test(header)) {
                const last = buffer.indexOf('\r\n0\r\n\r\n', headerEnd);
                if (last < 0) return;
                size = last + 7;
              } else size = headerEnd + 4;
              if (buffer.length < size) return;
              latencies.push(performance.now() - sentAt);
              if (header.startsWith('HTTP/1.1 200')) ok++;
              else failed++;
              buffer = buffer.subarray(size);
              send(socket);
            }
          },
          close: () => resolve(),
          error: (_socket, err) => reject(err),
        },
      }).catch(reject);
    });

  await Promise.all(Array.from({ length: o.concurrency }, connection));
  return { ok, failed, latencies };
}
