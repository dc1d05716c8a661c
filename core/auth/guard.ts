/**
 * The one gate in front of every route: while a password is set, only the spec's public endpoints answer
 * without a valid `Authorization: Bearer <token>`, where the token is a session token or an API key. It runs onRequest, before body parsing, so an
 * unauthenticated client cannot make the service parse bodies, open SSE streams or learn which routes
 * exist (an unknown path answers 401 too, not 404).
 */
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { ApiError } from '../errors/catalogue';
import { API_KEY_PREFIX } from './api-keys';
import type { AuthService } from './auth-service';

/** Spec, Authentication rule 3. HEAD of a public GET is public too (Fastify answers it from the GET route). */
export const PUBLIC_ENDPOINTS: ReadonlySet<string> = new Set([
  'GET /svc/health',
  'GET /svc/healthz',
  'GET /svc/version',
  'GET /svc/auth/status',
  'POST /svc/auth/login',
]);

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^Bearer +([^\s]+) *$/i.exec(header);
  return m ? m[1] : undefined;
}

export function isPublic(req: FastifyRequest): boolean {
  const route = req.routeOptions.url;
  if (!route) return false;
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  return PUBLIC_ENDPOINTS.has(`${method} ${route}`);
}

/** The caller's live session digest, or null (no token, unknown, expired, or auth disabled). */
export function callerSession(auth: AuthService, req: FastifyRequest): string | null {
  return auth.enabled() ? auth.sessions.check(bearerToken(req.headers.authorization)) : null;
}

/** The id of the caller's API key, or null (no key, unknown or revoked, or auth disabled). */
export function callerKey(auth: AuthService, req: FastifyRequest): string | null {
  return auth.enabled() ? auth.keys.check(bearerToken(req.headers.authorization)) : null;
}

/**
 * For what a machine's key must not do (manage keys, change or remove the password): while auth is enabled the
 * caller must hold a session, i.e. know the password. A key gets 401: the catalogue has no 403, and the header
 * says why.
 */
export function requireSession(auth: AuthService, req: FastifyRequest, reply: FastifyReply): void {
  if (!auth.enabled() || callerSession(auth, req)) return;
  const key = bearerToken(req.headers.authorization)?.startsWith(API_KEY_PREFIX);
  reply.header('www-authenticate', key ? 'Bearer error="invalid_token", error_description="an API key cannot do this; use a session token"' : 'Bearer');
  throw new ApiError('UNAUTHORIZED');
}

export function authGuard(auth: AuthService): onRequestAsyncHookHandler {
  return async (req, reply) => {
    if (!auth.enabled() || isPublic(req)) return;
    if (callerSession(auth, req) || callerKey(auth, req)) return;
    reply.header('www-authenticate', 'Bearer');
    throw new ApiError('UNAUTHORIZED');
  };
}
