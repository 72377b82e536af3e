import { Hono } from 'hono';

// Baseline: the smallest Hono app on Bun. With a port argument it joins the processes already serving that port
// (reusePort: the kernel spreads connections across them), for comparing against the app in as many processes.
const app = new Hono();
app.get('/', (c) => c.text('Hello Hono!'));
const server = Bun.serve({ port: Number(process.argv[2] ?? 0), reusePort: true, fetch: app.fetch });
console.log(JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.port}/`, port: server.port }));
