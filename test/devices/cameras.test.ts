/**
 * Camera discovery on the real service: GET /svc/cameras, GET /svc/camera?path=, and the SSE stream.
 *
 * No V4L2 hardware can be attached to a test machine, and the service runs in another process than the test.
 * So the service is started with a test-only preload (test/helpers/fake-cameras.ts): it registers the test addon's
 * fake GstDeviceProvider, which stands in for the V4L2 provider, and plugs one fake camera per JSON file in a
 * directory (deleting the file unplugs it). Everything under test is real: the GstDeviceMonitor in the
 * service, the DeviceInfo → camera record mapping, the dedupe by path, the routes and the SSE stream.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { CameraMonitor } from '../../core/devices/camera-monitor';
import { cameraUser, formatsOf } from '../../core/devices/camera-record';
import v4l2 from '../../plugins/sources/v4l2';
import type { DeviceEvent } from '../../native';
import type { PipelineView } from '../../core/pipeline/model';
import { fakeCameraEnv } from '../helpers/fake-cameras';
import { startService, waitFor, type RunningService } from '../helpers/service';
import { openSse, type SseClient } from '../helpers/sse';

const COLDPLUG_CAPS = 'video/x-raw,format=YUY2,width=640,height=480,framerate={30/1,15/1}; '
  + 'video/x-raw,format=YUY2,width=1280,height=720,framerate=10/1; '
  + 'image/jpeg,width=1920,height=1080,framerate={30/1,60/1}';

function plug(dir: string, file: string, cam: { path: string; name: string; caps: string }): void {
  // Written whole then renamed, as a camera arrives whole.
  writeFileSync(join(dir, `${file}.tmp`), JSON.stringify(cam));
  renameSync(join(dir, `${file}.tmp`), join(dir, `${file}.json`));
}

describe('cameras over HTTPS (fake V4L2 provider)', () => {
  let svc: RunningService;
  let camDir: string;
  let early: SseClient;
  let earlyOpenedAt: number;

  beforeAll(async () => {
    camDir = mkdtempSync(join(tmpdir(), 'fake-cams-'));
    plug(camDir, 'coldplug', { path: '/dev/video10', name: 'Coldplug Cam', caps: COLDPLUG_CAPS });
    svc = await startService({ env: fakeCameraEnv(camDir) });
    // Opened now and read by the last test, after the spec's 30-second keepalive interval has passed.
    early = await openSse(svc.port, '/svc/cameras/events');
    earlyOpenedAt = Date.now();
  });

  afterAll(async () => {
    early?.close();
    await svc?.stop();
    rmSync(camDir, { recursive: true, force: true });
  });

  it('lists a camera present at start once (the monitor also announces it as added: deduped by path)', async () => {
    const r = await svc.api('GET', '/svc/cameras');
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{
      device_path: '/dev/video10',
      device_name: 'Coldplug Cam',
      driver: 'fake',
      formats: [
        { media: 'video/x-raw', format: 'YUY2', sizes: [
          { width: 640, height: 480, framerates: ['30/1', '15/1'] },
          { width: 1280, height: 720, framerates: ['10/1'] },
        ] },
        { media: 'image/jpeg', format: 'MJPEG', sizes: [{ width: 1920, height: 1080, framerates: ['30/1', '60/1'] }] },
      ],
      in_use_by: null,
    }]);
  });

  it('GET /svc/camera?path= answers the record, 404 for an unknown path, 400 without a path', async () => {
    const one = await svc.api('GET', '/svc/camera?path=%2Fdev%2Fvideo10');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ device_path: '/dev/video10', device_name: 'Coldplug Cam', driver: 'fake', in_use_by: null });
    expect(one.body.formats).toHaveLength(2);

    const unknown = await svc.api('GET', '/svc/camera?path=/dev/video77');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'camera "/dev/video77" not found', code: 'NOT_FOUND' });

    const missing = await svc.api('GET', '/svc/camera');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR', details: { errors: ['path is required'] } });
  });

  it('SSE: present cameras arrive as camera_added on connect, once each', async () => {
    const sse = await openSse(svc.port, '/svc/cameras/events');
    try {
      await sse.next((e) => e.event === 'camera_added');
      await new Promise((r) => setTimeout(r, 300));
      expect(sse.events).toEqual([{ event: 'camera_added', data: { device_path: '/dev/video10', device_name: 'Coldplug Cam' } }]);
    } finally {
      sse.close();
    }
  });

  it('hot-plug: camera_added then camera_removed on the stream, and the list follows', async () => {
    const sse = await openSse(svc.port, '/svc/cameras/events');
    try {
      plug(camDir, 'usb', { path: '/dev/video11', name: 'USB Hotplug Cam', caps: 'video/x-raw,format=NV12,width=320,height=240,framerate=25/1' });
      const added = await sse.next((e) => e.event === 'camera_added' && e.data.device_path === '/dev/video11');
      expect(added.data).toEqual({ device_path: '/dev/video11', device_name: 'USB Hotplug Cam' });

      const list = await svc.api('GET', '/svc/cameras');
      expect(list.body.map((c: { device_path: string }) => c.device_path)).toEqual(['/dev/video10', '/dev/video11']);
      const rec = await svc.api('GET', '/svc/camera?path=/dev/video11');
      expect(rec.body.formats).toEqual([{ media: 'video/x-raw', format: 'NV12', sizes: [{ width: 320, height: 240, framerates: ['25/1'] }] }]);

      rmSync(join(camDir, 'usb.json'));
      const removed = await sse.next((e) => e.event === 'camera_removed');
      expect(removed.data).toEqual({ device_path: '/dev/video11' });
      expect((await svc.api('GET', '/svc/camera?path=/dev/video11')).status).toBe(404);
      expect((await svc.api('GET', '/svc/cameras')).body).toHaveLength(1);

      // Each arrival and departure once; the coldplug camera only in the replay on connect.
      expect(sse.events.map((e) => `${e.event} ${e.data.device_path}`)).toEqual([
        'camera_added /dev/video10', 'camera_added /dev/video11', 'camera_removed /dev/video11',
      ]);
    } finally {
      sse.close();
    }
  });

  it('a closed SSE client is forgotten: later hot-plugs still reach open streams and the service stays healthy', async () => {
    const gone = await openSse(svc.port, '/svc/cameras/events');
    gone.close();
    const open = await openSse(svc.port, '/svc/cameras/events');
    try {
      plug(camDir, 'second', { path: '/dev/video12', name: 'Second', caps: 'video/x-raw,width=160,height=120,framerate=5/1' });
      await open.next((e) => e.event === 'camera_added' && e.data.device_path === '/dev/video12');
      rmSync(join(camDir, 'second.json'));
      await open.next((e) => e.event === 'camera_removed' && e.data.device_path === '/dev/video12');
      expect((await svc.api('GET', '/svc/healthz')).status).toBe(200);
    } finally {
      open.close();
    }
  });

  it('the stream opened at start saw every change and carries a keepalive comment every 30 s', async () => {
    const waitMs = 30_000 + 1500 - (Date.now() - earlyOpenedAt);
    if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
    await waitFor(() => early.comments.includes('keepalive'), 3000);
    expect(early.events.map((e) => `${e.event} ${e.data.device_path}`)).toEqual([
      'camera_added /dev/video10',
      'camera_added /dev/video11', 'camera_removed /dev/video11',
      'camera_added /dev/video12', 'camera_removed /dev/video12',
    ]);
  }, 45_000);
});

describe('CameraMonitor dedupe (scripted monitor in place of the addon)', () => {
  it('announces each arrival and departure once, however often the monitor repeats itself', () => {
    const cam = { name: 'Cam', deviceClass: 'Video/Source', path: '/dev/video5', driver: 'uvcvideo', caps: [], properties: {} };
    let emit: (ev: DeviceEvent) => void = () => undefined;
    const m = new CameraMonitor((_classes, onEvent) => {
      emit = onEvent;
      return { start: () => [cam], stop: () => undefined };
    }, pino({ level: 'silent' }));
    const seen: string[] = [];
    m.subscribe((c) => seen.push(c.type === 'added' ? `added ${c.device.path}` : `removed ${c.device_path}`));
    m.start();
    emit({ type: 'added', device: cam }); // the coldplug device, announced again
    emit({ type: 'added', device: { ...cam, path: null } }); // no path: cannot be used as a source, ignored
    emit({ type: 'removed', device: cam });
    emit({ type: 'removed', device: cam });
    expect(seen).toEqual(['added /dev/video5', 'removed /dev/video5']);
    expect(m.list()).toEqual([]);
  });
});

describe('camera records (pure)', () => {
  const view = (id: string, state: 'ready' | 'playing', extra: Partial<PipelineView>): PipelineView => ({
    id, mode: 'simple', on_demand: false, state, started_by: state === 'playing' ? 'api' : null, persisted: false, geolocation: null,
    klv: { available: false }, last_error: null, ...extra,
  });

  it('in_use_by names the playing pipeline whose source or multiview input is the camera', () => {
    const pipelines = [
      view('idle', 'ready', { source: { uri: 'file:///dev/video0' } }),
      view('other', 'playing', { source: { uri: 'file:///dev/video1' } }),
      view('mv', 'playing', { mode: 'multiview', inputs: [{ source: { uri: 'test://smpte' } }, { source: { uri: 'file:///dev/video2' } }] }),
      view('cam0', 'playing', { source: { uri: 'file:///dev/video0' } }),
    ];
    expect(cameraUser('/dev/video0', pipelines)).toBe('cam0');
    expect(cameraUser('/dev/video2', pipelines)).toBe('mv');
    expect(cameraUser('/dev/video3', pipelines)).toBeNull();
    // A defined but stopped pipeline does not hold its camera.
    expect(cameraUser('/dev/video0', pipelines.slice(0, 3))).toBeNull();
  });

  it('formats group caps by format and size; caps without a size keep the format with no sizes', () => {
    expect(formatsOf([
      { media: 'video/x-raw', format: 'YUY2', width: 640, height: 480, framerates: ['30/1'] },
      { media: 'video/x-h264', width: 1920, height: 1080, framerates: ['30/1'] },
      { media: 'video/x-raw', format: 'YUY2', width: 640, height: 480, framerates: ['15/1', '30/1'] },
      { media: 'video/x-bayer', framerates: [] },
    ], v4l2.deviceFormats)).toEqual([
      { media: 'video/x-raw', format: 'YUY2', sizes: [{ width: 640, height: 480, framerates: ['30/1', '15/1'] }] },
      { media: 'video/x-h264', format: 'H264', sizes: [{ width: 1920, height: 1080, framerates: ['30/1'] }] },
      { media: 'video/x-bayer', format: null, sizes: [] },
    ]);
  });
});
