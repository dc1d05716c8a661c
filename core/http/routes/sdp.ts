/**
 * GET /svc/pipeline/{id}/sdp: the session description of a pipeline's RTP output (UDP/TCP RTP bundle, or the
 * streams a local RTSP server offers), as application/sdp. The output plugin writes it (pure); the manager knows the
 * composed pipeline (a passed-through codec is known once probed), and this route serves the text. A pipeline whose
 * output is not RTP (MPEG-TS, a file) has none: 404 NOT_FOUND, like any other missing resource.
 */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/catalogue';
import type { PipelineManager } from '../../pipeline/manager';
import type { PluginRegistry } from '../../plugins/registry';

const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };

export function sdpRoutes(app: FastifyInstance, manager: PipelineManager, _registry: PluginRegistry): void {
  app.get('/svc/pipeline/:id/sdp', { schema: { params: idParams } }, async (req, reply) => {
    const { id } = req.params as { id: string };
    const sdp = manager.sdp(id);
    if (!sdp) throw new ApiError('NOT_FOUND', `pipeline "${id}" has no RTP output, so no session description`);
    return reply.type('application/sdp').send(sdp);
  });
}
