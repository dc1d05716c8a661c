/**
 * Device discovery: cameras through the addon's GstDeviceMonitor, ALSA capture devices from /proc/asound.
 * Built once by app.ts; the routes read from it.
 */
import type { Logger } from 'pino';
import type * as Native from '../../native';
import { readAudioDevices, type AudioDevice } from './asound';
import { CameraMonitor } from './camera-monitor';

export interface Devices {
  cameras: CameraMonitor;
  audio(): AudioDevice[];
  start(): void;
  stop(): void;
}

export function createDevices(opts: { native: () => typeof Native; procAsoundRoot: string; log: Logger }): Devices {
  const log = opts.log;
  const cameras = new CameraMonitor((classes, onEvent) => new (opts.native().DeviceMonitor)(classes, onEvent), log);
  return {
    cameras,
    audio: () => readAudioDevices(opts.procAsoundRoot),
    start() {
      try {
        cameras.start();
      } catch (err) {
        // Without the addon or GStreamer's device support the API still serves; the camera list stays empty.
        log.error({ err: (err as Error).message }, 'camera discovery unavailable');
      }
    },
    stop() {
      cameras.stop();
    },
  };
}

export type { AudioDevice } from './asound';
export { cameraRecord, type CameraRecord, type FormatNames } from './camera-record';
