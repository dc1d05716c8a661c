/**
 * Framegrabs: start/stop on a pipeline (through the manager) and the files (docs/framegrabs.md). The two DELETEs
 * are rate-limited per client IP as the spec's Limits table says: 60 and 10 per minute.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, validationError } from '../../errors/catalogue';
import type { FramegrabStore } from '../../framegrabs/store';
import type { PipelineManager } from '../../pipeline/manager';
import { LIMITS, rateLimit, RateLimiter } from '../rate-limit';

const idParams = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const fileParams = { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] };

export const FRAMEGRAB_DEFAULTS = { interval_seconds: 5, quality: 85 } as const;

const startBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    interval_seconds: { type: 'integer', minimum: 1, maximum: 86400, default: FRAMEGRAB_DEFAULTS.interval_seconds },
    quality: { type: 'integer', minimum: 1, maximum: 100, default: FRAMEGRAB_DEFAULTS.quality },
  },
};

const record = {
  type: 'object',
  properties: {
    file: { type: 'string' }, pipeline_id: { type: 'string' }, size: { type: 'integer' }, created_at: { type: 'string' }, url: { type: 'string' },
  },
};

function notFound(file: string): ApiError {
  return new ApiError('NOT_FOUND', `framegrab "${file}" not found`);
}

export function framegrabRoutes(app: FastifyInstance, manager: PipelineManager, store: FramegrabStore, keyOf: (req: FastifyRequest) => string): void {
  app.put('/svc/pipeline/:id/framegrab/start', {
    schema: { params: idParams, body: startBody },
    // Before validation: Ajv's type coercion would turn 0, false and "" into null. Only no body, null or an object.
    preValidation: async (req) => {
      if (req.body !== undefined && req.body !== null && (typeof req.body !== 'object' || Array.isArray(req.body))) {
        throw validationError(['body must be an object (or empty)']);
      }
    },
  }, async (req) => {
    const body = { ...FRAMEGRAB_DEFAULTS, ...(req.body as { interval_seconds?: number; quality?: number } | null) };
    return manager.features.framegrabStart((req.params as { id: string }).id, body);
  });
  app.put('/svc/pipeline/:id/framegrab/stop', { schema: { params: idParams } }, async (req) => manager.features.framegrabStop((req.params as { id: string }).id));

  app.get('/svc/files/framegrabs', {
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { pipeline_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } } },
      response: { 200: { type: 'array', items: record } },
    },
  }, async (req) => store.list((req.query as { pipeline_id?: string }).pipeline_id));

  app.get('/svc/files/framegrabs/:file', { schema: { params: fileParams } }, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    const jpeg = store.read(file);
    if (!jpeg) throw notFound(file);
    return reply.type('image/jpeg').header('cache-control', 'no-store').send(jpeg);
  });

  const one = new RateLimiter(LIMITS.framegrabDeleteFile);
  app.delete('/svc/files/framegrabs/:file', { schema: { params: fileParams }, preHandler: rateLimit(one, keyOf) }, async (req, reply) => {
    const file = (req.params as { file: string }).file;
    if (!store.delete(file)) throw notFound(file);
    return reply.code(204).send();
  });

  const all = new RateLimiter(LIMITS.framegrabDeleteByPipeline);
  app.delete('/svc/files/framegrabs', {
    schema: {
      querystring: {
        type: 'object', additionalProperties: false, required: ['pipeline_id'],
        properties: { pipeline_id: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } },
      },
      response: { 200: { type: 'object', properties: { pipeline_id: { type: 'string' }, deleted: { type: 'integer' } } } },
    },
    preHandler: rateLimit(all, keyOf),
  }, async (req) => {
    const pipelineId = (req.query as { pipeline_id: string }).pipeline_id;
    return { pipeline_id: pipelineId, deleted: store.deleteAll(pipelineId) };
  });
}

export function klvRoutes(app: FastifyInstance, manager: PipelineManager): void {
  app.put('/svc/pipeline/:id/klv/start', { schema: { params: idParams } }, async (req) => manager.features.klvStart((req.params as { id: string }).id));
  app.put('/svc/pipeline/:id/klv/stop', { schema: { params: idParams } }, async (req) => manager.features.klvStop((req.params as { id: string }).id));
}
