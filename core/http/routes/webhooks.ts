/** /svc/webhooks: thin translations to the webhook registry. Headers are accepted and never returned. */
import type { FastifyInstance } from 'fastify';
import type { WebhookRegistry } from '../../webhooks/registry';
import { subscriberDocSchema } from '../../webhooks/schema';

const webhookView = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'events', 'created_at'],
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    created_at: { type: 'string' },
  },
} as const;

export function webhookRoutes(app: FastifyInstance, registry: WebhookRegistry): void {
  // The body is validated by the registry (its messages name the field and the header key); the response
  // schema is a second guard: serialization drops anything not listed, so headers can never slip out.
  app.post('/svc/webhooks', {
    schema: { body: subscriberDocSchema, response: { 201: webhookView } },
    // Declared for the OpenAPI document only: the registry validates.
    validatorCompiler: () => () => true,
  }, async (req, reply) => reply.code(201).send(registry.create(req.body)));

  app.get('/svc/webhooks', { schema: { response: { 200: { type: 'array', items: webhookView } } } }, async () => registry.list());

  app.delete('/svc/webhooks/:id', {
    schema: { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
  }, async (req, reply) => {
    registry.remove((req.params as { id: string }).id);
    return reply.code(204).send();
  });
}
