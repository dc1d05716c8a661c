/** GET /svc/licence: what licence is in force (never its signature). Thin: the gate knows. */
import type { FastifyInstance } from 'fastify';
import type { LicenceGate } from '../../licence/gate';

const nullable = (type: string, extra: object = {}) => ({ type: [type, 'null'], ...extra });

const licenceView = {
  type: 'object',
  required: ['status', 'licensee', 'codecs', 'max_streams', 'expires_at'],
  properties: {
    status: { type: 'string', enum: ['unrestricted', 'valid', 'expired', 'invalid'] },
    reason: { type: 'string' },
    licensee: nullable('string'),
    codecs: nullable('array', { items: { type: 'string' } }),
    max_streams: nullable('integer'),
    expires_at: nullable('string'),
  },
};

export function licenceRoutes(app: FastifyInstance, gate: LicenceGate): void {
  app.get('/svc/licence', { schema: { response: { 200: licenceView } } }, async () => gate.describe());
}
