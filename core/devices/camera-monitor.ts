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

/** A monitor that queues nothing drops nothing, and need not say so. */
type Monitor = Pick<DeviceMonitor, 'start' | 'stop'> & Partial<Pick<DeviceMonitor, 'droppedEvents'>>;

export interface MonitorFactory {
  (classes: string[], onEvent: (ev: DeviceEvent) => void): Monitor;
}

export class CameraMonitor {
  private readonly devices = new Map<string, CameraDevice>();
  private readonly emitter = new EventEmitter();
  private monitor: Monitor | null = null;
  /** Events the monitors stopped before this one dropped. */
  private droppedBefore = 0;

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
    this.droppedBefore = this.droppedEvents();
    this.monitor?.stop();
    this.monitor = null;
  }

  /**
   * Events the monitor's bounded queue to the JS thread dropped (a hot-plug storm while JS stalled), since the first
   * start: the list may then miss an arrival or keep a camera that left.
   */
  droppedEvents(): number {
    return this.droppedBefore + (this.monitor?.droppedEvents?.() ?? 0);
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
