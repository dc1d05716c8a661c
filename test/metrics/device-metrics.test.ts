/**
 * Camera events the device monitor's bounded queue dropped, as encoderd_camera_events_dropped_total: the
 * CameraMonitor's total over its monitors (a stop and a start begin a new native monitor, whose count starts at 0),
 * read at each scrape. Pure: a scripted monitor stands in for the addon's, whose own count over its bound
 * test/native/devices.test.ts drives with the fake camera provider.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { CameraMonitor } from '../../core/devices/camera-monitor';
import { createServiceMetrics } from '../../core/metrics/service-metrics';

function scripted() {
  const monitors: Array<{ dropped: number }> = [];
  const cameras = new CameraMonitor(() => {
    const m = { dropped: 0 };
    monitors.push(m);
    return { start: () => [], stop: () => undefined, droppedEvents: () => m.dropped };
  }, pino({ level: 'silent' }));
  return { cameras, monitors };
}

const total = (text: string) => /^encoderd_camera_events_dropped_total (\S+)$/m.exec(text)?.[1];

describe('encoderd_camera_events_dropped_total', () => {
  it('is 0 until the devices are connected, then what the monitors dropped, across a stop and a start', async () => {
    const metrics = createServiceMetrics(Fastify({ logger: false }) as unknown as FastifyInstance, () => []);
    expect(total(await metrics.registry.metrics())).toBe('0');

    const { cameras, monitors } = scripted();
    metrics.cameraEventsDroppedFrom(() => cameras.droppedEvents());
    expect(total(await metrics.registry.metrics())).toBe('0');
    cameras.start();
    monitors[0].dropped = 3;
    expect(total(await metrics.registry.metrics())).toBe('3');
    cameras.stop();
    cameras.start();
    monitors[1].dropped = 4;
    expect(total(await metrics.registry.metrics())).toBe('7');
    cameras.stop();
    expect(cameras.droppedEvents()).toBe(7);
  });

  it('a monitor that does not count drops none', () => {
    const cameras = new CameraMonitor(() => ({ start: () => [], stop: () => undefined }), pino({ level: 'silent' }));
    cameras.start();
    expect(cameras.droppedEvents()).toBe(0);
  });
});
