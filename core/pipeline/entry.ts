/**
 * What the manager keeps for each pipeline, and the pipeline object every response shows of it. Each group of fields
 * has one writer, named beside it; everything here is data and pure functions of it.
 */
import type { FramegrabSettings } from '../framegrabs/branch';
import { SnapshotSlot } from '../framegrabs/snapshots';
import { newLifecycle, type Lifecycle } from './lifecycle';
import type { PipelineDefinition, PipelineView, StoreMeta } from './model';
import type { UriSecrets } from '../secrets/uri-secrets';
import { SerialQueue } from './serial-queue';
import type { HealthJudgement } from './stats';
import type { PipelineCounters, PipelineStats } from './stats-model';

export interface Entry {
  /** Written by the manager alone (PipelineManager.redefine): create, PUT, PATCH and a rebuild's rollback. */
  def: PipelineDefinition;
  /** Written by the pipeline's supervisor alone, one method per field (core/pipeline/lifecycle-writer.ts); read-only to everyone else. */
  readonly life: Readonly<Lifecycle>;
  queue: SerialQueue;
  /** Written by the storage commands alone (core/pipeline/storage.ts). */
  store: StoreMeta | null;
  // Written by the feature commands alone (core/pipeline/features.ts):
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
  // Written by the health record alone (core/pipeline/health-record.ts):
  lastError: string | null;
  /** Since the pipeline was created. */
  counters: PipelineCounters;
  /** Times (ms) of recent failures: errors, host deaths, failed starts (trimmed to the health window). */
  failures: number[];
  /** The failure of the last start the operator asked for (create, play, restore); cleared by stop, play, update. */
  startFailure: string | null;
  /** The last health judged, so a change is sent as pipeline_status. */
  health: HealthJudgement;
}

export function newEntry(def: PipelineDefinition, store: StoreMeta | null): Entry {
  return {
    def, life: newLifecycle(), queue: new SerialQueue(), store,
    framegrab: null, klvWanted: false, klvSeen: false, snapshot: new SnapshotSlot(), snapshotting: false, framegrabSavedAt: 0,
    lastError: null, counters: { host_restarts: 0, source_reconnects: 0, errors: 0, last_error: null }, failures: [],
    startFailure: null, health: { health: 'ok', reason: null },
  };
}

/**
 * What the modules beside the manager (storage, features) need of its table: an entry by id, its pipeline object,
 * and watchers told of a change.
 */
export interface EntryTable {
  /** The entry of id; 404 with the code the route lists (NOT_FOUND, or PIPELINE_NOT_FOUND for the store routes). */
  entry(id: string, notFoundCode?: 'NOT_FOUND' | 'PIPELINE_NOT_FOUND'): Entry;
  view(e: Entry): PipelineView;
  /** Tells watchers e's pipeline object changed (pipeline_status), and returns it. */
  changed(e: Entry): PipelineView;
  /** Runs task inside id's queue, once the pipeline is known to be still there (a command queued before a DELETE). */
  command<T>(id: string, task: (e: Entry) => Promise<T>): Promise<T>;
}

/** The statistics of e now, or null while it does not play. */
export function statsOf(e: Entry, now = Date.now()): PipelineStats | null {
  return e.life.state === 'playing' && e.life.stats ? e.life.stats.figures(now, e.counters) : null;
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
    state: e.life.state,
    started_by: e.life.state === 'playing' ? e.life.startedBy : null,
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
