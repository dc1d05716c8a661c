/**
 * The cameras present now, kept by the addon's GstDeviceMonitor (class Video/Source) running in the API
 * process: it is a GStreamer bus watch and a thread-safe callback, no media flows through it, so a fault in
 * a pipeline cannot reach it and it cannot reach a pipeline.
 *
 * The monitor announces devices present at start as 'added' too, and a provider may repeat itself: the map
 * keyed by device path dedupes, so listeners hear each arrival and each departure once.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { DeviceEvent, DeviceInfo, DeviceMonitor } from '../../native';

export type CameraDevice = DeviceInfo & { path: string };

export type CameraChange = { type: 'added'; device: CameraDevice } | { type: 'removed'; device_path: string };

export interface MonitorFactory {
  (classes: string[], onEvent: (ev: DeviceEvent) => void): Pick<DeviceMonitor, 'start' | 'stop'>;
}

export class CameraMonitor {
  private readonly devices = new Map<string, CameraDevice>();
  private readonly emitter = new EventEmitter();
  private monitor: Pick<DeviceMonitor, 'start' | 'stop'> | null = null;

  constructor(private readonly factory: MonitorFactory, private readonly log: Logger) {
    // Every SSE client is a listener.
    this.emitter.setMaxListeners(0);
  }

  start(): void {
    if (this.monitor) return;
    const m = this.factory(['Video/Source'], (ev) => this.onEvent(ev));
    this.monitor = m;
    for (const d of m.start()) this.add(d);
  }

  stop(): void {
    this.monitor?.stop();
    this.monitor = null;
  }

  list(): CameraDevice[] {
    return [...this.devices.values()].sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  }

  get(path: string): CameraDevice | undefined {
    return this.devices.get(path);
  }

  subscribe(fn: (change: CameraChange) => void): () => void {
    this.emitter.on('change', fn);
    return () => this.emitter.off('change', fn);
  }

  private onEvent(ev: DeviceEvent): void {
    if (ev.type === 'added') this.add(ev.device);
    else if (ev.device.path && this.devices.delete(ev.device.path)) {
      this.log.info({ device_path: ev.device.path }, 'camera removed');
      this.emitter.emit('change', { type: 'removed', device_path: ev.device.path } satisfies CameraChange);
    }
  }

  private add(d: DeviceInfo): void {
    // Without a device path a camera cannot be named in a source URI; nothing to offer.
    if (!d.path) return;
    const known = this.devices.has(d.path);
    this.devices.set(d.path, d as CameraDevice);
    if (known) return;
    this.log.info({ device_path: d.path, device_name: d.name }, 'camera added');
    this.emitter.emit('change', { type: 'added', device: d as CameraDevice } satisfies CameraChange);
  }
}
