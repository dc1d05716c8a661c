/**
 * The API explorer: plain HTTP (38081 by convention), Swagger UI from swagger-ui-dist over the generated
 * OpenAPI document. "Try it out" calls go to `/svc/*` on this same origin and are forwarded to the HTTPS API
 * like the web UI's (same proxy, same token rules), because the API sends no CORS headers and a browser would
 * not trust its self-signed certificate from another origin. docs/web.md and docs/security.md say what that
 * costs (plain HTTP between the browser and this port).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { closeNow, listenOn } from '../http/listen';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { ApiProxy, type Upstream } from '../web/proxy';
import { contentType, sendError } from '../web/static-files';
import type { OpenApiDocument } from './openapi';

// swagger-ui-dist's own files, served by name: nothing else from its directory is reachable.
const UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'];
const UI_DIR: string = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>encoderd API explorer</title>
<link rel="stylesheet" href="/swagger-ui.css">
<link rel="icon" type="image/png" href="/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/swagger-ui-bundle.js"></script>
<script src="/explorer-init.js"></script>
</body>
</html>
`;

// No validator badge: it would send the document to a public validation service.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const HEADERS = {
  // Swagger UI sets inline styles; its scripts are all files from here.
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/**
 * Pure: whether a Host header names this appliance in a way a DNS-rebinding page cannot: an IP literal,
 * localhost, or one of the machine's own names. Only the forwarded `/svc/*` calls are held to it.
 */
export function hostAllowed(hostHeader: string | undefined, ownNames: readonly string[]): boolean {
  if (!hostHeader) return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(hostHeader.trim());
  if (!m) return false;
  const name = m[1].startsWith('[') ? m[1].slice(1, -1) : m[1].toLowerCase();
  if (isIP(name) !== 0) return true;
  return name === 'localhost' || ownNames.map((n) => n.toLowerCase()).includes(name);
}

export interface ExplorerOptions {
  host: string;
  port: number;
  upstream: () => Upstream;
  /** The generated document (built once, on first use). */
  document: () => Promise<OpenApiDocument>;
  log: Logger;
}

export class ExplorerServer {
  private server?: Server;
  private readonly proxy: ApiProxy;
  private readonly ownNames: string[];

  constructor(private readonly opts: ExplorerOptions) {
    this.proxy = new ApiProxy(opts.upstream, 'http');
    const h = hostname();
    this.ownNames = [h, `${h.split('.')[0]}.local`, h.split('.')[0]];
  }

  async listen(): Promise<number> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    const port = await listenOn(server, this.opts.port, this.opts.host);
    this.opts.log.warn({ port, host: this.opts.host }, 'API explorer listening (plain HTTP)');
    return port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await closeNow(server);
    this.opts.log.info('API explorer stopped');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (url === '/svc' || url.startsWith('/svc/') || url.startsWith('/svc?')) {
      if (!hostAllowed(req.headers.host, this.ownNames)) return sendError(res, 400, 'VALIDATION_ERROR', 'the explorer forwards API calls only when the Host is an IP address, localhost or this machine\'s name');
      return this.proxy.forward(req, res, url);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here`);
    const path = url.split('?')[0];
    if (path === '/' || path === '/index.html') return this.send(req, res, 'text/html; charset=utf-8', PAGE);
    if (path === '/explorer-init.js') return this.send(req, res, 'text/javascript; charset=utf-8', INIT);
    if (path === '/openapi.json') {
      try {
        const doc = await this.opts.document();
        const api = this.opts.upstream();
        const host = hostAllowed(req.headers.host, this.ownNames) ? (req.headers.host as string).replace(/:\d+$/, '') : 'localhost';
        const servers = [
          { url: '/', description: 'through this explorer (plain HTTP, forwarded to the HTTPS API)' },
          { url: `https://${host}:${api.port}`, description: 'the API itself (HTTPS, self-signed certificate)' },
        ];
        return this.send(req, res, 'application/json; charset=utf-8', JSON.stringify({ ...doc, servers }));
      } catch (err) {
        this.opts.log.error({ err: (err as Error).message }, 'generating the OpenAPI document failed');
        return sendError(res, 500, 'INTERNAL_ERROR', 'the OpenAPI document could not be generated');
      }
    }
    const file = path.slice(1);
    if (UI_FILES.includes(file)) return this.send(req, res, contentType(file), readFileSync(join(UI_DIR, file)));
    return sendError(res, 404, 'NOT_FOUND', 'no such page');
  }

  private send(req: IncomingMessage, res: ServerResponse, type: string, body: string | Buffer): void {
    res.writeHead(200, { ...HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
