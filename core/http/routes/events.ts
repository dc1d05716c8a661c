/**
 * GET /svc/events: one stream for a whole console (docs/api.md, "Event stream"). Every pipeline's pipeline_status,
 * pipeline_error and pipeline_not_found, pipeline_stats on request (?stats=true), and the camera events, each
 * pipeline event carrying its pipeline id. On connect it sends the current pipeline_status of every pipeline and a
 * camera_added for every camera, so a client needs no GET besides it and no change falls between the two.
 */
import type { FastifyInstance } from 'fastify';
import type { Devices } from '../../devices';
import type { PipelineEvents } from '../../events/pipeline-events';
import type { PipelineManager } from '../../pipeline/manager';
import { openSse } from '../sse';

export function eventRoutes(app: FastifyInstance, deps: { manager: PipelineManager; events: PipelineEvents; devices: Devices; keepaliveMs?: number }): void {
  const { manager, events, devices } = deps;
  app.get('/svc/events', {
    schema: { querystring: { type: 'object', properties: { stats: { type: 'boolean', default: false } } } },
  }, async (req, reply) => {
    const withStats = (req.query as { stats?: boolean }).stats === true;
    const sse = openSse(req, reply, deps.keepaliveMs);
    // Subscribed and replayed in the same tick: nothing can happen between the snapshot and the stream.
    const offPipelines = events.subscribe((ev) => {
      if (ev.type === 'status') sse.send('pipeline_status', ev.pipeline);
      else if (ev.type === 'error') sse.send('pipeline_error', { pipeline_id: ev.id, message: ev.message });
      else if (ev.type === 'deleted') sse.send('pipeline_not_found', { pipeline_id: ev.id });
      else if (ev.type === 'stats' && withStats) sse.send('pipeline_stats', { pipeline_id: ev.id, ...ev.stats });
    });
    const offCameras = devices.cameras.subscribe((c) => {
      if (c.type === 'added') sse.send('camera_added', { device_path: c.device.path, device_name: c.device.name });
      else sse.send('camera_removed', { device_path: c.device_path });
    });
    sse.onClose(() => {
      offPipelines();
      offCameras();
    });
    for (const view of manager.list()) sse.send('pipeline_status', view);
    for (const d of devices.cameras.list()) sse.send('camera_added', { device_path: d.path, device_name: d.name });
  });
}
