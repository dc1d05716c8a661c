/**
 * The operator web UI on its own HTTPS port (8443 by default, 0 = off): the SPA's files from web/, and `/api/*`
 * reverse-proxied to `/svc/*` of the API. It has no state and no rules of its own — authentication, limits and
 * errors are the API's, answered through the proxy as the API gave them (docs/web.md).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { closeNow, listenOn } from '../http/listen';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { projectRoot } from '../paths';
import { ApiProxy, type Upstream } from './proxy';
import { resolveVendorPath, sendError, sendFile, sendStatic } from './static-files';

export const WEB_ROOT = join(projectRoot, 'web');

export interface WebServerOptions {
  host: string;
  port: number;
  tls: { cert: Buffer; key: Buffer };
  upstream: () => Upstream;
  log: Logger;
  root?: string;
}

/** Pure: the API path an `/api` request maps to, or null when the request is for the SPA. */
export function apiPathOf(url: string): string | null {
  if (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) return `/svc${url.slice(4)}`;
  return null;
}

export class WebServer {
  private server?: Server;
  private readonly proxy: ApiProxy;

  constructor(private readonly opts: WebServerOptions) {
    this.proxy = new ApiProxy(opts.upstream, 'https');
  }

  /** Starts listening; resolves with the bound port. */
  async listen(): Promise<number> {
    const server = createServer({ cert: this.opts.tls.cert, key: this.opts.tls.key }, (req, res) => this.handle(req, res));
    this.server = server;
    const port = await listenOn(server, this.opts.port, this.opts.host);
    this.opts.log.info({ port, host: this.opts.host }, 'web UI listening');
    return port;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.proxy.close();
    if (!server) return;
    await closeNow(server);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const apiPath = apiPathOf(url);
    if (apiPath !== null) return this.proxy.forward(req, res, apiPath);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${req.method} is not allowed here`);
    }
    const vendor = resolveVendorPath(projectRoot, url);
    const sent = vendor ? sendFile(vendor, req, res) : sendStatic(this.opts.root ?? WEB_ROOT, req, res);
    if (!sent) sendError(res, 404, 'NOT_FOUND', 'no such file');
  }
}
