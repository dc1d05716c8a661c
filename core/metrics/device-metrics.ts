/**
 * Camera hot-plug events lost before the API saw them. The device monitor's queue from GStreamer's threads to the JS
 * thread is bounded (256 events, native/src/devices.c), so a JS thread stalled through a hot-plug storm costs events,
 * not memory; a lost event leaves the camera list stale until that camera changes again, which nothing else would
 * tell. Read when scraped, like the pipelines' counters (docs/metrics.md, "Counters from a snapshot").
 */
import { Counter, type Registry } from 'prom-client';

/** Registers the family (0 until a source is given); the function it answers gives the source of the total. */
export function registerDeviceMetrics(registry: Registry): (droppedEvents: () => number) => void {
  let read = () => 0;
  new Counter({
    name: 'encoderd_camera_events_dropped_total',
    help: 'Camera hot-plug events the device monitor\'s bounded queue to the API\'s JS thread dropped, since the service started.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
  return (droppedEvents) => { read = droppedEvents; };
}
