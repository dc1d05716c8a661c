/** /svc/settings: GET the record, PUT some of its fields (merged; see docs/settings.md). */
import type { FastifyInstance } from 'fastify';
import { settingsPatchSchema, settingsSchema } from '../../settings/schema';
import type { SettingsService } from '../../settings/settings-service';

export function settingsRoutes(app: FastifyInstance, settings: SettingsService): void {
  const response = { 200: settingsSchema };
  app.get('/svc/settings', { schema: { response } }, async () => settings.get());
  // The body is validated by the service (messages that name the field); its schema is declared for the OpenAPI document.
  app.put('/svc/settings', { schema: { body: settingsPatchSchema, response }, validatorCompiler: () => () => true }, async (req) => settings.update(req.body));
}
