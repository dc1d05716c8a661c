/**
 * Device discovery: cameras through the addon's GstDeviceMonitor, ALSA capture devices from /proc/asound.
 * Built once by app.ts; the routes read from it.
 */
import type { Logger } from 'pino';
import type * as Native from '../../native';
import { readAudioDevices, type AudioDevice } from './asound';
import { CameraMonitor } from './camera-monitor';
import { fakeCameraDir, FakeCameraFeeder } from './fake-cameras';

export interface Devices {
  cameras: CameraMonitor;
  audio(): AudioDevice[];
  start(): void;
  stop(): void;
}

export function createDevices(opts: { native: () => typeof Native; procAsoundRoot: string; log: Logger; env?: NodeJS.ProcessEnv }): Devices {
  const log = opts.log;
  let feeder: FakeCameraFeeder | null = null;
  const cameras = new CameraMonitor((classes, onEvent) => new (opts.native().DeviceMonitor)(classes, onEvent), log);
  return {
    cameras,
    audio: () => readAudioDevices(opts.procAsoundRoot),
    start() {
      try {
        const dir = fakeCameraDir(opts.env);
        if (dir && !feeder) {
          opts.native(); // initialises GStreamer, which the fake camera addon needs
          feeder = new FakeCameraFeeder(dir, log);
          feeder.start();
        }
        cameras.start();
      } catch (err) {
        // Without the addon or GStreamer's device support the API still serves; the camera list stays empty.
        log.error({ err: (err as Error).message }, 'camera discovery unavailable');
      }
    },
    stop() {
      feeder?.stop();
      cameras.stop();
    },
  };
}

export type { AudioDevice } from './asound';
export { cameraRecord, type CameraRecord, type FormatNames } from './camera-record';
