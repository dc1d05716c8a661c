/**
 * /svc/auth routes (spec, Authentication). Success bodies the spec leaves open (docs/security.md):
 * PUT and DELETE /svc/auth/password answer 200 `{auth_enabled}`; logout answers 204. The password operations
 * need a session, never an API key: a machine's key must not be able to take the appliance over or open it.
 */
import type { FastifyInstance } from 'fastify';
import type { AuthService } from '../../auth/auth-service';
import { callerSession, requireSession } from '../../auth/guard';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../auth/password';
import { ApiError, validationError } from '../../errors/catalogue';
import { SchemaValidator } from '../../validation/validator';
import { clientIp } from '../client-ip';
import { enforce, LIMITS, RateLimiter } from '../rate-limit';

export interface AuthRouteDeps {
  auth: AuthService;
  trustedProxies: readonly string[];
  /** Shared so tests (and a future admin reset) can reach it; one per service. */
  loginLimiter?: RateLimiter;
}

const loginSchema = {
  type: 'object',
  required: ['password'],
  additionalProperties: false,
  properties: { password: { type: 'string' } },
} as const;
const loginBody = new SchemaValidator<{ password: string }>(loginSchema);

const passwordSchema = {
  type: 'object',
  required: ['password'],
  additionalProperties: false,
  properties: { password: { type: 'string', minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH } },
} as const;
const passwordBody = new SchemaValidator<{ password: string }>(passwordSchema);

/** Bodies are validated by the validators above (messages that name the field); the schemas are declared for the OpenAPI document. */
const documentedOnly = { validatorCompiler: () => () => true };

function parse<T>(validator: SchemaValidator<T>, body: unknown): T {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError(['body must be an object']);
  const r = validator.validate(body);
  if (r.errors.length) throw validationError(r.errors);
  return r.value as T;
}

export function authRoutes(app: FastifyInstance, deps: AuthRouteDeps): void {
  const { auth } = deps;
  const loginLimiter = deps.loginLimiter ?? new RateLimiter(LIMITS.login);

  app.get('/svc/auth/status', async () => ({ auth_enabled: auth.enabled() }));

  app.post('/svc/auth/login', { schema: { body: loginSchema }, ...documentedOnly }, async (req, reply) => {
    // Every attempt counts, right or wrong, well-formed or not: the spec limits attempts, not failures.
    enforce(loginLimiter, clientIp(req, deps.trustedProxies), reply);
    const { password } = parse(loginBody, req.body);
    const session = await auth.login(password);
    if (!session) {
      req.log.warn({ client: clientIp(req, deps.trustedProxies) }, 'login failed');
      return reply.code(400).send({ error: 'Invalid password' });
    }
    return session;
  });

  app.post('/svc/auth/logout', async (req, reply) => {
    const digest = callerSession(auth, req);
    if (digest) auth.sessions.revoke(digest);
    return reply.code(204).send();
  });

  app.put('/svc/auth/password', { schema: { body: passwordSchema }, ...documentedOnly }, async (req, reply) => {
    requireSession(auth, req, reply);
    const { password } = parse(passwordBody, req.body);
    const wasEnabled = auth.enabled();
    const caller = callerSession(auth, req);
    // The guard has already demanded a token when a password exists; a first password needs none. Checked
    // again here: a password may have been set, or the token ended, since the guard ran.
    if (wasEnabled && !caller) throw new ApiError('UNAUTHORIZED');
    if (!(await auth.setPassword(password, wasEnabled ? caller : null))) throw new ApiError('UNAUTHORIZED');
    return { auth_enabled: true };
  });

  app.delete('/svc/auth/password', async (req, reply) => {
    requireSession(auth, req, reply);
    auth.removePassword();
    return { auth_enabled: false };
  });
}
