/**
 * TEST ONLY. A test machine has no V4L2 hardware, and the service under test runs in another process than
 * the test, so the test cannot call the fake camera provider itself. With ENCODERD_FAKE_CAMERAS=<dir> the
 * service loads the test-only fake camera addon (native/test-addon/, built by `node scripts/setup.mjs --test` and
 * never part of encoderd.node), registers its fake GstDeviceProvider and mirrors that directory into it: each
 * `<name>.json` file `{"path": "/dev/video90", "name": "Fake Cam", "caps": "video/x-raw,..."}` is a plugged
 * camera; deleting the file unplugs it. Everything downstream (GstDeviceMonitor, the mapping to camera
 * records, dedupe, the SSE stream) is the production code path.
 *
 * Never set in production: the variable is not part of the config and `--help` does not list it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type * as FakeCameras from '../../native/test-addon';
import { nativeDir } from '../paths';

export const FAKE_CAMERAS_ENV = 'ENCODERD_FAKE_CAMERAS';

interface FakeCamera {
  path: string;
  name: string;
  caps: string;
}

export class FakeCameraFeeder {
  private readonly plugged = new Map<string, string>(); // file → device path
  private timer: NodeJS.Timeout | null = null;

  private readonly native: typeof FakeCameras;

  /** GStreamer must be initialised first (encoderd.node's init()). */
  constructor(private readonly dir: string, private readonly log: Logger) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.native = require(join(nativeDir, 'test-addon')) as typeof FakeCameras;
    // Must happen before any DeviceMonitor exists.
    this.native.registerFakeCameraProvider();
    log.warn({ dir }, `${FAKE_CAMERAS_ENV} is set: fake cameras from a directory (test only)`);
  }

  /** Plugs the cameras already described, then follows the directory. */
  start(pollMs = 100): void {
    this.sync();
    this.timer ??= setInterval(() => this.sync(), pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private sync(): void {
    let files: string[];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    } catch {
      files = [];
    }
    for (const [file, path] of [...this.plugged]) {
      if (files.includes(file)) continue;
      this.plugged.delete(file);
      this.call(() => this.native.fakeCameraRemove(path), file);
    }
    for (const file of files) {
      if (this.plugged.has(file)) continue;
      let cam: FakeCamera;
      try {
        cam = JSON.parse(readFileSync(join(this.dir, file), 'utf8')) as FakeCamera;
      } catch {
        continue; // half-written: the next poll reads it whole
      }
      this.plugged.set(file, cam.path);
      this.call(() => this.native.fakeCameraAdd(cam.path, cam.name, cam.caps), file);
    }
  }

  private call(fn: () => void, file: string): void {
    try {
      fn();
    } catch (err) {
      this.log.warn({ file, err: (err as Error).message }, 'fake camera file rejected');
    }
  }
}

export function fakeCameraDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const v = env[FAKE_CAMERAS_ENV];
  return v ? v : null;
}
