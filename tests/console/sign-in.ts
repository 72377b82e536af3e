import { expect } from 'bun:test';

type App = { request(input: string, init?: RequestInit): Response | Promise<Response> };

/** Signs in to the console over HTTP as a browser does (the form's token and cookie): the session cookie and the first page. */
export async function signIn(app: App, email: string, password: string, base = 'http://localhost', headers: Record<string, string> = {}) {
  const form = await app.request(`${base}/console/login`, { headers });
  const seed = form.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
  const res = await app.request(`${base}/console/login`, {
    method: 'POST',
    headers: { ...headers, cookie: seed, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, email, password }),
  });
  expect(res.status).toBe(303);
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('console_session='))!;
  const cookie = setCookie.split(';')[0]!;
  const page = await app.request(`${base}/console/invoices`, { headers: { ...headers, cookie } });
  expect(page.status).toBe(200);
  return { cookie, setCookie, html: await page.text() };
}
