/** The IPC protocol between the core and one engine host. Commands carry an id; replies echo it. */
import type { HostService, LiveChange } from '../sdk';
import type { KlvPosition } from '../klv/pacer';
import type { Meters } from '../compose';
import type { SideTransport, TransportFigures } from './transports';

export type HostCommand =
  | {
    op: 'play'; description: string; services?: HostService[]; timeoutMs: number; watchSinks?: string[]; companions?: string[];
    /** For each companion, the appsinks in it whose samples are sent like watchSinks'. */
    companionSinks?: string[][];
    /**
     * The output's KLV appsrc: the host paces ST 0601 packets into it from the start (core/klv/pacer.ts), stamped
     * `ahead` or when `due`, relaying the samples of the watched appsink `relay` (the source's KLV) when given.
     */
    klv?: { appsrc: string; position: KlvPosition | null; stamp: 'ahead' | 'due'; relay?: string };
    /** Where to measure; with it the host sends a `stats` event once a second while the pipeline runs. */
    meters?: Meters;
  }
  | { op: 'stop'; eos: boolean; timeoutMs: number }
  | { op: 'set'; changes: LiveChange[] }
  | { op: 'inspect'; description: string }
  /**
   * Runs description until the appsink `sink` (in it) has its first sample, and replies with that sample's caps as
   * text: what a passed-through source carries (ComposedPipeline.probe). NG_ERR_TIMEOUT when none comes in time.
   */
  | { op: 'probe'; description: string; sink: string; timeoutMs: number; transports?: SideTransport[] }
  | { op: 'push'; appsrc: string; data: Uint8Array; ptsNs: number }
  /** The position the KLV pacer sends from now on (null: none); sent at once. */
  | { op: 'klv'; position: KlvPosition | null }
  | { op: 'force-key-unit'; element: string }
  | { op: 'state' }
  /** A spare host handed to a pipeline (core/engine/spare-host.ts): its cmdline says `--pipeline <pipeline>` from now on. */
  | { op: 'name'; pipeline: string };

export interface HostRequest {
  id: number;
  cmd: HostCommand;
}

export interface HostErrorBody {
  code: string;
  message: string;
}

export type HostReply = { id: number; ok: true; result?: unknown } | { id: number; ok: false; error: HostErrorBody };

/** Raw totals since the pipeline started, as the engine host measured them (core/engine/host-stats.ts). */
export interface StatsSample {
  /** Wall-clock time of the sample, in ms (monotonic within one host). */
  atMs: number;
  /** Encoded frames on their way to the output; null where nothing counts them (advanced mode, on demand). */
  frames: number | null;
  /** Bytes that reached the output's sinks; null on demand (the media runs inside the RTSP server). */
  bytes: number | null;
  sourceFrames: number | null;
  /** Multiview: frames that reached each input's compositor pad. */
  inputs: number[];
  qosDropped: number;
  rateDropped: number | null;
  rateDuplicated: number | null;
  latencyNs: number | null;
  /** Clients of the pipeline's RTSP server; null without one. */
  rtspClients: number | null;
  /**
   * Bus messages and appsink samples the bounded queue to the host's JS thread dropped (native ipcDropped()), since
   * the pipeline was built; absent without a pipeline in the host (on demand).
   */
  ipcDropped?: number;
  /**
   * Events of the pipeline's host services (its RTSP server's client and media events) that the bounded queue to the
   * host's JS thread dropped (native RtspServer.droppedEvents()), since they started; absent without a service. The
   * native host writes them to the core with no queue between, and drops none.
   */
  serviceEventsDropped?: number;
  /** The figures of the transports that declare stats (Meters.transports), per side; absent without any. */
  transport?: TransportFigures;
}

export type HostEvent =
  | { event: 'ready'; pid: number }
  | { event: 'state'; state: string }
  | { event: 'error'; message: string; source: string; debug: string }
  | { event: 'warning'; message: string; source: string }
  | { event: 'eos' }
  /** A service's event (core/engine/services/service.ts ServiceEvent). */
  | { event: 'service'; kind: string; type: string; clients?: number; path?: string }
  | { event: 'sample'; sink: string; data: Uint8Array; pts: number }
  | { event: 'element'; source: string; name: string; fields: Record<string, unknown> }
  | { event: 'stats'; sample: StatsSample };

export type HostMessage = HostReply | HostEvent;

export function isReply(m: HostMessage): m is HostReply {
  return typeof (m as HostReply).id === 'number';
}
