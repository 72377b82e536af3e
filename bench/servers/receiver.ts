// Webhook receivers for bench/webhooks.ts, in their own process so they do not share the service's event loop:
// one answers at once, one takes 5 s (a slow integrator).
const fast = Bun.serve({ port: 0, fetch: async (req) => (await req.arrayBuffer(), new Response('ok')) });
const slow = Bun.serve({ port: 0, idleTimeout: 30, fetch: async (req) => (await req.arrayBuffer(), await Bun.sleep(5000), new Response('ok')) });
console.log(JSON.stringify({ ready: true, fast: `http://127.0.0.1:${fast.port}/hook`, slow: `http://127.0.0.1:${slow.port}/hook` }));
