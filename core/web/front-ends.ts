/**
 * The two browser-facing front ends beside the API: the web UI (HTTPS, --web-port, 0 = off) and the API
 * explorer (plain HTTP, --explorer-port AND the setting explorer_enabled). Both reach the API through the same
 * pinned loopback proxy; both start after the API listens and stop before it closes.
 */
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Config } from '../config/schema';
import { ExplorerServer } from '../explorer/explorer-server';
import { ExplorerSwitch } from '../explorer/explorer-switch';
import { generateOpenApi, type OpenApiDocument } from '../explorer/openapi';
import type { RouteCatalogue } from '../explorer/route-catalogue';
import type { SettingsService } from '../settings';
import { apiAddress, fingerprintOf, type Upstream } from './proxy';
import { WebServer } from './web-server';

export interface FrontEndDeps {
  config: Readonly<Config>;
  app: FastifyInstance;
  tls: { cert: Buffer; key: Buffer };
  settings: SettingsService;
  routes: RouteCatalogue;
  version: string;
  log: Logger;
}

export interface FrontEnds {
  listen(): Promise<void>;
  close(): Promise<void>;
}

export function createFrontEnds(deps: FrontEndDeps): FrontEnds {
  const { config, app, log } = deps;
  const fingerprint256 = fingerprintOf(deps.tls.cert);
  const host = apiAddress(config.host);
  if (!config.trustedProxies.includes(host)) {
    log.warn({ host }, 'the web UI reaches the API from an address that is not in trustedProxies: every client will look like the proxy');
  }
  const upstream = (): Upstream => ({ host, port: (app.server.address() as AddressInfo).port, fingerprint256 });
  const web = config.webPort > 0
    ? new WebServer({ host: config.host, port: config.webPort, tls: deps.tls, upstream, log: log.child({ component: 'web' }) })
    : undefined;
  let document: Promise<OpenApiDocument> | undefined;
  const explorer = new ExplorerSwitch(config.explorerPort, () => new ExplorerServer({
    host: config.host,
    port: config.explorerPort,
    upstream,
    // The routes are all declared by the time anyone asks; generated once.
    document: () => (document ??= generateOpenApi(deps.routes.routes(), deps.version)),
    log: log.child({ component: 'explorer' }),
  }), log.child({ component: 'explorer' }));
  let listening = false;
  deps.settings.onChange((now, before) => {
    if (listening && now.explorer_enabled !== before.explorer_enabled) void explorer.apply(now.explorer_enabled);
  });

  return {
    async listen() {
      await web?.listen();
      listening = true;
      await explorer.apply(deps.settings.get().explorer_enabled);
    },
    async close() {
      listening = false;
      await explorer.close();
      await web?.close();
    },
  };
}
