/**
 * GET /svc/pipeline/{id}/{path}/{file}: a file an output plugin writes into its pipeline's own output directory and
 * declares with `serves` (core/sdk/plugin.ts; e.g. a live playlist and its segments). Only what the pipeline's own
 * output plugin declares is served, only plain names (never a path, so never another pipeline's file), behind the
 * same guard as every route. Anything else is 404 NOT_FOUND, like any missing resource.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors/catalogue';
import { outputDirOf } from '../../compose';
import type { PipelineManager } from '../../pipeline/manager';
import type { PluginRegistry } from '../../plugins/registry';
import type { ServedFiles } from '../../sdk';

const params = {
  type: 'object',
  properties: { id: { type: 'string' }, served: { type: 'string' }, file: { type: 'string' } },
  required: ['id', 'served', 'file'],
};

/** A plain file name the plugin's pattern matches whole. */
export function servable(file: string, serves: ServedFiles): boolean {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(file)) return false;
  const m = serves.files.exec(file);
  return m !== null && m.index === 0 && m[0] === file;
}

export function servedFileRoutes(app: FastifyInstance, manager: PipelineManager, registry: PluginRegistry, outputsDir: string): void {
  app.get('/svc/pipeline/:id/:served/:file', {
    schema: {
      params,
      response: { 200: { description: 'A file the output plugin serves (docs/plugins.md, "Serving files")', type: 'string', format: 'binary' } },
    },
  }, async (req, reply) => {
    const { id, served, file } = req.params as { id: string; served: string; file: string };
    const output = manager.get(id).output;
    const serves = output ? registry.output(output.uri)?.serves : undefined;
    const missing = new ApiError('NOT_FOUND', `pipeline "${id}" has no file ${served}/${file}`);
    if (!serves || serves.path !== served || !servable(file, serves)) throw missing;
    // Read whole: playlists and segments are small, and the writer may replace or delete the file at any moment.
    const data = await readFile(join(outputDirOf(outputsDir, id), file)).catch(() => {
      throw missing;
    });
    // Live files: a playlist changes every segment, and a name comes back with new content after a restart.
    return reply.type(serves.contentType(file)).header('cache-control', 'no-cache').send(data);
  });
}
