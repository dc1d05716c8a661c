/**
 * file:///path: a media file, played in real time and looped. clocksync paces it to the clock (a file is not a
 * live source, and some outputs do not sync); at the end of the file the engine host starts the pipeline again
 * (see docs/dataplane.md for why a restart and not a seek). Files are shared freely: no claim.
 */
import { existsSync, statSync } from 'node:fs';
import { definePlugin, element, filePath, videoTail, type SourcePlugin } from '../../../core/sdk';

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'file',
  version: '1.0.0',
  description: 'Media file, looped (filesrc)',
  examples: { valid: ['file:///etc/os-release'], invalid: ['file:///no/such/file.mp4', 'file://relative/file.mp4'] },
  producesRawOnly: false,
  mayCarryAudio: true,
  accepts: (uri) => uri.startsWith('file://') && !uri.startsWith('file:///dev/'),
  validate(source) {
    const path = filePath(source.uri);
    if (!path) return ['source.uri must be file:///absolute/path'];
    if (!existsSync(path) || !statSync(path).isFile()) return [`source.uri file ${path} does not exist`];
    return [];
  },
  claims: () => [],
  fragment(source, ctx, { decode }) {
    const src = element('filesrc', { name: ctx.name('src'), location: filePath(source.uri)! });
    const pace = element('clocksync', { name: ctx.name('pace') });
    return { description: `${src} ! ${videoTail(ctx, decode)} ! ${pace}`, kind: decode ? 'raw' : 'encoded', codec: null, loop: true };
  },
});
