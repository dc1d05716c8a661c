/** GET /svc/licence: what licence is in force (never its signature). Thin: the gate knows. */
import type { FastifyInstance } from 'fastify';
import type { LicenceGate } from '../../licence/gate';

export function licenceRoutes(app: FastifyInstance, gate: LicenceGate): void {
  app.get('/svc/licence', async () => gate.describe());
}
