/** Public health and version endpoints (shapes from design §5). */
import type { FastifyInstance } from 'fastify';
import type { PipelineManager } from '../../pipeline/manager';
import type { PluginRegistry } from '../../plugins/registry';

export interface HealthDeps {
  manager: PipelineManager;
  registry: PluginRegistry;
  version: string;
  gstreamer: () => string;
  startedAt: number;
  /** 'starting' until stored pipelines are restored, 'stopping' after SIGTERM. */
  phase: () => 'starting' | 'ready' | 'stopping';
}

export function healthRoutes(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/svc/health', async () => {
    const counts = deps.manager.counts();
    return {
      status: deps.phase() === 'ready' ? 'ok' : deps.phase(),
      engine: { status: 'ok', gstreamer: deps.gstreamer(), pipelines: counts.pipelines, playing: counts.playing, hosts: counts.hosts },
      // How many pipelines are in each health (docs/api.md, "Statistics and health").
      pipelines: counts.health,
      uptime_s: Math.round((Date.now() - deps.startedAt) / 1000),
    };
  });

  app.get('/svc/healthz', async (_req, reply) => {
    // Ready means stored pipelines are back (auto_start ones playing): orchestrators wait for that.
    if (deps.phase() !== 'ready') return reply.code(503).send({ status: deps.phase() });
    return { status: 'ok' };
  });

  app.get('/svc/version', async () => ({
    service: 'encoderd',
    version: deps.version,
    api_version: '1',
    gstreamer: deps.gstreamer(),
    node: process.version,
    plugins: deps.registry.summary().map(({ name, kind, version, origin }) => ({ name, kind, version, origin })),
  }));
}
