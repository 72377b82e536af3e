import { type Client, type ClientOptions, type MaybeOptionalInit } from 'openapi-fetch';
import type { paths } from './schema.js';
export type { components, operations, paths } from './schema.js';
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
/** A typed client for every operation of the API: `client.POST('/api/v1/cfdis', { body })` → `{ data, error, response }`. */
export declare function createCfdiClient({ apiKey, token, ...options }: CfdiClientOptions): CfdiClient;
/**
 * `bodySerializer` for the multipart operations (CSD upload, tenant logo): each field becomes a form part, so
 * `Blob`/`File` values are sent as files.
 */
export declare function formData(body: Record<string, string | Blob | undefined>): FormData;
type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch';
/** The paths that have operation `M` (a path without it declares `M?: never`). */
export type PathsWith<M extends HttpMethod> = {
    [P in keyof paths]: paths[P] extends {
        [K in M]: object;
    } ? P : never;
}[keyof paths];
type Responses<Op> = Op extends {
    responses: infer R;
} ? R : never;
type BodyOf<R> = R extends {
    content: infer C;
} ? (C extends {
    'application/json': infer J;
} ? J : C[keyof C]) : undefined;
/**
 * An operation's result as a union discriminated by the HTTP status: after `if (res.status === 201)`, `res.data` is
 * the body the document declares for 201 (for an error status, the error envelope).
 */
export type StatusResult<Op> = {
    [S in keyof Responses<Op>]: {
        status: S;
        data: BodyOf<Responses<Op>[S]>;
        response: Response;
    };
}[keyof Responses<Op>];
type RequiredKeys<T> = {
    [K in keyof T]-?: object extends Pick<T, K> ? never : K;
}[keyof T];
type StatusMethod<M extends HttpMethod> = <P extends PathsWith<M>, I extends MaybeOptionalInit<paths[P], M>>(url: P, ...init: RequiredKeys<I> extends never ? [I?] : [I]) => Promise<StatusResult<paths[P][M]>>;
export interface StatusClient {
    GET: StatusMethod<'get'>;
    PUT: StatusMethod<'put'>;
    POST: StatusMethod<'post'>;
    DELETE: StatusMethod<'delete'>;
    PATCH: StatusMethod<'patch'>;
}
/**
 * The same client, answering `{ status, data, response }` narrowed by status: openapi-fetch's `{ data, error }`
 * narrows only success against failure, so a 201 and a 202 (stamped, queued) would share one type.
 *
 * ```ts
 * const res = await byStatus(cfdi).POST('/api/v1/cfdis', { body });
 * if (res.status === 201) console.log(res.data.uuid); // string
 * else if (res.status === 202) console.log(res.data.id, 'queued');
 * else console.log(res.data.error.code);
 * ```
 */
export declare function byStatus(client: CfdiClient): StatusClient;
