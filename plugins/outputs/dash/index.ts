/**
 * MPEG-DASH: `dash://` writes a live (dynamic) MPD, index.mpd, and its segments with dashsink into the pipeline's own
 * output directory (ComposeContext.outputDir), and the service serves them at GET /svc/pipeline/{id}/dash/{file}.
 * Segments are MPEG-TS: dashsink's MP4 muxer on 1.22 writes the first segment and then stops (README.md).
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { definePlugin, element, tsOnlyOutputErrors, type OutputPlugin } from '../../../core/sdk';
import { MPEG_TS } from '../../shared/mpegts';
import { expiredSegments, keptSegments } from './retention';
import { parseDashUri } from './uri';

const MPD = 'index.mpd';
/** The sink's request pad, which also names the representation and so the segment files (video_0_<n>.ts). */
const PAD = 'video_0';

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'dash',
  version: '1.0.0',
  description: 'MPEG-DASH: a live MPD and MPEG-TS segments, served by the service',
  examples: {
    valid: ['dash://', 'dash:///', 'dash://?segment=2', 'dash://?segment=10'],
    invalid: ['dash://?segment=0', 'dash://?segment=1.5', 'dash://?segment=11', 'dash://?muxer=mp4', 'dash://?segment=1&segment=2',
      'dash://host/live', 'dash:live'],
  },
  // dashsink's muxer takes audio and video pads only: no KLV (carriesKlv absent).
  supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('dash:'),
  validate(output, pipeline, codec) {
    const errors: string[] = [...parseDashUri(output.uri).errors];
    if (output.network_interface) errors.push('output.network_interface is used only with a UDP multicast group');
    // Segments are MPEG-TS: no AV1, no Codec2. A passed-through stream's codec (null at create) is asked again at start.
    errors.push(...tsOnlyOutputErrors('dash://', pipeline, codec, MPEG_TS));
    return errors;
  },
  // The files go to a directory of the pipeline's own: nothing another pipeline could hold.
  claims: () => [],
  serves: {
    path: 'dash',
    files: /^(index\.mpd|video_0_\d{1,9}\.ts)$/,
    contentType: (file) => (file.endsWith('.mpd') ? 'application/dash+xml' : 'video/mp2t'),
  },
  // dashsink keeps every segment it writes: the old ones are deleted here, once a second while the pipeline plays.
  check(output, outputDir) {
    const { options } = parseDashUri(output.uri);
    if (!options || !outputDir) return null;
    let names: string[];
    try {
      names = readdirSync(outputDir);
    } catch {
      // The directory is gone: dashsink fails to open its next segment, and that error is the pipeline's.
      return null;
    }
    for (const name of expiredSegments(names, keptSegments(options.segment))) rmSync(join(outputDir, name), { force: true });
    return null;
  },
  fragment(output, _streams, ctx) {
    const dir = ctx.outputDir;
    if (!dir) throw new Error('dash:// needs the pipeline\'s output directory (ComposeContext.outputDir)');
    const { options } = parseDashUri(output.uri);
    if (!options) throw new Error('dash:// URI not validated');
    const sink = ctx.name('dash');
    const segmentMs = options.segment * 1000;
    return {
      shared: element('dashsink', {
        name: sink,
        'mpd-root-path': dir,
        'mpd-filename': MPD,
        muxer: 'ts',
        dynamic: true,
        'target-duration': options.segment,
        // Players reload the MPD once a segment; set, it also keeps dashsink from writing a mediaPresentationDuration,
        // which would tell a player that the live presentation ends there.
        'minimum-update-period': segmentMs,
        'min-buffer-time': 2 * segmentMs,
        // A keyframe at each target duration (x264/x265 honour the request), so segments are as short as asked.
        'send-keyframe-requests': true,
      }),
      // Video only: validate refused audio, and the sink takes no KLV.
      streams: [`queue ! ${sink}.${PAD}`],
    };
  },
});
