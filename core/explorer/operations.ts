/**
 * What the route schemas cannot say, for the OpenAPI document: each operation's error answers (the spec's
 * per-operation table, and docs/errors.md where the spec says "not shown"), success codes other than 200,
 * SSE and binary bodies, the request bodies validated in handlers, and named request examples (each valid
 * against its body: test/web/openapi.test.ts). Keyed by "METHOD url" as Fastify names routes.
 */
import { ERRORS, type ErrorCode } from '../errors/catalogue';
import { pipelineViewSchema } from '../pipeline/doc-schema';

export interface RequestExample {
  summary: string;
  value: unknown;
}

export interface OperationDoc {
  /**
   * Error codes beyond the ones every operation can answer (VALIDATION_ERROR, INTERNAL_ERROR, ENGINE_UNAVAILABLE while
   * the service shuts down; NOT_FOUND with a path parameter; 401 unless public; 413/415 for a method that takes a body).
   */
  errors?: ErrorCode[];
  /** The success answer when not 200 JSON. */
  success?: { status: number; content?: string; schema?: object };
  body?: object;
  /** The body may be left out (every field has a default): the document says so (`requestBody.required: false`). */
  bodyOptional?: boolean;
  /** Named request examples, shown beside the body (media type `examples`). */
  examples?: Record<string, RequestExample>;
}

const pipelineErrors: ErrorCode[] = ['NOT_FOUND'];
const view = { status: 200, schema: pipelineViewSchema };
const authState = { status: 200, schema: { type: 'object', required: ['auth_enabled'], additionalProperties: false, properties: { auth_enabled: { type: 'boolean' } } } };
const storeMeta = { auto_start: { type: 'boolean' }, description: { type: 'string', maxLength: 1024 } };

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
  'PUT /svc/pipeline/:id/framegrab/start': {
    errors: ['NOT_FOUND', 'PIPELINE_CONFLICT', 'ENGINE_UNAVAILABLE'],
    success: view,
    bodyOptional: true,
    examples: {
      every10s: { summary: 'A framegrab every 10 s at JPEG quality 80', value: { interval_seconds: 10, quality: 80 } },
      defaults: { summary: 'The defaults (every 5 s, quality 85); an empty body means the same', value: {} },
    },
  },
  'PUT /svc/pipeline/:id/framegrab/stop': { errors: pipelineErrors, success: view },
  'PUT /svc/pipeline/:id/klv/start': { errors: ['NOT_FOUND', 'PIPELINE_CONFLICT'], success: view },
  'PUT /svc/pipeline/:id/klv/stop': { errors: pipelineErrors, success: view },
  'POST /svc/pipeline/:id/store': {
    errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_CONFLICT', 'INSUFFICIENT_STORAGE'],
    success: { status: 201, schema: pipelineViewSchema },
    body: { type: 'object', additionalProperties: false, properties: storeMeta },
    bodyOptional: true,
    examples: { autoStart: { summary: 'Store it and start it when the service starts', value: { auto_start: true, description: 'Front door camera to the control room' } } },
  },
  'PATCH /svc/pipeline/:id/store': {
    errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_NOT_PERSISTED', 'PIPELINE_CONFLICT', 'INSUFFICIENT_STORAGE'],
    success: view,
    body: {
      type: 'object',
      description: '`auto_start`, `description`, or definition fields (merged one level deep into the stored copy, which is then validated as a whole)',
      properties: storeMeta,
    },
    examples: {
      metadata: { summary: 'No longer start it with the service', value: { auto_start: false } },
      definition: { summary: 'A definition field: the stored copy\'s bitrate (the active pipeline is unchanged)', value: { encoding: { bitrate: 1500 } } },
    },
  },
  'DELETE /svc/pipeline/:id/store': { errors: ['PIPELINE_NOT_FOUND', 'PIPELINE_NOT_PERSISTED', 'PIPELINE_CONFLICT'], success: view },
  'GET /svc/pipeline/:id/sdp': { errors: pipelineErrors, success: { status: 200, content: 'application/sdp' } },
  'GET /svc/pipeline/:id/snapshot': { errors: ['NOT_FOUND', 'CONFLICT'], success: { status: 200, content: 'image/jpeg' } },
  // The file's own type (a playlist, a segment, …): the output plugin that serves it decides.
  'GET /svc/pipeline/:id/:served/:file': { errors: pipelineErrors, success: { status: 200, content: '*/*' } },
  'GET /svc/camera': { errors: ['NOT_FOUND'] },
  'GET /svc/cameras/events': { success: { status: 200, content: 'text/event-stream' } },
  'GET /svc/events': { success: { status: 200, content: 'text/event-stream' } },
  'GET /svc/files/framegrabs/:file': { errors: ['NOT_FOUND'], success: { status: 200, content: 'image/jpeg' } },
  'DELETE /svc/files/framegrabs/:file': { errors: ['NOT_FOUND', 'RATE_LIMITED'], success: { status: 204 } },
  'DELETE /svc/files/framegrabs': { errors: ['RATE_LIMITED'] },
  'PUT /svc/settings': {
    errors: ['INSUFFICIENT_STORAGE'],
    examples: {
      rename: { summary: 'Rename the appliance', value: { device_name: 'encoder-north-gate' } },
      several: { summary: 'Several fields at once (the others keep their values)', value: { framegrab_retention: 500, rtsp_latency_ms: 400, log_level: 'debug' } },
    },
  },
  'POST /svc/webhooks': {
    errors: ['WEBHOOK_LIMIT_REACHED', 'INSUFFICIENT_STORAGE'],
    success: { status: 201 },
    examples: {
      both: { summary: 'Both events, with a secret header', value: { url: 'https://ops.example.com/hooks/encoder', events: ['pipeline.started', 'pipeline.stopped'], headers: { 'X-Hook-Secret': 's3cr3t' } } },
      started: { summary: 'Starts only', value: { url: 'http://10.0.0.5:8080/started', events: ['pipeline.started'] } },
    },
  },
  'DELETE /svc/webhooks/:id': { errors: ['NOT_FOUND'], success: { status: 204 } },
  'POST /svc/auth/login': {
    // A login writes the new session (a full data dir refuses it rather than hand out a token that a restart forgets).
    errors: ['RATE_LIMITED', 'INSUFFICIENT_STORAGE'],
    success: {
      status: 200,
      schema: { type: 'object', required: ['token', 'expires_at'], additionalProperties: false, properties: { token: { type: 'string' }, expires_at: { type: 'string' } } },
    },
    examples: { login: { summary: 'Log in', value: { password: 'correct horse battery' } } },
  },
  'POST /svc/auth/logout': { errors: ['INSUFFICIENT_STORAGE'], success: { status: 204 } },
  'PUT /svc/auth/password': {
    errors: ['INSUFFICIENT_STORAGE'],
    success: authState,
    examples: { set: { summary: 'Set (or change) the password: at least 12 characters', value: { password: 'correct horse battery' } } },
  },
  'DELETE /svc/auth/password': { errors: ['INSUFFICIENT_STORAGE'], success: authState },
  'GET /svc/auth/status': { success: authState },
  'POST /svc/auth/keys': {
    errors: ['INSUFFICIENT_STORAGE'],
    success: { status: 201 },
    examples: { prometheus: { summary: 'A key for a metrics scraper', value: { name: 'prometheus' } } },
  },
  'DELETE /svc/auth/keys/:id': { errors: ['NOT_FOUND', 'INSUFFICIENT_STORAGE'], success: { status: 204 } },
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

/** Methods whose requests Fastify parses a body for: a body of another type or over the limit is refused (415, 413). */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a status means beyond its codes' names, where an operation answers it for a reason of its own. */
function statusDescription(status: number, list: ErrorCode[], engine: boolean): string {
  if (status === 503) return engine ? 'ENGINE_UNAVAILABLE: no engine host could be started, or the service is shutting down' : 'ENGINE_UNAVAILABLE: the service is shutting down';
  if (status === 507) return 'INSUFFICIENT_STORAGE: the data dir is full or read-only; nothing was stored';
  return list.join(', ');
}

/** The body of 405 METHOD_NOT_ALLOWED, which answers a method a documented path does not take (components.responses). */
export const methodNotAllowedResponse = {
  description: 'METHOD_NOT_ALLOWED: the path exists but does not take this method; `Allow` lists those it takes',
  headers: { Allow: { description: 'The methods the path takes, e.g. `GET, HEAD`', schema: { type: 'string' } } },
  content: { 'application/json': { schema: errorBody(['METHOD_NOT_ALLOWED']) } },
};

/** The response entries of one operation, status → @fastify/swagger response schema. */
export function responsesOf(key: string, opts: { isPublic: boolean; own: Record<string, unknown> }): Record<string, unknown> {
  const doc = OPERATIONS[key] ?? {};
  const [method, url] = key.split(' ');
  // Every operation: a request Fastify refuses before the handler (a path that does not decode: 400), a defect (500),
  // and a request that arrives while the service shuts down (503 ENGINE_UNAVAILABLE, docs/errors.md).
  const codes: ErrorCode[] = ['VALIDATION_ERROR', 'INTERNAL_ERROR', 'ENGINE_UNAVAILABLE', ...(doc.errors ?? [])];
  // A path parameter longer than any id or file name (100 characters) names nothing: 404 NOT_FOUND.
  if (url.includes('/:')) codes.push('NOT_FOUND');
  if (BODY_METHODS.has(method)) codes.push('UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of new Set(codes)) byStatus.set(ERRORS[c].status, [...(byStatus.get(ERRORS[c].status) ?? []), c]);
  const out: Record<string, unknown> = {};
  const ownSuccess = Object.keys(opts.own).find((k) => k.startsWith('2'));
  const success = doc.success ?? { status: ownSuccess ? Number(ownSuccess) : 200 };
  const own = opts.own[String(success.status)] ?? opts.own['200'];
  if (success.status === 204) out['204'] = { description: 'No content', type: 'null' };
  else if (success.content) out[String(success.status)] = { description: 'Success', content: { [success.content]: { schema: { type: 'string' } } } };
  else if (success.schema) out[String(success.status)] = { description: 'Success', ...success.schema };
  else out[String(success.status)] = own ?? { description: 'Success', type: 'object', additionalProperties: true };
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const body = errorBody(list);
    const description = statusDescription(status, list, Boolean(doc.errors?.includes('ENGINE_UNAVAILABLE')));
    if (status === 429) {
      out['429'] = {
        description: 'Too many requests (header Retry-After)', type: 'object', required: ['message', 'code', 'retry_after_seconds'], additionalProperties: false,
        properties: { message: { type: 'string' }, code: { type: 'string', enum: ['RATE_LIMITED'] }, retry_after_seconds: { type: 'integer' } },
      };
    } else if (key === 'POST /svc/auth/login' && status === 400) {
      out['400'] = { description: 'Invalid password, or an invalid body', oneOf: [body, { type: 'object', required: ['error'], properties: { error: { type: 'string', enum: ['Invalid password'] } } }] };
    } else if (key === 'GET /svc/healthz' && status === 503) {
      out['503'] = {
        description: 'Starting (stored pipelines not yet back) or stopping; ENGINE_UNAVAILABLE once the server itself is closing',
        oneOf: [{ type: 'object', required: ['status'], additionalProperties: false, properties: { status: { type: 'string', enum: ['starting', 'stopping'] } } }, body],
      };
    } else out[String(status)] = { description, ...body };
  }
  if (!opts.isPublic) out['401'] = { description: 'Authentication required', type: 'object', required: ['error'], properties: { error: { type: 'string', enum: ['Unauthorized'] } } };
  return out;
}
