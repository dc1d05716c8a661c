/** /svc/pipeline routes: thin translations between HTTP and the pipeline manager. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PipelineEvents } from '../../events/pipeline-events';
import type { PipelineFilter, PipelineManager } from '../../pipeline/manager';
import { openSse } from '../sse';

const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const pipelineObject = { type: 'object', additionalProperties: true };

/**
 * Pipeline bodies are validated by the manager's validator (messages that name the field, FORMAT_ERROR versus
 * VALIDATION_ERROR on patch); their schemas are declared on the routes for the OpenAPI document only.
 */
const documentedOnly = { validatorCompiler: () => () => true };

/** Sends JSON text the manager keeps between changes (core/pipeline/view-json.ts): Fastify sends a string as it is. */
function json(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}

export function pipelineRoutes(app: FastifyInstance, manager: PipelineManager, events: PipelineEvents, keepaliveMs?: number): void {
  const { body, patch } = manager.validator.schemas;
  app.post('/svc/pipeline', { schema: { body, response: { 201: pipelineObject } }, ...documentedOnly }, async (req, reply) => {
    const view = await manager.create(req.body);
    return reply.code(201).send(view);
  });

  app.get('/svc/pipeline', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          mode: { type: 'string', enum: ['simple', 'multiview', 'advanced'] },
          on_demand: { type: 'boolean' },
          state: { type: 'string', enum: ['ready', 'playing'] },
        },
      },
    },
  }, async (req, reply) => json(reply, manager.listJson(req.query as PipelineFilter)));

  app.get('/svc/pipeline/:id', { schema: { params: idParams } }, async (req, reply) => json(reply, manager.getJson((req.params as { id: string }).id)));
  app.get('/svc/pipeline/:id/status', { schema: { params: idParams } }, async (req, reply) => json(reply, manager.getJson((req.params as { id: string }).id)));

  app.put('/svc/pipeline/:id', { schema: { params: idParams, body }, ...documentedOnly }, async (req) => manager.update((req.params as { id: string }).id, req.body));
  app.patch('/svc/pipeline/:id', { schema: { params: idParams, body: patch }, ...documentedOnly }, async (req) => manager.patch((req.params as { id: string }).id, req.body));

  app.delete('/svc/pipeline/:id', {
    schema: { params: idParams, querystring: { type: 'object', properties: { delete_persisted: { type: 'boolean', default: false } } } },
  }, async (req, reply) => {
    const q = req.query as { delete_persisted: boolean };
    await manager.delete((req.params as { id: string }).id, q.delete_persisted);
    return reply.code(204).send();
  });

  app.put('/svc/pipeline/:id/play', { schema: { params: idParams } }, async (req) => manager.play((req.params as { id: string }).id, 'api'));
  app.put('/svc/pipeline/:id/stop', { schema: { params: idParams } }, async (req) => manager.stop((req.params as { id: string }).id));

  app.post('/svc/pipeline/:id/store', { schema: { params: idParams } }, async (req, reply) => {
    const view = await manager.storage.create((req.params as { id: string }).id, req.body);
    return reply.code(201).send(view);
  });
  app.patch('/svc/pipeline/:id/store', { schema: { params: idParams } }, async (req) => manager.storage.patch((req.params as { id: string }).id, req.body));
  app.delete('/svc/pipeline/:id/store', { schema: { params: idParams } }, async (req) => manager.storage.delete((req.params as { id: string }).id));

  app.get('/svc/pipeline/:id/stats', { schema: { params: idParams } }, async (req) => manager.stats((req.params as { id: string }).id));

  app.get('/svc/pipeline/:id/status/events', {
    schema: {
      params: idParams,
      // stats=true adds a pipeline_stats event once a second; without it the stream carries exactly the spec's events.
      querystring: { type: 'object', properties: { stats: { type: 'boolean', default: false } } },
    },
  }, async (req, reply) => {
    const id = (req.params as { id: string }).id;
    const withStats = (req.query as { stats?: boolean }).stats === true;
    const sse = openSse(req, reply, keepaliveMs);
    if (!manager.has(id)) {
      sse.send('pipeline_not_found', { pipeline_id: id });
      sse.close();
      return;
    }
    sse.send('pipeline_status', manager.get(id));
    const unsubscribe = events.subscribe((ev) => {
      if (ev.id !== id) return;
      if (ev.type === 'status') sse.send('pipeline_status', ev.pipeline);
      else if (ev.type === 'error') sse.send('pipeline_error', { message: ev.message });
      else if (ev.type === 'klv') sse.send('klv', ev.data);
      else if (ev.type === 'stats') {
        if (withStats) sse.send('pipeline_stats', { pipeline_id: id, ...ev.stats });
      }
      else if (ev.type === 'deleted') {
        sse.send('pipeline_not_found', { pipeline_id: id });
        sse.close();
      }
    });
    sse.onClose(unsubscribe);
  });
}
