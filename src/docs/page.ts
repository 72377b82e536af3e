import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import bundlePath from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };
import cssPath from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import swaggerUi from 'swagger-ui-dist/package.json' with { type: 'json' };
import type { GatewayEnv } from '../gateway/gateway.ts';
import { errorResponses } from '../lib/schemas.ts';

const errors = errorResponses('gateway');

/** Runs Swagger UI on our document; a file of its own so the CSP can forbid inline scripts. */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The default sends the document's URL to validator.swagger.io: the page must not leave the server.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  persistAuthorization: false,
});
`;
const PAGE_CSS = 'body { margin: 0; background: #fafafa; } .swagger-ui .info { margin: 30px 0; }';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const hash = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex').slice(0, 12);

/** Names carry Swagger UI's version or a content hash, so browsers may keep them for a year. */
const NAMES = {
  bundle: `swagger-ui-bundle-${swaggerUi.version}.js`,
  css: `swagger-ui-${swaggerUi.version}.css`,
  init: `init-${hash(INIT_SCRIPT)}.js`,
  pageCss: `page-${hash(PAGE_CSS)}.css`,
};
const ASSETS = new Map<string, { type: string; body: () => Blob | string }>([
  [NAMES.bundle, { type: JS, body: () => Bun.file(bundlePath) }],
  [NAMES.css, { type: CSS, body: () => Bun.file(cssPath) }],
  [NAMES.init, { type: JS, body: () => INIT_SCRIPT }],
  [NAMES.pageCss, { type: CSS, body: () => PAGE_CSS }],
]);

const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>CFDI 4.0 invoicing API — reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/assets/${NAMES.css}">
<link rel="stylesheet" href="/docs/assets/${NAMES.pageCss}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/${NAMES.bundle}"></script>
<script src="/docs/assets/${NAMES.init}"></script>
</body>
</html>
`;

/**
 * Same-origin only: the page renders API descriptions (markdown), so no inline or foreign script runs; Swagger UI
 * sets inline styles, and its stylesheet uses data: images.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /docs: the API reference (Swagger UI, served from this process: no CDN) and its assets. */
export function mountDocs(app: OpenAPIHono<GatewayEnv>) {
  app.openapi(
    createRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getApiReference',
      tags: ['System'],
      summary: 'This API reference, as a web page',
      description: 'Renders GET /api/v1/openapi.json with Swagger UI; every asset is served by this server, so it works offline.',
      security: [],
      responses: {
        200: { description: 'HTML page', content: { 'text/html': { schema: z.string() } } },
        ...errors.tooManyFromAddress,
      },
    }),
    (c) => c.html(PAGE, 200, { 'Cache-Control': 'no-cache', 'Content-Security-Policy': CSP }),
  );

  // Static files, not API operations: left out of the OpenAPI document.
  app.get('/docs/assets/*', (c) => {
    const file = ASSETS.get(c.req.path.slice('/docs/assets/'.length));
    if (!file) return c.notFound();
    return new Response(file.body(), {
      headers: { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
    });
  });
}
