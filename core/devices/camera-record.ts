/** The camera record of GET /svc/cameras and /svc/camera: pure mapping from the addon's DeviceInfo. */
import type { DeviceCaps, DeviceInfo } from '../../native';
import type { PipelineView } from '../pipeline/model';

export interface CameraSize {
  width: number;
  height: number;
  /** Fractions as GStreamer writes them ("30/1", "30000/1001"); a continuous range appears as its two ends. */
  framerates: string[];
}

export interface CameraFormat {
  /** The caps media type, e.g. video/x-raw, image/jpeg. */
  media: string;
  /** The pixel format for raw video (YUY2, NV12), else the codec's usual name (MJPEG, H264), else null. */
  format: string | null;
  sizes: CameraSize[];
}

export interface CameraRecord {
  device_path: string;
  device_name: string;
  driver: string | null;
  formats: CameraFormat[];
  /** The id of the playing pipeline that holds the camera, or null. */
  in_use_by: string | null;
}

/** Names of coded formats by caps media type (MJPEG for image/jpeg): what the source plugins declare (SourcePlugin.deviceFormats). */
export type FormatNames = Readonly<Record<string, string>>;

function formatName(c: DeviceCaps, names: FormatNames): string | null {
  return c.format ?? names[c.media] ?? null;
}

/** Groups caps structures by format, and sizes within a format, keeping the device's own order. */
export function formatsOf(caps: DeviceCaps[], names: FormatNames = {}): CameraFormat[] {
  const formats: CameraFormat[] = [];
  for (const c of caps) {
    const name = formatName(c, names);
    let f = formats.find((x) => x.media === c.media && x.format === name);
    if (!f) {
      f = { media: c.media, format: name, sizes: [] };
      formats.push(f);
    }
    if (c.width === undefined || c.height === undefined) continue;
    let size = f.sizes.find((s) => s.width === c.width && s.height === c.height);
    if (!size) {
      size = { width: c.width, height: c.height, framerates: [] };
      f.sizes.push(size);
    }
    for (const r of c.framerates) if (!size.framerates.includes(r)) size.framerates.push(r);
  }
  return formats;
}

/** The source URI that names a V4L2 camera (design §5: file:///dev/videoN). */
export function cameraUri(devicePath: string): string {
  return `file://${devicePath}`;
}

/**
 * Which playing pipeline holds a camera: a simple pipeline whose source, or a multiview pipeline one of whose
 * inputs, is that device. Advanced pipelines name devices inside their description and are not seen here.
 */
export function cameraUser(devicePath: string, pipelines: readonly PipelineView[]): string | null {
  const uri = cameraUri(devicePath);
  for (const p of pipelines) {
    if (p.state !== 'playing') continue;
    if (p.source?.uri === uri || p.inputs?.some((i) => i.source?.uri === uri)) return p.id;
  }
  return null;
}

export function cameraRecord(device: DeviceInfo & { path: string }, pipelines: readonly PipelineView[], names: FormatNames = {}): CameraRecord {
  return {
    device_path: device.path,
    device_name: device.name,
    driver: device.driver,
    formats: formatsOf(device.caps, names),
    in_use_by: cameraUser(device.path, pipelines),
  };
}
