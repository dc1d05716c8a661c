/**
 * DeviceMonitor against an in-process fake GstDeviceProvider.
 *
 * The fake provider ("encoderdfakecameraprovider", native/test-addon/, a test-only addon) stands in for V4L2
 * hardware, which a test machine cannot have (no /dev/video*, no vivid or v4l2loopback in a container). It posts
 * device-added/removed the way v4l2deviceprovider does. Everything under test is the real code path: the
 * GstDeviceMonitor and its filters, the bus handler, the GstDevice → DeviceInfo conversion (properties, caps,
 * framerates) and event delivery to JS through the thread-safe function.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Native from '../../native/index';
import type * as FakeCameras from '../../native/test-addon/index';

const nativeDir = fileURLToPath(new URL('../../native', import.meta.url));
const fakeDir = fileURLToPath(new URL('../../native/test-addon', import.meta.url));
const native = createRequire(import.meta.url)(nativeDir) as typeof Native;
const fake = createRequire(import.meta.url)(fakeDir) as typeof FakeCameras;

const CAPS = 'video/x-raw,format=YUY2,width=640,height=480,framerate={30/1,15/1}; '
  + 'image/jpeg,width=1920,height=1080,framerate=30/1; '
  + 'video/x-raw,format=NV12,width=1280,height=720,framerate=[5/1,60/1]';

async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

/** Runs a node child and reports whether it exited by itself within ms (it is killed otherwise). */
function runChild(script: string, ms: number): Promise<{ exited: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    let exited = true;
    const timer = setTimeout(() => { exited = false; child.kill('SIGKILL'); }, ms);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ exited, code, stderr }); });
  });
}

describe('DeviceMonitor with the fake camera provider', () => {
  const cleanup: Array<() => void> = [];

  beforeAll(() => {
    native.init();
    fake.registerFakeCameraProvider();
    fake.registerFakeCameraProvider(); // registering twice is harmless
  });

  afterEach(() => {
    while (cleanup.length) cleanup.pop()!();
  });

  function monitor(events: Native.DeviceEvent[]): Native.DeviceMonitor {
    const m = new native.DeviceMonitor(['Video/Source'], (ev) => events.push(ev));
    cleanup.push(() => m.stop());
    return m;
  }

  function addCamera(path: string, name: string, caps = CAPS): void {
    fake.fakeCameraAdd(path, name, caps);
    cleanup.push(() => { try { fake.fakeCameraRemove(path); } catch { /* the test removed it */ } });
  }

  it('start() returns a coldplugged camera with path, name, driver and parsed caps', async () => {
    addCamera('/dev/video90', 'Fake Cam (coldplug)');
    const events: Native.DeviceEvent[] = [];
    const devices = monitor(events).start();

    const cam = devices.find((d) => d.path === '/dev/video90');
    expect(cam).toBeDefined();
    expect(cam!.name).toBe('Fake Cam (coldplug)');
    expect(cam!.deviceClass).toBe('Video/Source');
    expect(cam!.driver).toBe('fake');
    expect(cam!.caps).toEqual([
      { media: 'video/x-raw', format: 'YUY2', width: 640, height: 480, framerates: ['30/1', '15/1'] },
      { media: 'image/jpeg', width: 1920, height: 1080, framerates: ['30/1'] },
      { media: 'video/x-raw', format: 'NV12', width: 1280, height: 720, framerates: ['5/1', '60/1'] },
    ]);
    expect(cam!.properties).toMatchObject({
      'device.path': '/dev/video90',
      'device.api': 'v4l2',
      'v4l2.device.driver': 'fake',
      'v4l2.device.card': 'Fake Cam (coldplug)',
    });

    // A device present at start is also announced as 'added': the JS side dedupes by path.
    const added = await waitFor('the coldplug added event',
      () => events.find((e) => e.type === 'added' && e.device.path === '/dev/video90'));
    expect(added.device).toEqual(cam);
  });

  it('hot-plug: adding a camera gives an added event, removing it a removed event', async () => {
    const events: Native.DeviceEvent[] = [];
    const devices = monitor(events).start();
    expect(devices.some((d) => d.path === '/dev/video91')).toBe(false);

    addCamera('/dev/video91', 'Fake Cam (hotplug)', 'video/x-raw,format=I420,width=320,height=240,framerate=25/1');
    const added = await waitFor('the added event',
      () => events.find((e) => e.type === 'added' && e.device.path === '/dev/video91'));
    expect(added.device.name).toBe('Fake Cam (hotplug)');
    expect(added.device.caps).toEqual([
      { media: 'video/x-raw', format: 'I420', width: 320, height: 240, framerates: ['25/1'] },
    ]);
    expect(events.some((e) => e.type === 'removed')).toBe(false);

    fake.fakeCameraRemove('/dev/video91');
    const removed = await waitFor('the removed event',
      () => events.find((e) => e.type === 'removed' && e.device.path === '/dev/video91'));
    expect(removed.device.name).toBe('Fake Cam (hotplug)');
    expect(events.filter((e) => e.device.path === '/dev/video91').map((e) => e.type)).toEqual(['added', 'removed']);
  });

  it('stop() is idempotent and no event arrives after it', async () => {
    const events: Native.DeviceEvent[] = [];
    const m = monitor(events);
    m.start();
    m.stop();
    m.stop();
    addCamera('/dev/video92', 'After stop');
    await sleep(300);
    expect(events.filter((e) => e.device.path === '/dev/video92')).toEqual([]);
  });

  it('can start again after stop(), but not twice without stopping', async () => {
    addCamera('/dev/video93', 'Restart');
    const events: Native.DeviceEvent[] = [];
    const m = monitor(events);
    expect(m.start().map((d) => d.path)).toContain('/dev/video93');
    expect(codeOf(() => m.start())).toBe('NG_ERR_STATE');
    m.stop();
    expect(m.start().map((d) => d.path)).toContain('/dev/video93');
    await waitFor('an added event after the restart',
      () => events.find((e) => e.type === 'added' && e.device.path === '/dev/video93'));
  });

  it('a stopped monitor lets the process exit; a running one keeps it alive', async () => {
    const script = (stop: boolean) => `
      const n = require(${JSON.stringify(nativeDir)});
      const f = require(${JSON.stringify(fakeDir)});
      n.init();
      f.registerFakeCameraProvider();
      f.fakeCameraAdd('/dev/video94', 'Child', 'video/x-raw,width=320,height=240,framerate=30/1');
      const m = new n.DeviceMonitor(['Video/Source'], () => {});
      if (m.start().length !== 1) process.exit(3);
      ${stop ? 'm.stop(); m.stop();' : ''}
    `;
    const [stopped, running] = await Promise.all([runChild(script(true), 8000), runChild(script(false), 2000)]);
    expect(stopped.stderr).toBe('');
    expect(stopped).toMatchObject({ exited: true, code: 0 });
    expect(running.exited).toBe(false); // the control: without stop() the process would still be running
  });

  it('a hot-plug storm while the JS thread is busy: the bounded queue (256) delivers what it held, in order, and counts the rest', async () => {
    const QUEUE = 256;
    const STORM = 300;
    const events: Native.DeviceEvent[] = [];
    const m = monitor(events);
    const present = m.start().length;
    // Devices present at start are announced as 'added' too: once those have arrived the queue is empty.
    await waitFor('the coldplug events', () => (events.length >= present ? true : undefined));
    expect(m.droppedEvents()).toBe(0);
    const before = events.length;
    const paths = Array.from({ length: STORM }, (_, i) => `/dev/video${1000 + i}`);
    // The fake provider posts on the calling thread, and JS takes nothing from the queue until this loop returns.
    for (const path of paths) addCamera(path, 'Storm', 'video/x-raw');
    expect(m.droppedEvents()).toBe(STORM - QUEUE);
    await waitFor('the queued events', () => (events.length - before >= QUEUE ? true : undefined));
    expect(events.slice(before).map((e) => `${e.type} ${e.device.path}`)).toEqual(paths.slice(0, QUEUE).map((p) => `added ${p}`));
  });

  it('rejects bad arguments with NG_ERR_ARG', () => {
    expect(codeOf(() => fake.fakeCameraAdd('/dev/video95', 'Bad', 'video/x-raw,width=(int)notanumber'))).toBe('NG_ERR_ARG');
    expect(codeOf(() => fake.fakeCameraAdd('/dev/video95', 'Bad', ''))).toBe('NG_ERR_ARG');
    expect(codeOf(() => fake.fakeCameraRemove('/dev/no-such-camera'))).toBe('NG_ERR_ARG');
    addCamera('/dev/video96', 'Once', 'video/x-raw');
    expect(codeOf(() => fake.fakeCameraAdd('/dev/video96', 'Twice', 'video/x-raw'))).toBe('NG_ERR_ARG');
    expect(codeOf(() => new native.DeviceMonitor('Video/Source' as unknown as string[], () => {}))).toBe('NG_ERR_ARG');
    expect(codeOf(() => new native.DeviceMonitor(['Video/Source'], undefined as unknown as () => void))).toBe('NG_ERR_ARG');
  });
});
