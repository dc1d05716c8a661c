/**
 * File output: a path or file:///path; the container follows the extension. MP4 is written fragmented so a
 * recording cut short still plays; every container is finalised with EOS on stop.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { definePlugin, element, extension, filePath, resolvedFilePath, type Claim, type OutputPlugin } from '../../../core/sdk';

const CONTAINERS: Record<string, { container: string; muxer: (name: string) => string }> = {
  ts: { container: 'mpegts', muxer: (name) => element('mpegtsmux', { name }) },
  mkv: { container: 'matroska', muxer: (name) => element('matroskamux', { name }) },
  mp4: { container: 'mp4', muxer: (name) => element('mp4mux', { name, 'fragment-duration': 1000 }) },
};

const FILE_SINKS = new Set(['filesink', 'multifilesink', 'splitmuxsink']);

/** The claim on a file, in simple and advanced mode alike. */
const fileClaim = (path: string): Claim => ({ resource: 'file', key: resolvedFilePath(path), label: `output file ${path}` });

export default definePlugin<OutputPlugin>({
  kind: 'output',
  name: 'file',
  version: '1.0.0',
  description: 'Recording to a file (.ts, .mkv, .mp4)',
  supportsOnDemand: false,
  // Only MPEG-TS of the three containers takes meta/x-klv.
  carriesKlv: (output) => extension(filePath(output.uri) ?? '') === 'ts',
  examples: {
    valid: ['/tmp/encoderd-compliance.mkv', 'file:///tmp/encoderd-compliance.ts', '/tmp/encoderd compliance !"q" name=evil.mp4'],
    invalid: ['/tmp/encoderd-compliance.avi', '/nonexistent-dir/x.mkv', 'file://relative/x.mkv', '/tmp'],
  },
  accepts: (uri) => uri.startsWith('/') || uri.startsWith('file://'),
  validate(output, pipeline, codec) {
    const path = filePath(output.uri);
    if (!path) return ['output.uri must be an absolute file path or file:///path'];
    const ext = extension(path);
    const kind = CONTAINERS[ext];
    if (!kind) return [`output.uri extension must be one of ${Object.keys(CONTAINERS).map((e) => `.${e}`).join(', ')}`];
    const errors: string[] = [];
    // Audio goes into the file when its codec has a mapping into the container (Opus: all three), else the codec's words.
    const audio = pipeline.audioCodec;
    if (pipeline.audio && !audio?.containers.includes(kind.container)) {
      errors.push(audio?.refusals?.recorded?.replaceAll('{ext}', ext)
        ?? `audio of ${audio?.codec ?? 'this codec'} cannot be recorded into a .${ext} file: the container has no mapping for it; use an RTSP, UDP or TCP output`);
    }
    // A passed-through stream's codec (null here at create) is probed at start, and this is asked again with it.
    if (codec && !codec.containers.includes(kind.container)) {
      errors.push(`output.uri: a .${ext} file cannot carry ${codec.codec}`);
    }
    const dir = dirname(path);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) errors.push(`output.uri directory ${dir} does not exist`);
    if (existsSync(path) && statSync(path).isDirectory()) errors.push('output.uri names a directory');
    return errors;
  },
  claims(output) {
    return [fileClaim(filePath(output.uri) ?? output.uri)];
  },
  // The sinks that write a file at `location` (a multifilesink's or splitmuxsink's pattern is claimed as written).
  elementClaims(el) {
    if (!FILE_SINKS.has(el.factory) || !el.properties.location) return [];
    return [fileClaim(resolvePath(el.properties.location))];
  },
  // The filesink holds the file open: deleted, or its directory removed, it keeps writing where nobody can read.
  check(output) {
    const path = filePath(output.uri) as string;
    return existsSync(path) ? null : `the recording ${path} is gone (deleted, or its directory removed)`;
  },
  fragment(output, streams, ctx) {
    const path = filePath(output.uri) as string;
    const kind = CONTAINERS[extension(path)];
    const mux = ctx.name('mux');
    return {
      shared: `${kind.muxer(mux)} ! ${element('filesink', { name: ctx.name('filesink'), location: path })}`,
      streams: streams.map(() => `queue ! ${mux}.`),
      finaliseWithEos: true,
    };
  },
});
