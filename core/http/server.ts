/**
 * The Fastify app: HTTPS, one error body for everything (ours and Fastify's own failures), JSON parsing that
 * treats an empty body as no body, and the routes. Routes are thin; the manager owns state.
 */
import type { Socket } from 'node:net';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { ApiError, ERRORS, validationError } from '../errors/catalogue';

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
      return validationError(['Content-Length does not match the body']);
    case 'FST_ERR_VALIDATION':
      return validationError([err.message]);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // A path segment longer than any id, file name or key id can be (100 characters) names nothing.
      return new ApiError('NOT_FOUND', 'no such resource: a path parameter is longer than 100 characters');
    default:
      break;
  }
  if (err.statusCode === 400 || err.name === 'SyntaxError') return validationError([err.message]);
  if (err.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (err.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return new ApiError('INTERNAL_ERROR');
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * A request Node's HTTP parser refuses never reaches Fastify: the spec's body is written on the socket by hand
 * (Fastify's default handler would write its own `{error, message, statusCode}`).
 */
function clientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && err.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
    const why = err.code === 'HPE_HEADER_OVERFLOW' ? 'the request headers are too large'
      // The client ended the connection inside the body: fewer bytes came than its Content-Length said.
      : err.code === 'HPE_INVALID_EOF_STATE' ? 'the body is shorter than its Content-Length (the connection ended first)'
        : `the request is not valid HTTP (${err.code ?? 'parse error'})`;
    const body = JSON.stringify(validationError([why]).toBody());
    socket.write(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy();
}

export function buildServer(opts: ServerOptions): FastifyInstance {
  // Set once Fastify starts closing: requests still arriving get the spec's 503 body, not Fastify's.
  let closing = false;
  const app = Fastify({
    loggerInstance: opts.logger,
    // Requests are not logged one by one: a dashboard polling status would drown everything else.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: opts.bodyLimit,
    ...(opts.https ? { https: opts.https } : {}),
    // Deeply nested JSON is refused by the parser below before it can cost anything.
    // Unknown fields are refused, never silently dropped (Fastify's default would remove them).
    ajv: { customOptions: { allErrors: true, removeAdditional: false } },
    return503OnClosing: false,
    forceCloseConnections: true,
    clientErrorHandler: clientError,
    // Failures Fastify meets before routing (a path that does not percent-decode) get the one error body too.
    frameworkErrors: (err, _req, reply) => {
      const apiError = fromFastify(err as FastifyError);
      void (reply as FastifyReply).code(apiError.status).send(apiError.toBody());
    },
  }) as unknown as FastifyInstance;

  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (_req, reply, done) => {
    if (!closing) return done();
    const e = new ApiError('ENGINE_UNAVAILABLE', 'the service is shutting down');
    void reply.code(503).header('connection', 'close').send(e.toBody());
  });

  // JSON only: Fastify's default text/plain parser would let other bodies through to the routes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(['application/json', 'application/merge-patch+json'], { parseAs: 'string' }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    if (nestingDepth(text) > 64) return done(validationError(['body is nested more than 64 levels deep']), undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(validationError([`body is not valid JSON: ${(err as Error).message}`]), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = err instanceof ApiError ? err : fromFastify(err as FastifyError);
    if (apiError.status >= 500) request.log.error({ err, url: request.url }, 'request failed');
    if (apiError.code === 'UNAUTHORIZED') return reply.code(401).send({ error: 'Unauthorized' });
    return reply.code(apiError.status).send(apiError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0];
    // A path some route serves with other methods: 405 with the methods it takes (docs/errors.md).
    const allowed = METHODS.filter((m) => app.findRoute({ method: m, url: path }) !== null);
    if (allowed.length) {
      const e = new ApiError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`);
      return reply.code(405).header('allow', allowed.join(', ')).send(e.toBody());
    }
    const e = new ApiError('NOT_FOUND', `no route ${request.method} ${path}`);
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
