/**
 * What the route schemas cannot say, for the OpenAPI document: each operation's error answers (the spec's
 * per-operation table, and docs/errors.md where the spec says "not shown"), success codes other than 200,
 * SSE and binary bodies, and the request bodies validated in handlers. Keyed by "METHOD url" as Fastify names routes.
 */
import { ERRORS, type ErrorCode } from '../errors/catalogue';
import { pipelineViewSchema } from '../pipeline/doc-schema';

export interface OperationDoc {
  /** Error codes beyond the common ones (401 where not public; 400 VALIDATION_ERROR; 413/415 with a body; 500). */
  errors?: ErrorCode[];
  /** The success answer when not 200 JSON. */
  success?: { status: number; content?: string; schema?: object };
  body?: object;
}

const pipelineErrors: ErrorCode[] = ['NOT_FOUND'];
const view = { status: 200, schema: pipelineViewSchema };
export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /svc/pipeline': { success: { status: 200, schema: { type: 'array', items: pipelineViewSchema } } },
  'POST /svc/pipeline': { errors: ['LICENSE_ERROR', 'LICENSE_LIMIT_EXCEEDED', 'PIPELINE_CONFLICT', 'PIPELINE_START_TIMEOUT'], success: { status: 201, schema: pipelineViewSchema } },
  'GET /svc/pipeline/:id': { errors: pipelineErrors, success: view },
  'GET /svc/pipeline/:id/status': { errors: pipelineErrors, success: view },
  'GET /svc/pipeline/:id/stats': { errors: pipelineErrors },
  'PUT /svc/pipeline/:id': { errors: ['NOT_FOUND', 'CONFLICT', 'ENGINE_UNAVAILABLE'], success: view },
  'PATCH /svc/pipeline/:id': { errors: ['FORMAT_ERROR', 'LICENSE_ERROR', 'NOT_FOUND', 'PIPELINE_CONFLICT', 'ENGINE_UNAVAILABLE', 'PIPELINE_START_TIMEOUT'], success: view },
  'DELETE /svc/pipeline/:id': { errors: ['NOT_FOUND', 'CONFLICT'], success: { status: 204 } },
  'PUT /svc/pipeline/:id/play': { errors: ['LICENSE_ERROR', 'LICENSE_LIMIT_EXCEEDED', 'NOT_FOUND', 'PIPELINE_CONFLICT', 'ENGINE_ERROR', 'ENGINE_UNAVAILABLE', 'PIPELINE_START_TIMEOUT'], success: view },
  'PUT /svc/pipeline/:id/stop': { errors: pipelineErrors, success: view },
  'GET /svc/pipeline/:id/status/events': { success: { status: 200, content: 'text/event-stream' } },
  'PUT /svc/pipeline/:id/framegrab/start': { errors: ['NOT_FOUND', 'PIPELINE_CONFLICT', 'ENGINE_UNAVAILABLE'], success: view },
  'PUT /svc/pipeline/:id/framegrab/stop': { errors: pipelineErrors, success: view },
  'PUT /svc/pipeline/:id/klv/start': { errors: ['NOT_FOUND', 'PIPELINE_CONFLICT'], success: view },
  'PUT /svc/pipeline/:id/klv/stop': { errors: pipelineErrors, success: view },
  'POST /svc/pipeline/:id/store': {
    errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_CONFLICT'],
    success: { status: 201, schema: pipelineViewSchema },
    body: { type: 'object', additionalProperties: false, properties: { auto_start: { type: 'boolean' }, description: { type: 'string', maxLength: 1024 } } },
  },
  'PATCH /svc/pipeline/:id/store': {
    errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_NOT_PERSISTED', 'PIPELINE_CONFLICT'],
    success: view,
    body: {
      type: 'object',
      description: '`auto_start`, `description`, or definition fields (merged one level deep into the stored copy)',
      properties: { auto_start: { type: 'boolean' }, description: { type: 'string', maxLength: 1024 } },
    },
  },
  'DELETE /svc/pipeline/:id/store': { errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_NOT_PERSISTED', 'PIPELINE_CONFLICT'], success: view },
  'GET /svc/pipeline/:id/sdp': { errors: pipelineErrors, success: { status: 200, content: 'application/sdp' } },
  'GET /svc/pipeline/:id/snapshot': { errors: ['NOT_FOUND', 'CONFLICT'], success: { status: 200, content: 'image/jpeg' } },
  'GET /svc/pipeline/:id/:served/:file': { errors: pipelineErrors, success: { status: 200, content: 'application/octet-stream' } },
  'GET /svc/camera': { errors: ['NOT_FOUND'] },
  'GET /svc/cameras/events': { success: { status: 200, content: 'text/event-stream' } },
  'GET /svc/events': { success: { status: 200, content: 'text/event-stream' } },
  'GET /svc/files/framegrabs/:file': { errors: ['NOT_FOUND'], success: { status: 200, content: 'image/jpeg' } },
  'DELETE /svc/files/framegrabs/:file': { errors: ['NOT_FOUND', 'RATE_LIMITED'], success: { status: 204 } },
  'DELETE /svc/files/framegrabs': { errors: ['RATE_LIMITED'] },
  'POST /svc/webhooks': {
    errors: ['WEBHOOK_LIMIT_REACHED'],
    body: {
      type: 'object', required: ['url', 'events'], additionalProperties: false,
      properties: {
        url: { type: 'string', maxLength: 2048, pattern: '^https?://' },
        events: { type: 'array', minItems: 1, items: { type: 'string', enum: ['pipeline.started', 'pipeline.stopped'] } },
        headers: { type: 'object', maxProperties: 10, additionalProperties: { type: 'string', maxLength: 4096 }, propertyNames: { maxLength: 128 } },
      },
    },
  },
  'DELETE /svc/webhooks/:id': { errors: ['NOT_FOUND'], success: { status: 204 } },
  'POST /svc/auth/login': {
    errors: ['RATE_LIMITED'],
    body: { type: 'object', required: ['password'], additionalProperties: false, properties: { password: { type: 'string' } } },
  },
  'POST /svc/auth/logout': { success: { status: 204 } },
  'PUT /svc/auth/password': {
    body: { type: 'object', required: ['password'], additionalProperties: false, properties: { password: { type: 'string', minLength: 12 } } },
  },
  'POST /svc/auth/keys': { success: { status: 201 } },
  'DELETE /svc/auth/keys/:id': { errors: ['NOT_FOUND'], success: { status: 204 } },
  'GET /svc/healthz': { errors: [] },
  'GET /svc/metrics': { success: { status: 200, content: 'text/plain' } },
};

const errorBody = (codes: ErrorCode[]) => ({
  type: 'object',
  required: ['message', 'code'],
  additionalProperties: false,
  properties: {
    message: { type: 'string' },
    code: { type: 'string', enum: codes },
    details: { type: 'object', required: ['errors'], properties: { errors: { type: 'array', items: { type: 'string' } } } },
  },
});

/** The response entries of one operation, status → @fastify/swagger response schema. */
export function responsesOf(key: string, opts: { isPublic: boolean; takesBody: boolean; own: Record<string, unknown> }): Record<string, unknown> {
  const doc = OPERATIONS[key] ?? {};
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'INTERNAL_ERROR', ...(doc.errors ?? [])];
  if (opts.takesBody) codes.push('UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERRORS[c].status, [...(byStatus.get(ERRORS[c].status) ?? []), c]);
  const out: Record<string, unknown> = {};
  const ownSuccess = Object.keys(opts.own).find((k) => k.startsWith('2'));
  const success = doc.success ?? { status: ownSuccess ? Number(ownSuccess) : 200 };
  const own = opts.own[String(success.status)] ?? opts.own['200'];
  if (success.status === 204) out['204'] = { description: 'No content', type: 'null' };
  else if (success.content) out[String(success.status)] = { description: 'Success', content: { [success.content]: { schema: { type: 'string' } } } };
  else if (success.schema) out[String(success.status)] = { description: 'Success', ...success.schema };
  else out[String(success.status)] = own ?? { description: 'Success', type: 'object', additionalProperties: true };
  if (key === 'GET /svc/healthz') out['503'] = { description: 'Starting or stopping', type: 'object', properties: { status: { type: 'string' } } };
  for (const [status, list] of byStatus) {
    const body = errorBody(list);
    if (status === 429) {
      out['429'] = {
        description: 'Too many requests (header Retry-After)', type: 'object', required: ['message', 'code', 'retry_after_seconds'], additionalProperties: false,
        properties: { message: { type: 'string' }, code: { type: 'string', enum: ['RATE_LIMITED'] }, retry_after_seconds: { type: 'integer' } },
      };
    } else if (key === 'POST /svc/auth/login' && status === 400) {
      out['400'] = { description: 'Invalid password, or an invalid body', oneOf: [body, { type: 'object', required: ['error'], properties: { error: { type: 'string' } } }] };
    } else out[String(status)] = { description: list.join(', '), ...body };
  }
  if (!opts.isPublic) out['401'] = { description: 'Authentication required', type: 'object', required: ['error'], properties: { error: { type: 'string', enum: ['Unauthorized'] } } };
  return out;
}
