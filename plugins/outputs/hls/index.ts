/**
 * HLS: `hls://` writes MPEG-TS segments and the live playlist index.m3u8 with hlssink2 into the pipeline's own output
 * directory (ComposeContext.outputDir), and the service serves them at GET /svc/pipeline/{id}/hls/{file}. Short
 * segments (1 s by default), each opened by a keyframe the sink asks the encoder for, keep players near the live edge.
 */
import { join } from 'node:path';
import { definePlugin, element, tsOnlyOutputErrors, type OutputPlugin } from '../../../core/sdk';
import { MPEG_TS } from '../../shared/mpegts';
import { parseHlsUri } from './uri';

const PLAYLIST = 'index.m3u8';

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'hls',
  version: '1.0.0',
  description: 'HLS: MPEG-TS segments and a live playlist, served by the service',
  examples: {
    valid: ['hls://', 'hls:///', 'hls://?segment=2&playlist_length=6'],
    invalid: ['hls://?segment=0', 'hls://?segment=1.5', 'hls://?playlist_length=2', 'hls://?latency=1', 'hls://?segment=1&segment=2',
      'hls://host/live', 'hls:live'],
  },
  // hlssink2 has only audio and video pads: no KLV (carriesKlv absent).
  supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('hls:'),
  validate(output, pipeline, codec) {
    const errors: string[] = [...parseHlsUri(output.uri).errors];
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    // Segments are MPEG-TS: no AV1, no Codec2. A passed-through stream's codec (null at create) is asked again at start.
    errors.push(...tsOnlyOutputErrors('hls://', pipeline, codec, MPEG_TS));
    return errors;
  },
  // The files go to a directory of the pipeline's own: nothing another pipeline could hold.
  claims: () => [],
  serves: {
    path: 'hls',
    files: /^(index\.m3u8|segment\d{5,}\.ts)$/,
    contentType: (file) => (file.endsWith('.m3u8') ? 'application/vnd.apple.mpegurl' : 'video/mp2t'),
  },
  fragment(output, _streams, ctx) {
    const dir = ctx.outputDir;
    if (!dir) throw new Error('hls:// needs the pipeline\'s output directory (ComposeContext.outputDir)');
    const { options } = parseHlsUri(output.uri);
    if (!options) throw new Error('hls:// URI not validated');
    const sink = ctx.name('hls');
    return {
      shared: element('hlssink2', {
        name: sink,
        location: join(dir, 'segment%05d.ts'),
        'playlist-location': join(dir, PLAYLIST),
        'target-duration': options.segment,
        'playlist-length': options.playlistLength,
        // Two beyond the playlist: a player that read the previous playlist still finds the segment that just left it.
        'max-files': options.playlistLength + 2,
        // A keyframe at each target duration (x264/x265 honour the request), so segments are as short as asked.
        'send-keyframe-requests': true,
      }),
      // Video only: validate refused audio, and the sink has no KLV pad.
      streams: [`queue ! ${sink}.video`],
    };
  },
});
