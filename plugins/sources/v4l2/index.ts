/**
 * file:///dev/videoN: a local V4L2 camera. Exclusive: one input of one pipeline at a time (spec create rule 3),
 * so it claims the device path, also within a pipeline (multiview inputs). Cameras give raw video or MJPEG;
 * decodebin turns either into raw video, and the pipeline always encodes it.
 */
import { existsSync } from 'node:fs';
import { caps, definePlugin, element, type Claim, type SourcePlugin } from '../../../core/sdk';

const DEVICE = /^file:\/\/(\/dev\/video\d{1,3})$/;

export function devicePath(uri: string): string | null {
  return DEVICE.exec(uri)?.[1] ?? null;
}

/** A camera, exclusive even within a pipeline (multiview inputs), in simple and advanced mode alike. */
const cameraClaim = (device: string): Claim => ({ resource: 'camera', key: device, label: `camera ${device}`, exclusiveWithinPipeline: true });

export default definePlugin<SourcePlugin>({
  kind: 'source',
  name: 'v4l2',
  version: '1.0.0',
  description: 'Local V4L2 camera (v4l2src)',
  examples: { valid: ['file:///dev/video0'], invalid: ['file:///dev/videoX', 'file:///dev/video0/x'] },
  producesRawOnly: true,
  mayCarryAudio: false,
  accepts: (uri) => uri.startsWith('file:///dev/video'),
  validate: (source) => (devicePath(source.uri) ? [] : ['source.uri must be file:///dev/videoN for a camera']),
  // A camera that is not plugged in is a 400 at create and PUT, not a start that times out. Restored pipelines are
  // not asked: their camera may come later, and the start is retried like any lost source.
  present(source) {
    const path = devicePath(source.uri)!;
    return existsSync(path) ? [] : [`source.uri camera ${path} does not exist (no such device is plugged in)`];
  },
  // What a camera may offer besides raw video, named as operators know them (GET /svc/cameras).
  deviceFormats: {
    'image/jpeg': 'MJPEG',
    'video/x-h264': 'H264',
    'video/x-h265': 'H265',
    'video/x-vp8': 'VP8',
    'video/x-vp9': 'VP9',
    'video/mpegts': 'MPEG-TS',
  },
  claims(source) {
    return [cameraClaim(devicePath(source.uri) ?? source.uri)];
  },
  elementClaims(el) {
    const device = el.factory === 'v4l2src' ? el.properties.device : undefined;
    return device ? [cameraClaim(device)] : [];
  },
  fragment(source, ctx) {
    const src = element('v4l2src', { name: ctx.name('src'), device: devicePath(source.uri)! });
    return { description: `${src} ! ${element('decodebin', { name: ctx.name('dec') })} ! ${caps('video/x-raw')}`, kind: 'raw' };
  },
});
