/**
 * The Fastify app: HTTPS, one error body for everything (ours and Fastify's own failures), JSON parsing that
 * treats an empty body as no body, and the routes. Routes are thin; the manager owns state.
 */
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { ApiError, ERRORS } from '../errors/catalogue';

export interface ServerOptions {
  logger: Logger;
  bodyLimit: number;
  https?: { cert: Buffer; key: Buffer };
}

/** Maps a Fastify failure onto the catalogue. */
function fromFastify(err: FastifyError): ApiError {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PAYLOAD_TOO_LARGE', 'request body is too large');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('VALIDATION_ERROR', 'Content-Length does not match the body');
    case 'FST_ERR_VALIDATION':
      return new ApiError('VALIDATION_ERROR', err.message, { errors: [err.message] });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // A path segment longer than any id, file name or key id can be (100 characters) names nothing.
      return new ApiError('NOT_FOUND', 'no such resource: a path parameter is longer than 100 characters');
    default:
      break;
  }
  if (err.statusCode === 400 || err.name === 'SyntaxError') return new ApiError('VALIDATION_ERROR', err.message);
  if (err.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (err.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return new ApiError('INTERNAL_ERROR');
}

export function buildServer(opts: ServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: opts.logger,
    // Requests are not logged one by one: a dashboard polling status would drown everything else.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit,
    ...(opts.https ? { https: opts.https } : {}),
    // Deeply nested JSON is refused by the parser below before it can cost anything.
    // Unknown fields are refused, never silently dropped (Fastify's default would remove them).
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    return503OnClosing: true,
    forceCloseConnections: true,
    // Failures Fastify meets before routing (a path that does not percent-decode) get the one error body too.
    frameworkErrors: (err, _req, reply) => {
      const apiError = fromFastify(err as FastifyError);
      void (reply as FastifyReply).code(apiError.status).send(apiError.toBody());
    },
  }) as unknown as FastifyInstance;

  // JSON only: Fastify's default text/plain parser would let other bodies through to the routes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    if (nestingDepth(text) > 64) return done(new ApiError('VALIDATION_ERROR', 'body is nested too deeply'), undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError('VALIDATION_ERROR', 'body is not valid JSON'), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = err instanceof ApiError ? err : fromFastify(err as FastifyError);
    if (apiError.status >= 500) request.log.error({ err, url: request.url }, 'request failed');
    if (apiError.code === 'UNAUTHORIZED') return reply.code(401).send({ error: 'Unauthorized' });
    return reply.code(apiError.status).send(apiError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const e = new ApiError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`);
    return reply.code(404).send(e.toBody());
  });

  return app;
}

/** The deepest bracket nesting of a JSON text, counted without parsing it. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') max = Math.max(max, ++depth);
    else if (c === '}' || c === ']') depth--;
  }
  return max;
}

export { ERRORS };
