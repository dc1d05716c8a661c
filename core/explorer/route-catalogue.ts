/**
 * Every route the API registers, with its schema, as Fastify announces it (onRoute). The OpenAPI document is
 * generated from this list, so it cannot drift from the routes. The hook must be added before the first
 * route: Fastify runs onRoute hooks synchronously as each route is declared.
 */
import type { FastifyInstance, FastifySchema, HTTPMethods, RouteOptions } from 'fastify';

export interface CatalogueRoute {
  method: HTTPMethods | HTTPMethods[];
  url: string;
  schema?: FastifySchema;
}

export class RouteCatalogue {
  private readonly list: CatalogueRoute[] = [];

  /** Starts collecting the routes of app from now on. */
  static attach(app: FastifyInstance): RouteCatalogue {
    const catalogue = new RouteCatalogue();
    app.addHook('onRoute', (route: RouteOptions) => {
      // HEAD twins of GET routes are Fastify's own; the document lists the GETs.
      if (route.method === 'HEAD') return;
      catalogue.list.push({ method: route.method, url: route.url, schema: route.schema });
    });
    return catalogue;
  }

  routes(): readonly CatalogueRoute[] {
    return this.list;
  }
}
