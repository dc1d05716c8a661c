/**
 * What the manager keeps for each pipeline, and the pipeline object every response shows of it. Only the
 * manager changes an Entry; everything here is data and pure functions of it.
 */
import type { EngineHost } from '../engine/host-process';
import type { FramegrabSettings } from '../framegrabs/branch';
import { SnapshotSlot } from '../framegrabs/snapshots';
import type { ComposedPipeline } from '../compose';
import type { PipelineDefinition, PipelineState, PipelineView, StartedBy, StoreMeta } from './model';
import type { UriSecrets } from '../secrets/uri-secrets';
import { SerialQueue } from './serial-queue';
import type { HealthJudgement, StatsWindow } from './stats';
import type { PipelineCounters, PipelineStats } from './stats-model';

export interface Entry {
  def: PipelineDefinition;
  state: PipelineState;
  startedBy: StartedBy;
  /** What the operator asked for; recovery works towards it. */
  wanted: 'playing' | 'ready';
  host: EngineHost | null;
  queue: SerialQueue;
  running: ComposedPipeline | null;
  lastError: string | null;
  store: StoreMeta | null;
  restartAttempts: number;
  restartTimer: NodeJS.Timeout | null;
  deleted: boolean;
  /** A stop is under way: the end-of-stream it causes is not a lost source. */
  stopping: boolean;
  /** Framegrabs the operator wants (kept across stop and play), or null. */
  framegrab: FramegrabSettings | null;
  /** The current picture for GET …/snapshot, and whether someone is asking (core/framegrabs/snapshots.ts). */
  snapshot: SnapshotSlot;
  /** Whether the framegrab branch runs at the snapshots' rate now (what was last applied to the host). */
  snapshotting: boolean;
  /** When the last framegrab was saved (ms): at the snapshots' rate, one is saved per interval. */
  framegrabSavedAt: number;
  /** Whether the operator wants the source's KLV decoded into `klv` events. */
  klvWanted: boolean;
  /** KLV has arrived from the source. */
  klvSeen: boolean;
  /** The video codec a probe found in the passed-through source; forgotten when the source is lost or a start fails. */
  probedCodec?: string;
  /** The samples of the current run while it plays (core/pipeline/stats.ts), else null. */
  stats: StatsWindow | null;
  /** Since the pipeline was created. */
  counters: PipelineCounters;
  /** Times (ms) of recent failures: errors, host deaths, failed starts (trimmed to the health window). */
  failures: number[];
  /** When the operator last wanted it playing (ms), for the stall rule; null while not wanted. */
  wantedSince: number | null;
  /** The failure of the last start the operator asked for (create, play, restore); cleared by stop, play, update. */
  startFailure: string | null;
  /**
   * The current run was interrupted (an error, a lost source) and is being halted: what its dying pipeline posts next
   * (the end-of-stream after a muxer's error) is a consequence, not another failure. Cleared at the next start.
   */
  interrupted: boolean;
  /** Counts starts: which run an interruption belongs to. */
  run: number;
  /** The last health judged, so a change is sent as pipeline_status. */
  health: HealthJudgement;
}

export function newEntry(def: PipelineDefinition, store: StoreMeta | null): Entry {
  return {
    def, state: 'ready', startedBy: null, wanted: 'ready', host: null, queue: new SerialQueue(), running: null,
    lastError: null, store, restartAttempts: 0, restartTimer: null, deleted: false, stopping: false,
    framegrab: null, klvWanted: false, klvSeen: false, snapshot: new SnapshotSlot(), snapshotting: false, framegrabSavedAt: 0,
    stats: null, counters: { host_restarts: 0, source_reconnects: 0, errors: 0, last_error: null }, failures: [], wantedSince: null,
    startFailure: null, interrupted: false, run: 0, health: { health: 'ok', reason: null },
  };
}

/** The statistics of e now, or null while it does not play. */
export function statsOf(e: Entry, now = Date.now()): PipelineStats | null {
  return e.state === 'playing' && e.stats ? e.stats.figures(now, e.counters) : null;
}

/**
 * The pipeline object of every response. Shallow: the manager never changes a definition's nested objects in
 * place (a change builds new ones), so a view handed out stays what it was without a deep clone. Written out field
 * by field rather than spread: a GET of 50 pipelines spent most of its time in V8's generic object spread (35×
 * slower here; see docs/benchmarks.md). A new definition field must be added here too. Secrets in URIs show as ***
 * (core/secrets/uri-secrets.ts): only a URI object that has some is copied, once per object.
 */
export function viewOf(e: Entry, secrets?: UriSecrets, now = Date.now()): PipelineView {
  const d = e.def;
  const view: PipelineView = {
    id: d.id, mode: d.mode, on_demand: d.on_demand,
    source: d.source && secrets ? secrets.spec(d.source, 'source') : d.source,
    inputs: d.inputs && secrets ? secrets.inputs(d.inputs) : d.inputs,
    encoding: d.encoding,
    output: d.output && secrets ? secrets.spec(d.output, 'output') : d.output,
    audio: d.audio, raw_pipeline: d.raw_pipeline,
    state: e.state,
    started_by: e.state === 'playing' ? e.startedBy : null,
    persisted: e.store !== null,
    geolocation: e.def.geolocation ?? null,
    klv: e.klvSeen ? { available: true, state: e.klvWanted ? 'running' : 'stopped' } : { available: false },
    framegrab: e.framegrab ? { state: 'running', ...e.framegrab } : { state: 'stopped' },
    last_error: e.lastError,
    health: e.health.health,
    health_reason: e.health.reason,
    stats: statsOf(e, now),
  };
  if (e.store) {
    view.auto_start = e.store.auto_start;
    view.description = e.store.description;
  }
  return view;
}
