/**
 * The OpenAPI 3 document, generated from the API's route schemas by @fastify/swagger. The routes are replayed
 * (method, url, schema; handlers and validation are not needed) into a private Fastify instance that carries
 * the swagger plugin, so the API app's own start-up is untouched by the explorer.
 */
import swagger from '@fastify/swagger';
import Fastify from 'fastify';
import { PUBLIC_ENDPOINTS } from '../auth/guard';
import { methodNotAllowedResponse, OPERATIONS, responsesOf } from './operations';
import type { CatalogueRoute } from './route-catalogue';

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  servers?: Array<{ url: string; description?: string }>;
  [key: string]: unknown;
}

const DESCRIPTION = 'The encoderd REST API. Errors answer `{message, code}` (validation errors add `details.errors`); '
  + 'login and authentication failures answer `{error}`. With a password set, every operation but the public ones '
  + 'needs `Authorization: Bearer <token>` from POST /svc/auth/login. A method a path does not take answers 405 '
  + '(`#/components/responses/MethodNotAllowed`, header `Allow`); a path that does not exist answers 404 `NOT_FOUND`.';

export async function generateOpenApi(routes: readonly CatalogueRoute[], version: string): Promise<OpenApiDocument> {
  const doc = Fastify({ logger: false });
  // Nothing is served from this instance: no validator or serializer needs to be built.
  doc.setValidatorCompiler(() => () => true);
  doc.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await doc.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'encoderd', version, description: DESCRIPTION },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
        // No operation answers it (it answers the methods no operation has), so it stands here, named by the description.
        // The response is plain JSON Schema; openapi-types' literal types for `type` cannot see that.
        responses: { MethodNotAllowed: methodNotAllowedResponse as never },
      },
      security: [{ bearerAuth: [] }],
    },
    stripBasePath: false,
    transform: ({ schema, url, route }) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      const isPublic = methods.every((m) => PUBLIC_ENDPOINTS.has(`${m} ${url}`));
      const tag = url.split('/')[2] ?? 'svc';
      const key = `${methods[0]} ${url}`;
      const own = (schema ?? {}) as Record<string, unknown>;
      const declared = OPERATIONS[key]?.body ?? (own.body && Object.keys(own.body).length ? own.body : undefined);
      // Examples go beside the body (@fastify/swagger moves `x-examples` to the media type's `examples`).
      const examples = OPERATIONS[key]?.examples;
      const body = declared && examples ? { ...declared, 'x-examples': examples } : declared;
      const response = responsesOf(key, { isPublic, own: (own.response ?? {}) as Record<string, unknown> });
      const querystring = key === 'GET /svc/camera' ? { ...(own.querystring as object), required: ['path'] } : own.querystring;
      const base = { ...own, ...(body ? { body } : {}), ...(querystring ? { querystring } : {}), response, tags: [tag] } as Record<string, unknown>;
      if (!body) delete base.body;
      return { schema: isPublic ? { ...base, security: [] } : base, url };
    },
  });
  for (const route of routes) doc.route({ method: route.method, url: route.url, schema: route.schema, handler: async () => null });
  await doc.ready();
  const document = doc.swagger() as unknown as OpenApiDocument;
  // @fastify/swagger marks every declared body required (Fastify's own validation would demand one); these handlers take none.
  for (const [key, op] of Object.entries(OPERATIONS)) {
    if (!op.bodyOptional) continue;
    const [method, url] = key.split(' ');
    const body = (document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()] as { requestBody?: { required?: boolean } } | undefined)?.requestBody;
    if (body) body.required = false;
  }
  await doc.close();
  return document;
}
