import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';
export type CfdiClient = Client<paths>;

/** A bearer credential, or a function that returns the current one (e.g. a JWT you refresh). */
export type Credential = string | (() => string | undefined | Promise<string | undefined>);

export interface CfdiClientOptions extends ClientOptions {
  /** Where the API is served, without `/api/v1` (every path in the document starts with it): `http://localhost:3000`. */
  baseUrl: string;
  /** An API key: `sk_test_…` (sandbox) or `sk_live_…`. */
  apiKey?: Credential;
  /** A JWT access token from `POST /api/v1/auth/login` (acts on test data unless `X-Environment: live` is sent). */
  token?: Credential;
}

/** Sends `Authorization: Bearer <credential>` unless the call set its own. */
function bearer(credential: Credential): Middleware {
  return {
    async onRequest({ request }) {
      const value = typeof credential === 'function' ? await credential() : credential;
      if (value && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${value}`);
      return request;
    },
  };
}

/** A typed client for every operation of the API: `client.POST('/api/v1/cfdis', { body })` → `{ data, error, response }`. */
export function createCfdiClient({ apiKey, token, ...options }: CfdiClientOptions): CfdiClient {
  if (apiKey !== undefined && token !== undefined) throw new TypeError('createCfdiClient: pass apiKey or token, not both');
  const client = createClient<paths>(options);
  const credential = apiKey ?? token;
  if (credential !== undefined) client.use(bearer(credential));
  return client;
}

/**
 * `bodySerializer` for the multipart operations (CSD upload, tenant logo): each field becomes a form part, so
 * `Blob`/`File` values are sent as files.
 */
export function formData(body: Record<string, string | Blob | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) if (value !== undefined) form.append(name, value);
  return form;
}
