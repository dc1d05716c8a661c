/**
 * The engine host's side of the statistics: counts buffers on the pads the composer named (ComposedPipeline.meters)
 * and on every output sink, and once a second sends the raw totals to the core, which turns them into rates and
 * health (core/pipeline/stats.ts). Reading costs a few property reads a second; counting costs two atomic adds a
 * buffer on the streaming thread (docs/benchmarks.md has the measured cost). A transport the source or output
 * declares (core/sdk/transport.ts) adds one structure property read a second.
 */
import type { Pipeline } from '../../native';
import type { Meters, PadRef } from '../compose';
import type { StatsSample } from './protocol';
import type { ServiceFigures } from './services';
import { transportFigures, type TransportFigures } from './transports';

export const STATS_INTERVAL_MS = 1000;

export class StatsSampler {
  private timer: NodeJS.Timeout | null = null;
  private readonly outputs: string[];

  /** Installs the counters: call before the pipeline goes to PLAYING, so the first buffer is counted. */
  constructor(
    private readonly pipeline: Pipeline | null,
    private readonly meters: Meters,
    /** null without a service. */
    private readonly services: () => ServiceFigures | null,
    private readonly send: (sample: StatsSample) => void,
  ) {
    const internal = new Set(meters.internalSinks);
    this.outputs = pipeline ? pipeline.sinks().filter((s) => !internal.has(s)) : [];
    if (!pipeline) return;
    for (const ref of this.pads()) pipeline.countBuffers(ref.element, ref.pad);
  }

  private pads(): PadRef[] {
    const m = this.meters;
    return [m.frames, m.source, ...(m.inputs ?? []), ...this.outputs.map((element) => ({ element, pad: 'sink' }))]
      .filter((r): r is PadRef => Boolean(r));
  }

  start(): void {
    this.timer ??= setInterval(() => this.tick(), STATS_INTERVAL_MS);
    this.tick();
  }

  private tick(): void {
    try {
      this.send(this.sample());
    } catch {
      // The pipeline is being torn down between two samples: the next play starts a new sampler.
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  sample(): StatsSample {
    const p = this.pipeline;
    const m = this.meters;
    const at = performance.timeOrigin + performance.now();
    if (!p) {
      return { atMs: at, frames: null, bytes: null, sourceFrames: null, inputs: [], qosDropped: 0, rateDropped: null, rateDuplicated: null, latencyNs: null, ...this.serviceFigures() };
    }
    const count = (ref: PadRef | undefined) => (ref ? p.counted(ref.element, ref.pad).buffers : null);
    let bytes = 0;
    for (const s of this.outputs) bytes += p.counted(s, 'sink').bytes;
    const latency = this.outputs.length ? p.latency(this.outputs[0]) : null;
    const ipc = p.ipcDropped();
    return {
      atMs: at,
      frames: count(m.frames),
      bytes,
      sourceFrames: count(m.source),
      inputs: (m.inputs ?? []).map((ref) => p.counted(ref.element, ref.pad).buffers),
      qosDropped: p.qosDropped(),
      rateDropped: m.rate ? Number(p.getProperty(m.rate, 'drop')) : null,
      rateDuplicated: m.rate ? Number(p.getProperty(m.rate, 'duplicate')) : null,
      latencyNs: latency?.live && latency.minNs >= 0 ? latency.minNs : null,
      ...this.serviceFigures(),
      ipcDropped: ipc.messages + ipc.samples,
      ...this.transports(p),
    };
  }

  private serviceFigures(): Pick<StatsSample, 'rtspClients' | 'serviceEventsDropped'> {
    const s = this.services();
    return s ? { rtspClients: s.clients, serviceEventsDropped: s.eventsDropped } : { rtspClients: null };
  }

  /** `{transport}` with each declared transport's figures, by side; `{}` when none declares stats or none reports yet. */
  private transports(p: Pipeline): { transport?: TransportFigures } {
    const figures: TransportFigures = {};
    for (const t of this.meters.transports ?? []) {
      if (!t.stats) continue;
      const f = transportFigures(t.stats, structureText(p, t.element, t.stats.property));
      if (f) figures[t.side] = f;
    }
    return Object.keys(figures).length ? { transport: figures } : {};
  }
}

/** A structure-valued property as text (the addon writes structures with gst_structure_to_string); null when unread. */
function structureText(p: Pipeline, element: string, property: string): string | null {
  try {
    const value = p.getProperty(element, property);
    return typeof value === 'string' ? value : null;
  } catch {
    // A misdeclared element or property costs its figures only, not the rest of the sample.
    return null;
  }
}
