import { Hono } from 'hono';

// Baseline: the smallest Hono app on Bun.
const app = new Hono();
app.get('/', (c) => c.text('Hello Hono!'));
const server = Bun.serve({ port: 0, fetch: app.fetch });
console.log(JSON.stringify({ ready: true, url: `http://127.0.0.1:${server.port}/` }));
