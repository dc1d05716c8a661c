/** GET /svc/pipeline/{id}/snapshot: the current picture of a playing pipeline (core/framegrabs/snapshots.ts). */
import type { FastifyInstance } from 'fastify';
import type { PipelineManager } from '../../pipeline/manager';

const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

export function snapshotRoutes(app: FastifyInstance, manager: PipelineManager): void {
  app.get('/svc/pipeline/:id/snapshot', {
    schema: { params: idParams, response: { 200: { description: 'The current picture, image/jpeg', type: 'string', format: 'binary' } } },
  }, async (req, reply) => {
    const jpeg = await manager.features.snapshot((req.params as { id: string }).id);
    // A picture a second: a client refreshing a thumbnail must never see yesterday's from a cache.
    return reply.type('image/jpeg').header('cache-control', 'no-store').send(Buffer.from(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength));
  });
}
