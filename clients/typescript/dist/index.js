import createClient, {} from 'openapi-fetch';
/** Sends `Authorization: Bearer <credential>` unless the call set its own. */
function bearer(credential) {
    return {
        async onRequest({ request }) {
            const value = typeof credential === 'function' ? await credential() : credential;
            if (value && !request.headers.has('authorization'))
                request.headers.set('authorization', `Bearer ${value}`);
            return request;
        },
    };
}
/** A typed client for every operation of the API: `client.POST('/api/v1/cfdis', { body })` → `{ data, error, response }`. */
export function createCfdiClient({ apiKey, token, ...options }) {
    if (apiKey !== undefined && token !== undefined)
        throw new TypeError('createCfdiClient: pass apiKey or token, not both');
    const client = createClient(options);
    const credential = apiKey ?? token;
    if (credential !== undefined)
        client.use(bearer(credential));
    return client;
}
/**
 * `bodySerializer` for the multipart operations (CSD upload, tenant logo): each field becomes a form part, so
 * `Blob`/`File` values are sent as files.
 */
export function formData(body) {
    const form = new FormData();
    for (const [name, value] of Object.entries(body))
        if (value !== undefined)
            form.append(name, value);
    return form;
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
export function byStatus(client) {
    const call = (method) => async (url, init) => {
        const { data, error, response } = await client[method](url, init);
        return { status: response.status, data: data ?? error, response };
    };
    return { GET: call('GET'), PUT: call('PUT'), POST: call('POST'), DELETE: call('DELETE'), PATCH: call('PATCH') };
}
