/**
 * Wires the service: config → logger → store → plugins → manager → HTTPS server. Production wiring lives here
 * and only here; tests build the same service with another config (or swap a seam in the container).
 */
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { builtinPlugins } from '../plugins';
import { ApiKeys } from './auth/api-keys';
import { AuthService } from './auth/auth-service';
import { authGuard } from './auth/guard';
import { Sessions } from './auth/sessions';
import { loadOrCreateTokenKey } from './auth/token-key';
import type { Config } from './config/schema';
import { engineHosts, PRLIMIT, type EngineHostFactory } from './engine/host-process';
import { loadNative } from './engine/native';
import { createDevices } from './devices';
import { PipelineEvents } from './events/pipeline-events';
import { apiKeyRoutes } from './http/routes/api-keys';
import { authRoutes } from './http/routes/auth';
import { deviceRoutes } from './http/routes/devices';
import { eventRoutes } from './http/routes/events';
import { snapshotRoutes } from './http/routes/snapshot';
import { healthRoutes } from './http/routes/health';
import { licenceRoutes } from './http/routes/licence';
import { metricsRoutes } from './http/routes/metrics';
import { pipelineRoutes } from './http/routes/pipelines';
import { framegrabRoutes, klvRoutes } from './http/routes/framegrabs';
import { clientIp } from './http/client-ip';
import { FramegrabStore } from './framegrabs/store';
import { sdpRoutes } from './http/routes/sdp';
import { servedFileRoutes } from './http/routes/served-files';
import { settingsRoutes } from './http/routes/settings';
import { webhookRoutes } from './http/routes/webhooks';
import { buildServer } from './http/server';
import { RouteCatalogue } from './explorer/route-catalogue';
import { createFrontEnds } from './web/front-ends';
import { loadOrCreateTls } from './http/tls';
import { unrestricted, type LicenceGate } from './licence/gate';
import { loadLicence } from './licence/licence';
import { createLogger } from './log/logger';
import { createServiceMetrics } from './metrics/service-metrics';
import { nativeEngineHost, projectRoot } from './paths';
import { PipelineManager } from './pipeline/manager';
import { loadVendorPlugins } from './plugins/loader';
import { PluginRegistry } from './plugins/registry';
import { defaultSettings, SETTINGS_TOKEN, SettingsService } from './settings';
import { JsonStore, type Store } from './store/json-store';
import { TOKENS } from './tokens';
import { WebhookDispatcher } from './webhooks/dispatcher';
import { WebhookRegistry } from './webhooks/registry';
import { CredentialSealingStore } from './secrets/sealed-credentials';
import { hasUriSecrets } from './secrets/uri-secrets';
import { SecretBox } from './secrets/secret-box';

/** How often the API process hands glibc's free pages back to the system (malloc_trim; engine hosts trim after teardowns). */
const API_TRIM_INTERVAL_MS = 60_000;
/**
 * Every how many trims V8 is asked to give back its heap's free pages first (LowMemoryNotification: a full,
 * compacting collection, 10–20 ms on the API's heap, and the bytecode of idle functions compiled again when next used).
 */
const API_V8_RECLAIM_EVERY = 5;

export const VERSION: string = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

export interface Service {
  app: FastifyInstance;
  manager: PipelineManager;
  container: DependencyContainer;
  log: Logger;
  /** Starts listening and restores stored pipelines. */
  listen(): Promise<void>;
  /** Stops every pipeline cleanly (files finalised) and closes the server. */
  close(): Promise<void>;
}

let gstVersionCache: string | undefined;
function gstVersion(): string {
  gstVersionCache ??= loadNative().gstVersion();
  return gstVersionCache;
}

export function createService(config: Readonly<Config>, overrides: { hosts?: EngineHostFactory; logger?: Logger } = {}): Service {
  const container = rootContainer.createChildContainer();
  const log = overrides.logger ?? createLogger(config.logLevel);
  container.register(TOKENS.Config, { useValue: config });
  container.register(TOKENS.Logger, { useValue: log });
  container.register(TOKENS.Store, { useValue: new JsonStore(config.dataDir) });
  const registry = new PluginRegistry();
  for (const plugin of builtinPlugins) registry.register(plugin, 'builtin');
  for (const { plugin, dir } of config.pluginsDir ? loadVendorPlugins(config.pluginsDir) : []) {
    registry.register(plugin, 'vendor');
    log.info({ plugin: plugin.name, kind: plugin.kind, version: plugin.version, dir }, 'vendor plugin loaded');
  }
  container.register(TOKENS.PluginRegistry, { useValue: registry });
  // At startup, not at the first create: a tree without the executable (a deployed one carries prebuilt addons only).
  if (config.engineHost === 'native' && !overrides.hosts && !existsSync(nativeEngineHost)) {
    throw new Error(`engineHost native: ${nativeEngineHost} is missing (node scripts/build-native.mjs builds it; `
      + 'a deployed tree takes it from native/prebuilds, made by npm run native:prebuild)');
  }
  if (config.hostMemoryMaxMb && !PRLIMIT) log.warn('prlimit (util-linux) is not installed: engine hosts run without a memory ceiling');
  // A test's own factory has no spare: it counts what it is asked for.
  const hosts = engineHosts({
    memoryMaxBytes: config.hostMemoryMaxMb * 1024 * 1024, startTimeoutMs: config.hostStartTimeoutMs, kind: config.engineHost,
    spare: config.spareEngineHost && !overrides.hosts
      ? { retryBaseMs: config.restartBackoffBaseMs, retryMaxMs: config.restartBackoffMaxMs, log: log.child({ component: 'spare-host' }) }
      : undefined,
  });
  container.register(TOKENS.EngineHostFactory, { useValue: overrides.hosts ?? hosts.factory });
  container.register(TOKENS.PipelineEvents, { useValue: new PipelineEvents() });
  // No --licence at all is the unrestricted default; a configured one that fails to verify grants nothing.
  const licence = config.licence ? loadLicence(config.licence, config.licenceKey) : unrestricted;
  const licenceProblem = licence.problem?.();
  if (licenceProblem) log.error({ licence: config.licence }, `${licenceProblem}: nothing will encode`);
  container.register(TOKENS.LicenceGate, { useValue: licence });
  const settings = new SettingsService(container.resolve<Store>(TOKENS.Store), log.child({ component: 'settings' }), defaultSettings(config.logLevel));
  container.register(SETTINGS_TOKEN, { useValue: settings });
  // The settings apply without a restart: the log level at once (pino children follow their parent), the RTSP
  // latency at the next pipeline start (the manager reads it through the function below).
  log.level = settings.get().log_level;
  settings.onChange((now) => { log.level = now.log_level; });
  // Each pipeline's own output directory is made here (ComposeContext.outputDir); an output plugin's `serves` reads it.
  const outputsDir = join(config.dataDir, 'outputs');
  const framegrabs = new FramegrabStore(config.dataDir, () => settings.get().framegrab_retention);
  settings.onChange((now, before) => { if (now.framegrab_retention < before.framegrab_retention) framegrabs.pruneAll(); });
  container.register(TOKENS.PipelineManager, {
    useFactory: (c) => new PipelineManager(
      c.resolve<PluginRegistry>(TOKENS.PluginRegistry),
      c.resolve<EngineHostFactory>(TOKENS.EngineHostFactory),
      c.resolve<PipelineEvents>(TOKENS.PipelineEvents),
      // Stored pipelines may carry camera credentials and plugins' URI secrets (stream keys): sealed at rest.
      new CredentialSealingStore(c.resolve<Store>(TOKENS.Store), SecretBox.open(config.dataDir, 'stored-credentials.key'),
        hasUriSecrets(c.resolve<PluginRegistry>(TOKENS.PluginRegistry))),
      c.resolve<LicenceGate>(TOKENS.LicenceGate),
      log.child({ component: 'manager' }),
      {
        startTimeoutMs: config.startTimeoutMs,
        stopTimeoutMs: config.stopTimeoutMs,
        rtspLatencyMs: () => settings.get().rtsp_latency_ms,
        restartBaseMs: config.restartBackoffBaseMs,
        restartMaxMs: config.restartBackoffMaxMs,
        outputsDir,
        maxTotalPixelRate: config.maxTotalPixelRate,
      },
      framegrabs,
    ),
  });
  const manager = container.resolve<PipelineManager>(TOKENS.PipelineManager);
  const events = container.resolve<PipelineEvents>(TOKENS.PipelineEvents);

  const tls = loadOrCreateTls(config.dataDir, config.tlsCert, config.tlsKey);
  const app = buildServer({ logger: log, bodyLimit: config.bodyLimit, https: tls });
  // Before the first route: the explorer's OpenAPI document is generated from every route's schema.
  const routes = RouteCatalogue.attach(app);
  const store = container.resolve<Store>(TOKENS.Store);
  const auth = new AuthService(store, new Sessions(store, loadOrCreateTokenKey(config.dataDir, log)), new ApiKeys(store), log.child({ component: 'auth' }));
  // Registered before every route: the gate covers all of them, SSE streams included.
  app.addHook('onRequest', authGuard(auth));
  const metrics = createServiceMetrics(app, () => manager.metricsRows());
  authRoutes(app, { auth, trustedProxies: config.trustedProxies });
  apiKeyRoutes(app, auth);
  let phase: 'starting' | 'ready' | 'stopping' = 'starting';
  healthRoutes(app, { manager, registry, version: VERSION, gstreamer: gstVersion, startedAt: Date.now(), phase: () => phase });
  licenceRoutes(app, licence);
  metricsRoutes(app, metrics.registry);
  pipelineRoutes(app, manager, events, config.sseKeepaliveMs);
  framegrabRoutes(app, manager, framegrabs, (req) => clientIp(req, config.trustedProxies));
  klvRoutes(app, manager);
  sdpRoutes(app, manager, registry);
  servedFileRoutes(app, manager, registry, outputsDir);
  settingsRoutes(app, settings);
  const webhooks = new WebhookRegistry(store, SecretBox.open(config.dataDir), log.child({ component: 'webhooks' }));
  const dispatcher = new WebhookDispatcher(webhooks, log.child({ component: 'webhooks' }));
  dispatcher.attach(events);
  dispatcher.onDelivery(metrics.webhookDelivered);
  webhookRoutes(app, webhooks);
  const devices = createDevices({ native: loadNative, procAsoundRoot: resolve(config.procAsoundRoot), log: log.child({ component: 'devices' }) });
  metrics.cameraEventsDroppedFrom(() => devices.cameras.droppedEvents());
  deviceRoutes(app, devices, manager, registry.deviceFormatNames());
  eventRoutes(app, { manager, events, devices, keepaliveMs: config.sseKeepaliveMs });
  snapshotRoutes(app, manager);

  const frontEnds = createFrontEnds({ config, app, tls, settings, routes, version: VERSION, log });
  let reclaimTimer: NodeJS.Timeout | null = null;

  return {
    app,
    manager,
    container,
    log,
    async listen() {
      await app.listen({ port: config.port, host: config.host });
      await frontEnds.listen();
      devices.start();
      // Before the restore: the first stored pipeline to start takes it.
      hosts.start();
      await manager.restore();
      // V8 keeps the pages its heap grew into and glibc what the API's threads freed (heap snapshots over soaks
      // found no retained objects, while the RSS crept): docs/operations.md, "Memory over weeks".
      let trims = 0;
      reclaimTimer = setInterval(() => {
        const native = loadNative();
        if (++trims % API_V8_RECLAIM_EVERY === 0) native.v8LowMemory();
        native.mallocTrim();
      }, API_TRIM_INTERVAL_MS);
      reclaimTimer.unref();
      phase = 'ready';
    },
    async close() {
      phase = 'stopping';
      if (reclaimTimer) clearInterval(reclaimTimer);
      await Promise.all([manager.shutdown(), hosts.close()]);
      devices.stop();
      // pipeline.stopped for the pipelines just stopped still goes out (each delivery ends within 5 s).
      await dispatcher.settle();
      await frontEnds.close();
      await app.close();
    },
  };
}
