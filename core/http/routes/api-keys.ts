/**
 * /svc/auth/keys: API keys for machines (docs/security.md, "API keys"). Creating and revoking need a session
 * (a key cannot mint or remove keys); listing is open to keys too, since it shows no secret. With auth disabled
 * everything here is open, like every other endpoint.
 */
import type { FastifyInstance } from 'fastify';
import { API_KEY_NAME_MAX, API_KEY_NAME_PATTERN } from '../../auth/api-keys';
import type { AuthService } from '../../auth/auth-service';
import { requireSession } from '../../auth/guard';
import { validationError } from '../../errors/catalogue';
import { SchemaValidator } from '../../validation/validator';

const createSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: API_KEY_NAME_MAX,
      pattern: API_KEY_NAME_PATTERN,
      'x-pattern-message': 'may hold only letters, digits, ".", "_", "-" and single spaces between words',
      description: 'What the key is for (e.g. "prometheus"); a label, need not be unique',
    },
  },
} as const;
const createBody = new SchemaValidator<{ name: string }>(createSchema);

/** The body is validated by createBody (messages that name the field); the schema is declared for the OpenAPI document. */
const documentedOnly = { validatorCompiler: () => () => true };

const created = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'key', 'created_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    key: { type: 'string', description: 'The key, shown this once: send it as `Authorization: Bearer <key>`' },
    created_at: { type: 'string' },
  },
} as const;

// The listing's schema has no `key`: serialization drops anything not listed, a second guard behind the view.
const listed = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'created_at', 'last_used_at'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    created_at: { type: 'string' },
    last_used_at: { type: ['string', 'null'], description: 'Last accepted use (exact while running; after a restart up to 10 minutes old)' },
  },
} as const;

export function apiKeyRoutes(app: FastifyInstance, auth: AuthService): void {
  app.post('/svc/auth/keys', { schema: { body: createSchema, response: { 201: created } }, ...documentedOnly }, async (req, reply) => {
    requireSession(auth, req, reply);
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw validationError(['body must be an object']);
    const r = createBody.validate(req.body);
    if (r.errors.length) throw validationError(r.errors);
    // The key is in this body and nowhere else: no cache along the way may keep it.
    reply.header('cache-control', 'no-store');
    return reply.code(201).send(auth.createKey((r.value as { name: string }).name));
  });

  app.get('/svc/auth/keys', { schema: { response: { 200: { type: 'array', items: listed } } } }, async () => auth.keys.list());

  app.delete('/svc/auth/keys/:id', {
    schema: { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  }, async (req, reply) => {
    requireSession(auth, req, reply);
    auth.revokeKey((req.params as { id: string }).id);
    return reply.code(204).send();
  });
}
