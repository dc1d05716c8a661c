/**
 * The pipeline manager: the one owner of pipeline state. Every command on a pipeline (play, stop, patch,
 * update, delete, store) runs through that pipeline's serial queue, so concurrent requests apply in order;
 * only the manager decides transitions and conflicts. Routes stay thin.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { ApiError, validationError } from '../errors/catalogue';
import type { EngineHost, EngineHostFactory } from '../engine/host-process';
import { HostCommandError, type HostExit } from '../engine/host-process';
import type { HostEvent } from '../engine/protocol';
import type { PipelineEvents } from '../events/pipeline-events';
import type { LicenceGate } from '../licence/gate';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim } from '../sdk';
import type { ElementInfo } from '../../native';
import type { Store } from '../store/json-store';
import { maskSecrets } from '../secrets/known-secrets';
import { UriSecrets } from '../secrets/uri-secrets';
import { ClaimTable, conflictMessage } from './claims';
import { inspectFacts } from '../compose/advanced';
import { CodecRefusedError, composePipeline, ComposeError, outputDirOf, type ComposedPipeline, type ComposeSettings } from '../compose';
import type { PipelineDefinition, PipelineState, PipelineView, StartedBy, StoreMeta } from './model';
import { newEntry, viewOf, type Entry } from './entry';
import { SourceRefusedError, startFailure, type StartCause } from './start-failure';
import { branchChanges, type FramegrabSettings } from '../framegrabs/branch';
import { SNAPSHOT_QUALITY } from '../framegrabs/snapshots';
import type { FramegrabStore } from '../framegrabs/store';
import { klvEvent } from '../klv/extractor';
import { toPosition } from '../klv/geolocation';
import type { KlvPosition } from '../klv/pacer';
import { notFound, PipelineValidator } from './validate';
import type { PipelineMetricsRow, PipelineStats } from './stats-model';
import { FAILURE_WINDOW_MS, isFlowConsequence, judgeHealth, StatsWindow } from './stats';
import { statsOf } from './entry';
import { ViewJson } from './view-json';

/** The filters of GET /svc/pipeline. */
export interface PipelineFilter {
  mode?: string;
  on_demand?: boolean;
  state?: string;
}

export interface ManagerOptions {
  startTimeoutMs: number;
  stopTimeoutMs: number;
  rtspLatencyMs: () => number;
  /** Backoff for restarting a dead host or a failed source: base, doubling to max. */
  restartBaseMs: number;
  restartMaxMs: number;
  /** `<data dir>/outputs`, where each pipeline with an output gets its own directory (ComposeContext.outputDir). */
  outputsDir?: string;
  /** The admission figure: the most width × height × fps all playing encoding pipelines may add up to (0: none). */
  maxTotalPixelRate?: number;
}

const STORE = 'pipelines';

interface StoredPipeline extends StoreMeta {
  definition: PipelineDefinition;
  stored_at: string;
}

export class PipelineManager {
  private readonly entries = new Map<string, Entry>();
  private readonly claims = new ClaimTable();
  readonly validator: PipelineValidator;
  /** Secrets in URIs: *** in views, kept when sent back masked, known to the logs while a pipeline holds them. */
  private readonly secrets: UriSecrets;
  private readonly viewJson: ViewJson;
  private shuttingDown = false;
  /** Judges every pipeline's health once a second: a stall shows even when no sample arrives (docs/api.md). */
  private readonly healthTimer: NodeJS.Timeout;

  constructor(
    private readonly registry: PluginRegistry,
    private readonly hosts: EngineHostFactory,
    private readonly events: PipelineEvents,
    private readonly store: Store,
    private readonly licence: LicenceGate,
    private readonly log: Logger,
    private readonly opts: ManagerOptions,
    private readonly framegrabs: FramegrabStore | null = null,
  ) {
    this.validator = new PipelineValidator(registry);
    this.secrets = new UriSecrets(registry);
    this.viewJson = new ViewJson(this.secrets);
    this.healthTimer = setInterval(() => {
      for (const e of this.entries.values()) {
        this.checkOutput(e);
        this.judge(e);
        this.settleSnapshots(e);
      }
    }, 1000);
    this.healthTimer.unref();
  }

  // ---- queries -------------------------------------------------------------------------------------------

  list(filter: PipelineFilter = {}): PipelineView[] {
    return this.matching(filter).map((e) => this.view(e));
  }

  get(id: string): PipelineView {
    return this.view(this.entry(id));
  }

  /** list() as JSON text, kept per pipeline between changes (core/pipeline/view-json.ts): what GET answers. */
  listJson(filter: PipelineFilter = {}): string {
    return this.viewJson.list(this.matching(filter));
  }

  /** get() as JSON text. */
  getJson(id: string): string {
    return this.viewJson.of(this.entry(id));
  }

  private matching(filter: PipelineFilter): Entry[] {
    return [...this.entries.values()].filter((e) => (filter.mode === undefined || e.def.mode === filter.mode)
      && (filter.on_demand === undefined || e.def.on_demand === filter.on_demand)
      && (filter.state === undefined || e.state === filter.state));
  }

  /**
   * The output's session description (GET /sdp): of what runs, or else of the definition. A passed-through stream's
   * codec is known only once probed (at its start), so until then its pipeline has none.
   */
  sdp(id: string): string | undefined {
    const e = this.entry(id);
    return (e.running?.description ? e.running : this.compose(e.def, e.probedCodec)).sdp;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  private entry(id: string, notFoundCode: 'NOT_FOUND' | 'PIPELINE_NOT_FOUND' = 'NOT_FOUND'): Entry {
    const e = this.entries.get(id);
    if (!e) throw notFoundCode === 'NOT_FOUND' ? notFound(id) : new ApiError('PIPELINE_NOT_FOUND', `pipeline "${id}" not found`);
    return e;
  }

  private view(e: Entry): PipelineView {
    return viewOf(e, this.secrets);
  }

  // ---- create, update, delete ----------------------------------------------------------------------------

  async create(body: unknown): Promise<PipelineView> {
    const def = this.validator.definition(this.secrets.unmask(body));
    if (this.entries.has(def.id)) {
      throw new ApiError('PIPELINE_CONFLICT', `pipeline id "${def.id}" is in use by pipeline "${def.id}"`);
    }
    const planned = this.compose(def);
    // An on-demand pipeline is a stream while its RTSP server listens: any viewer may start it (docs/api.md).
    this.checkLicence(def.id, planned.features, true);
    // A stored copy of this id outlives DELETE without delete_persisted: the new pipeline is in storage (docs/api.md).
    const stored = this.storedMeta(def);
    const e = this.newEntry(def, stored);
    // Advanced pipelines are parsed by their own engine host now: a bad description answers 400 before anything is kept.
    const facts = await this.facts(e, def).catch(async (err) => {
      await this.discard(e);
      // POST lists no 500 or 503: an engine that cannot check the description is a start that failed (docs/errors.md).
      throw err instanceof HostCommandError && err.code === 'NG_ERR_PARSE' ? validationError([`raw_pipeline: ${err.message}`]) : startFailure(err, 'create');
    });
    if (this.entries.has(def.id)) {
      await this.discard(e);
      throw new ApiError('PIPELINE_CONFLICT', `pipeline id "${def.id}" is in use by pipeline "${def.id}"`);
    }
    try {
      this.checkLicence(def.id, [...planned.features, ...facts.features], true);
    } catch (err) {
      await this.discard(e);
      throw err;
    }
    // Claims are checked now so a doomed create answers 409 before anything starts.
    const found = this.claims.check(def.id, facts.claims);
    if (found) {
      await this.discard(e);
      throw new ApiError('PIPELINE_CONFLICT', conflictMessage(found, def.id));
    }
    const absent = this.validator.presenceProblems(def);
    if (absent.length) {
      await this.discard(e);
      throw validationError(absent);
    }
    this.entries.set(def.id, e);
    this.secrets.hold(def);
    this.events.emit({ type: 'status', id: def.id, pipeline: this.view(e) });
    await e.queue.run(async () => {
      await this.ensureHost(e).catch(() => undefined);
      try {
        // POST lists 504 for a start that fails; an RTSP server that cannot listen is one (docs/errors.md).
        if (def.on_demand) await this.serveOnDemand(e, 'create').catch((err) => { throw startFailure(err, 'create'); });
        else {
          this.want(e, 'playing');
          await this.start(e, 'api', 'create');
        }
      } catch (err) {
        // A 400 refuses the create (a passed-through source's codec the output cannot carry): nothing is kept, as for
        // any other 400. A start that fails otherwise (504) keeps the pipeline, ready, with last_error (docs/api.md).
        if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') await this.withdraw(e, false);
        throw err;
      }
    });
    return this.view(e);
  }

  private newEntry(def: PipelineDefinition, store: StoreMeta | null): Entry {
    return newEntry(def, store);
  }

  update(id: string, body: unknown): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      if (e.state === 'playing') throw new ApiError('CONFLICT', `pipeline "${id}" is running; stop it first`);
      if (e.def.on_demand && e.running) throw new ApiError('CONFLICT', `pipeline "${id}" is on demand and its RTSP server is listening; stop it first`);
      const def = this.validator.definition(this.secrets.unmask(body, e.def));
      if (def.id !== id) throw validationError([`id must be "${id}", the pipeline being replaced`]);
      if (def.on_demand && e.store) throw validationError([`on_demand cannot be true: pipeline "${id}" is in storage, and only on_demand=false pipelines can be stored (DELETE /svc/pipeline/${id}/store first)`]);
      this.compose(def);
      await this.facts(e, def).catch((err) => {
        if (err instanceof HostCommandError && err.code === 'NG_ERR_PARSE') throw validationError([`raw_pipeline: ${err.message}`]);
        // PUT lists no engine failure; 503 says what happened, where a 500 would claim a defect (docs/errors.md).
        throw err instanceof ApiError ? err : new ApiError('ENGINE_UNAVAILABLE', `the engine could not check raw_pipeline: ${maskSecrets((err as Error).message)}`);
      });
      const absent = this.validator.presenceProblems(def);
      if (absent.length) throw validationError(absent);
      await this.checkPassthrough(e, def);
      e.def = def;
      this.secrets.hold(def);
      e.klvSeen = false;
      e.probedCodec = undefined;
      e.startFailure = null;
      this.events.emit({ type: 'status', id, pipeline: this.view(e) });
      return this.view(e);
    });
  }

  delete(id: string, deletePersisted: boolean): Promise<void> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      if (e.state === 'playing') throw new ApiError('CONFLICT', `pipeline "${id}" is running; stop it first`);
      await this.withdraw(e, deletePersisted);
    });
  }

  /**
   * Takes e out of the service (inside its queue): DELETE, and a create refused after it was entered. The stored
   * copy stays unless deletePersisted; watchers get pipeline_not_found.
   */
  private async withdraw(e: Entry, deletePersisted: boolean): Promise<void> {
    const id = e.def.id;
    e.deleted = true;
    this.want(e, 'ready');
    this.clearRestart(e);
    if (this.entries.get(id) === e) this.entries.delete(id);
    this.secrets.release(id);
    this.claims.release(id);
    const host = e.host;
    e.host = null;
    if (host) {
      if (e.running) await this.stopHost(host, e.running, e.running.finaliseWithEos).catch(() => undefined);
      await host.close();
    }
    // Unless a new pipeline of the same id has started meanwhile: the directory is its own now.
    if (!this.entries.has(id)) await this.removeOutputDir(e);
    if (deletePersisted && e.store) this.store.remove(STORE, id);
    this.events.emit({ type: 'deleted', id });
  }

  private assertAlive(e: Entry, id: string): void {
    if (e.deleted) throw notFound(id);
  }

  // ---- play and stop -------------------------------------------------------------------------------------

  play(id: string, startedBy: StartedBy = 'api'): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      if (e.def.on_demand) {
        await this.serveOnDemand(e);
        return this.view(e);
      }
      if (e.state === 'playing') return this.view(e);
      this.want(e, 'playing');
      e.startFailure = null;
      e.restartAttempts = 0;
      await this.start(e, startedBy, 'play');
      return this.view(e);
    });
  }

  stop(id: string): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      this.want(e, 'ready');
      e.startFailure = null;
      this.clearRestart(e);
      await this.halt(e, true);
      this.judge(e);
      return this.view(e);
    });
  }

  /** Starts e (inside its queue). Throws the API error for the failure, after leaving e ready. */
  private async start(e: Entry, startedBy: StartedBy, why: Exclude<StartCause, 'update'>): Promise<void> {
    const id = e.def.id;
    // A passed-through source is probed at every start, never taken from the last one: it may send another codec
    // since (a file replaced, an origin reconfigured), which the output may refuse (docs/api.md, passthrough).
    const planned = this.compose(e.def);
    let facts: { claims: Claim[]; features: string[] };
    try {
      facts = await this.facts(e, e.def);
    } catch (err) {
      throw startFailure(err, why);
    }
    // From here to take() nothing awaits: the licence count and the claim table are checked and taken as one step.
    let composed = { ...planned, features: [...new Set([...planned.features, ...facts.features])] };
    this.checkLicence(id, composed.features, true);
    this.admit(e);
    const found = this.claims.take(id, facts.claims);
    if (found) throw new ApiError('PIPELINE_CONFLICT', conflictMessage(found, id));
    // Set before the await, so a concurrent start elsewhere counts this one against the licence's stream limit.
    e.running = composed;
    e.run += 1;
    e.interrupted = false;
    // The host's first sample is sent as it reaches playing, before its reply: the window is there to take it.
    e.stats = new StatsWindow(new Date());
    try {
      await this.freshOutputDir(e);
      const host = await this.ensureHost(e);
      if (composed.probe) e.running = composed = { ...await this.probed(e, host, composed.probe), features: composed.features };
      const inCompanions = new Set(composed.companionSinks?.flat());
      const watchSinks = [composed.framegrab?.sink, composed.klvSink].filter((s): s is string => Boolean(s) && !inCompanions.has(s!));
      // The host paces the output's KLV stream itself from the start (core/klv/pacer.ts, docs/klv.md), relaying the
      // source's KLV when the pipeline has no geolocation.
      const klv = composed.klvInjector
        ? { appsrc: composed.klvInjector, position: klvPosition(e.def), stamp: composed.klvStamp ?? 'ahead', ...(composed.klvSink ? { relay: composed.klvSink } : {}) }
        : undefined;
      await host.request({
        op: 'play', description: composed.description, rtsp: composed.rtsp, companions: composed.companions, timeoutMs: this.opts.startTimeoutMs,
        companionSinks: composed.companionSinks, watchSinks, klv, meters: composed.meters,
      }, this.opts.startTimeoutMs + 5000);
    } catch (err) {
      this.claims.release(id);
      e.running = null;
      e.stats = null;
      e.probedCodec = undefined;
      if (why === 'create' || why === 'play') this.want(e, 'ready');
      const message = maskSecrets((err as Error).message);
      // A bus error of this run may have been recorded already: one failure, one count.
      this.recordError(e, message, !e.interrupted);
      if (why !== 'recover') e.startFailure = `the pipeline did not start: ${message}`;
      this.log.warn({ pipeline: id, err: message }, 'pipeline failed to start');
      this.events.emit({ type: 'error', id, message });
      this.judge(e);
      throw startFailure(err, why);
    }
    // An error in the run's last moments before playing stays its last error: the queued halt acts on it.
    if (!e.interrupted) e.lastError = null;
    e.startFailure = null;
    e.restartAttempts = 0;
    if (e.stats) e.stats.playingSince = new Date();
    this.setState(e, 'playing', startedBy);
    await this.applyExtras(e);
  }

  /** After a start: the wanted framegrabs. */
  private async applyExtras(e: Entry): Promise<void> {
    const running = e.running;
    const host = e.host;
    if (!running || !host) return;
    e.snapshotting = false;
    if (running.framegrab && (e.framegrab || e.snapshot.wanted(Date.now()))) {
      await this.applyBranch(e).catch((err) => this.log.warn({ pipeline: e.def.id, err: (err as Error).message }, 'framegrabs could not start'));
    }
  }

  /** Stops the host's pipeline; with eos, closes its EOS gate first (ComposedPipeline.eosGate) so files end on a whole frame. */
  private async stopHost(host: EngineHost, running: ComposedPipeline | null, eos: boolean): Promise<unknown> {
    if (eos && running?.eosGate) {
      await host.request({ op: 'set', changes: [{ element: running.eosGate, property: 'drop', value: true }] })
        .catch((err) => this.log.warn({ err: (err as Error).message }, 'the end-of-stream gate could not be closed'));
    }
    return host.request({ op: 'stop', eos, timeoutMs: this.opts.stopTimeoutMs }, this.opts.stopTimeoutMs + 5000);
  }

  /** Stops what runs (finalising files when eos), releases claims, and reports ready. */
  private async halt(e: Entry, eos: boolean): Promise<void> {
    const wasPlaying = e.state === 'playing';
    const host = e.host;
    if (host?.alive && (e.running || e.def.on_demand)) {
      e.stopping = true;
      await this.stopHost(host, e.running, eos && Boolean(e.running?.finaliseWithEos)).catch((err) => this.log.warn({ pipeline: e.def.id, err: (err as Error).message }, 'stop failed'))
        .finally(() => { e.stopping = false; });
    }
    await this.removeOutputDir(e);
    e.running = null;
    e.stats = null;
    e.snapshot.clear();
    e.snapshotting = false;
    this.claims.release(e.def.id);
    if (wasPlaying) this.setState(e, 'ready', null);
  }

  /** What the operator wants; the stall rule of health counts from the moment playing became wanted. */
  private want(e: Entry, wanted: 'playing' | 'ready'): void {
    if (wanted === 'playing' && e.wanted !== 'playing') e.wantedSince = Date.now();
    if (wanted === 'ready') e.wantedSince = null;
    e.wanted = wanted;
  }

  /** An error of the pipeline: its last_error (with its time), its counters and the failures health counts. */
  private recordError(e: Entry, message: string, counted = true): void {
    const now = Date.now();
    e.lastError = message;
    e.counters = { ...e.counters, errors: e.counters.errors + (counted ? 1 : 0), last_error: { message, at: new Date(now).toISOString() } };
    if (counted) e.failures = [...e.failures.filter((t) => t > now - FAILURE_WINDOW_MS), now];
    // Health follows at once: a watcher never sees the new last_error beside the previous health reason.
    this.judge(e);
  }

  /** Asks a playing pipeline's output plugin for a problem the data plane cannot see (OutputPlugin.check). */
  private checkOutput(e: Entry): void {
    if (e.state !== 'playing' || e.stopping || e.def.on_demand || !e.def.output || e.def.mode === 'advanced') return;
    const problem = this.registry.output(e.def.output.uri)?.check?.(e.def.output, this.outputDir(e));
    if (problem) {
      this.log.warn({ pipeline: e.def.id, err: problem }, 'output lost');
      this.interrupted(e, problem, false);
    }
  }

  /** Judges e's health now; a change is sent as pipeline_status (and logged). */
  private judge(e: Entry): void {
    if (e.deleted) return;
    const now = Date.now();
    if (e.failures.length && e.failures[0] <= now - FAILURE_WINDOW_MS) e.failures = e.failures.filter((t) => t > now - FAILURE_WINDOW_MS);
    const next = judgeHealth({
      now, wanted: e.wanted === 'playing' && !e.def.on_demand, startFailure: e.startFailure, wantedSince: e.wantedSince,
      playing: e.state === 'playing', window: e.stats, lastError: e.counters.last_error, failures: e.failures,
      fps: e.def.encoding?.fps ?? null,
    });
    if (next.health === e.health.health && next.reason === e.health.reason) return;
    const was = e.health.health;
    e.health = next;
    if (next.health !== was) this.log.info({ pipeline: e.def.id, health: next.health, reason: next.reason, was }, 'pipeline health changed');
    this.events.emit({ type: 'status', id: e.def.id, pipeline: this.view(e) });
  }

  private setState(e: Entry, state: PipelineState, startedBy: StartedBy): void {
    const changed = e.state !== state;
    e.state = state;
    e.startedBy = startedBy;
    if (!changed) return;
    const view = this.view(e);
    this.events.emit({ type: 'status', id: e.def.id, pipeline: view });
    this.events.emit({ type: state === 'playing' ? 'started' : 'stopped', id: e.def.id, pipeline: view });
  }

  /** On-demand: the host listens with an RTSP server; the pipeline plays while clients watch. */
  private async serveOnDemand(e: Entry, why: 'create' | 'play' | 'recover' = 'play'): Promise<void> {
    if (e.running) return;
    // Probed at every start, as start() does.
    let composed = this.compose(e.def);
    this.checkLicence(e.def.id, composed.features, true);
    const found = this.claims.take(e.def.id, this.validator.claims(e.def));
    if (found) throw new ApiError('PIPELINE_CONFLICT', conflictMessage(found, e.def.id));
    // Set before the await, like start(): a concurrent start elsewhere counts this one against the stream limit.
    e.running = composed;
    try {
      await this.freshOutputDir(e);
      const host = await this.ensureHost(e);
      if (composed.probe) composed = await this.probed(e, host, composed.probe);
      await host.request({ op: 'play', description: composed.description, rtsp: composed.rtsp, companions: composed.companions, timeoutMs: this.opts.startTimeoutMs, meters: composed.meters });
      e.running = composed;
      e.startFailure = null;
      this.want(e, 'playing');
    } catch (err) {
      this.claims.release(e.def.id);
      e.running = null;
      e.probedCodec = undefined;
      // A refused source is this pipeline's failing start, kept and shown like one (last_error, health failing).
      if (err instanceof SourceRefusedError) {
        const message = maskSecrets(err.message);
        this.recordError(e, message);
        if (why !== 'recover') e.startFailure = `the pipeline did not start: ${message}`;
        this.events.emit({ type: 'error', id: e.def.id, message });
        this.judge(e);
      }
      throw startFailure(err, why);
    }
  }

  // ---- patch -----------------------------------------------------------------------------------------------

  patch(id: string, body: unknown): Promise<PipelineView> {
    const e = this.entry(id);
    const patch = this.validator.patchBody(body);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      if (patch.encoding && e.def.mode === 'advanced') {
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is in advanced mode; its encoding cannot be patched`);
      }
      if (patch.encoding && e.def.on_demand && e.running) {
        // PATCH lists 409 PIPELINE_CONFLICT (not CONFLICT) for an encoding patch the pipeline's kind refuses (docs/errors.md).
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand and its RTSP server is listening; stop it before patching its encoding`);
      }
      if (patch.encoding) {
        if (!e.def.encoding) throw validationError(['encoding cannot be patched on a pipeline that passes its stream through']);
        await this.patchEncoding(e, patch.encoding);
      }
      if (patch.geolocation !== undefined) {
        const { geolocation: _previous, ...rest } = e.def;
        e.def = patch.geolocation === null ? rest : { ...rest, geolocation: patch.geolocation };
        // Live: the engine host's KLV pacer sends the new position at once (no rebuild, no interruption).
        if (e.state === 'playing' && e.running?.klvInjector && e.host?.alive) {
          await e.host.request({ op: 'klv', position: klvPosition(e.def) })
            .catch((err) => this.log.warn({ pipeline: id, err: (err as Error).message }, 'geolocation could not reach the KLV stream'));
        }
      }
      this.events.emit({ type: 'status', id, pipeline: this.view(e) });
      return this.view(e);
    });
  }

  private async patchEncoding(e: Entry, change: Record<string, number>): Promise<void> {
    // Definitions are never changed in place (entry.ts), so the previous one can simply be kept.
    const previous = e.def;
    const next: PipelineDefinition = { ...e.def, encoding: { ...e.def.encoding!, ...change } };
    const problems = this.validator.encodingProblems(next.encoding);
    if (problems.length) throw validationError(problems);
    if (e.state !== 'playing' || !e.running) {
      this.compose(next);
      e.def = next;
      return;
    }
    const codec = this.registry.codec(next.encoding!.codec)!;
    const old = previous.encoding as unknown as Record<string, number>;
    const changed = Object.keys(change).filter((k) => change[k] !== old[k]);
    if (changed.every((k) => codec.liveParams.includes(k)) && e.running.encoderElement) {
      const element = e.running.encoderElement;
      const changes = changed.flatMap((k) => codec.liveChange(k, change[k], element));
      // PATCH lists 503, not 500: a host that fails the change is an engine that is not there for it.
      if (changes.length) {
        await this.hostOf(e).request({ op: 'set', changes }).catch((err) => {
          throw err instanceof ApiError ? err : new ApiError('ENGINE_UNAVAILABLE', `the encoder could not be changed: ${maskSecrets((err as Error).message)}`);
        });
      }
      e.def = next;
      return;
    }
    // Resolution or rate: stop, update, start again; restore the previous configuration if that fails.
    const startedBy = e.startedBy;
    await this.halt(e, true);
    e.def = next;
    try {
      await this.start(e, startedBy, 'play');
    } catch (err) {
      e.def = previous;
      // The failed start gave up on playing; the restored configuration is what the operator still wants.
      await this.start(e, startedBy, 'recover').then(() => this.want(e, 'playing'), () => undefined);
      // Spec: on PATCH a licence refusal of any kind is LICENSE_ERROR.
      if (err instanceof ApiError && (err.code === 'LICENSE_ERROR' || err.code === 'LICENSE_LIMIT_EXCEEDED')) throw new ApiError('LICENSE_ERROR', err.message);
      // PATCH lists 409 and 503 too: a claim taken meanwhile, or no engine host, is said as such.
      if (err instanceof ApiError && (err.code === 'PIPELINE_CONFLICT' || err.code === 'ENGINE_UNAVAILABLE')) throw err;
      throw err instanceof ApiError && err.code === 'PIPELINE_START_TIMEOUT'
        ? err
        : new ApiError('PIPELINE_START_TIMEOUT', `pipeline did not reach playing with the new encoding; previous configuration restored: ${(err as Error).message}`);
    }
  }

  // ---- framegrabs and KLV ---------------------------------------------------------------------------------

  framegrabStart(id: string, settings: FramegrabSettings): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      const el = this.compose(e.def).framegrab;
      if (!el) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" has no framegrab branch: framegrabs need a simple or multiview pipeline that encodes and is not on demand`);
      e.framegrab = { ...settings };
      e.framegrabSavedAt = 0;
      if (e.state === 'playing' && e.running?.framegrab) {
        this.hostOf(e);
        await this.applyBranch(e);
      }
      this.events.emit({ type: 'status', id, pipeline: this.view(e) });
      return this.view(e);
    });
  }

  framegrabStop(id: string): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      e.framegrab = null;
      if (e.state === 'playing' && e.running?.framegrab && e.host?.alive) await this.applyBranch(e);
      this.events.emit({ type: 'status', id, pipeline: this.view(e) });
      return this.view(e);
    });
  }

  /**
   * The pipeline's current picture as a JPEG: from the framegrab branch, opened at one frame a second while someone
   * asks (core/framegrabs/snapshots.ts). 409 while not playing, or when the pipeline has no raw picture to take.
   */
  async snapshot(id: string): Promise<Uint8Array> {
    const e = this.entry(id);
    if (e.state !== 'playing' || !e.running) throw new ApiError('CONFLICT', `pipeline "${id}" is not playing: it has no current picture`);
    if (!e.running.framegrab) {
      throw new ApiError('CONFLICT', `pipeline "${id}" has no picture to take: snapshots need a simple or multiview pipeline that encodes and is not on demand`);
    }
    const now = Date.now();
    e.snapshot.want(now);
    if (!e.snapshotting) await e.queue.run(async () => { if (e.state === 'playing' && e.host?.alive) await this.applyBranch(e); });
    const jpeg = await e.snapshot.current(Date.now(), 3000);
    if (!jpeg) throw new ApiError('CONFLICT', `pipeline "${id}" has produced no picture in the last 3 s`);
    return jpeg;
  }

  /** Sets the framegrab branch to what framegrabs and snapshots want now (inside e's queue). */
  private async applyBranch(e: Entry): Promise<void> {
    const running = e.running;
    if (!running?.framegrab || !e.host?.alive) return;
    const snapshots = e.snapshot.wanted(Date.now());
    await e.host.request({ op: 'set', changes: branchChanges(running.framegrab, e.framegrab, snapshots, SNAPSHOT_QUALITY) });
    e.snapshotting = snapshots;
  }

  /** Once a second: a branch left at the snapshots' rate after nobody asked for a while goes back to framegrabs or closed. */
  private settleSnapshots(e: Entry): void {
    if (!e.snapshotting || e.snapshot.wanted(Date.now())) return;
    void e.queue.run(async () => {
      if (e.snapshotting && e.state === 'playing') await this.applyBranch(e).catch(() => undefined);
    });
  }

  klvStart(id: string): Promise<PipelineView> {
    return this.klvWant(id, true);
  }

  klvStop(id: string): Promise<PipelineView> {
    return this.klvWant(id, false);
  }

  private klvWant(id: string, wanted: boolean): Promise<PipelineView> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      this.assertAlive(e, id);
      if (wanted && !e.klvSeen) {
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" has no KLV to extract: klv.available is false (the source has carried none while playing)`);
      }
      e.klvWanted = wanted;
      this.events.emit({ type: 'status', id, pipeline: this.view(e) });
      return this.view(e);
    });
  }

  /** A sample from a watched appsink: a framegrab JPEG, or a KLV packet of the source. */
  private onSample(e: Entry, sink: string, data: Uint8Array, pts: number): void {
    const running = e.running;
    if (!running) return;
    if (sink === running.framegrab?.sink) {
      const now = Date.now();
      e.snapshot.put(data, now);
      if (!e.framegrab || !this.framegrabs) return;
      // At the snapshots' rate (one a second), one framegrab per interval is saved; half a second of slack for jitter.
      if (e.snapshotting && now - e.framegrabSavedAt < e.framegrab.interval_seconds * 1000 - 500) return;
      e.framegrabSavedAt = now;
      try {
        this.framegrabs.save(e.def.id, data);
      } catch (err) {
        this.log.error({ pipeline: e.def.id, err: (err as Error).message }, 'framegrab could not be written');
      }
      return;
    }
    if (sink === running.klvSink) {
      if (!e.klvSeen) {
        e.klvSeen = true;
        this.events.emit({ type: 'status', id: e.def.id, pipeline: this.view(e) });
      }
      if (!e.klvWanted) return;
      const decoded = klvEvent(e.def.id, data, pts);
      if (decoded) this.events.emit({ type: 'klv', id: e.def.id, data: decoded });
    }
  }

  // ---- storage ---------------------------------------------------------------------------------------------

  storeCreate(id: string, meta: Partial<StoreMeta>): Promise<PipelineView> {
    const e = this.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; only on_demand=false pipelines can be stored`);
      const store: StoreMeta = { auto_start: meta.auto_start ?? false, description: meta.description ?? '' };
      this.store.write(STORE, id, { definition: e.def, ...store, stored_at: new Date().toISOString() } satisfies StoredPipeline);
      e.store = store;
      return this.storeChanged(e);
    });
  }

  storePatch(id: string, body: Record<string, unknown>): Promise<PipelineView> {
    const e = this.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; only on_demand=false pipelines can be stored`);
      const stored = this.store.read<StoredPipeline>(STORE, id);
      if (!stored || !e.store) throw new ApiError('PIPELINE_NOT_PERSISTED', `pipeline "${id}" is not in storage`);
      const { auto_start, description, ...definitionFields } = body;
      const errors: string[] = [];
      if (auto_start !== undefined && typeof auto_start !== 'boolean') errors.push('auto_start must be a boolean');
      if (description !== undefined && (typeof description !== 'string' || description.length > 1024)) errors.push('description must be a string of at most 1024 characters');
      if (errors.length) throw validationError(errors);
      let definition = stored.definition;
      if (Object.keys(definitionFields).length) {
        if ('id' in definitionFields && definitionFields.id !== id) throw validationError(['id cannot be changed']);
        const merged = { ...stored.definition } as Record<string, unknown>;
        for (const [k, v] of Object.entries(definitionFields)) {
          merged[k] = v && typeof v === 'object' && !Array.isArray(v) && merged[k] && typeof merged[k] === 'object'
            ? { ...(merged[k] as object), ...(v as object) } : v;
        }
        definition = this.validator.definition(this.secrets.unmask(merged, stored.definition));
        if (definition.on_demand) throw new ApiError('PIPELINE_CONFLICT', 'a stored pipeline cannot be on demand');
      }
      const meta: StoreMeta = {
        auto_start: (auto_start as boolean | undefined) ?? stored.auto_start,
        description: (description as string | undefined) ?? stored.description,
      };
      this.store.write(STORE, id, { ...stored, ...meta, definition } satisfies StoredPipeline);
      e.store = meta;
      return this.storeChanged(e);
    });
  }

  storeDelete(id: string): Promise<PipelineView> {
    const e = this.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; it cannot be in storage`);
      if (!e.store) throw new ApiError('PIPELINE_NOT_PERSISTED', `pipeline "${id}" is not in storage`);
      this.store.remove(STORE, id);
      e.store = null;
      return this.storeChanged(e);
    });
  }

  /**
   * The storage metadata of a new pipeline whose id has a stored document (kept by DELETE without delete_persisted),
   * or null. A stored pipeline is never on demand, so an on-demand create of a stored id is refused.
   */
  private storedMeta(def: PipelineDefinition): StoreMeta | null {
    if (!this.store.list(STORE).includes(def.id)) return null;
    // A document that does not open (restore() reports it) is still in storage: its metadata is the default.
    let stored: StoredPipeline | undefined;
    try {
      stored = this.store.read<StoredPipeline>(STORE, def.id);
    } catch {
      stored = undefined;
    }
    if (def.on_demand) {
      throw validationError([`on_demand cannot be true: pipeline "${def.id}" is in storage, and only on_demand=false pipelines can be stored (create it with on_demand false, then DELETE /svc/pipeline/${def.id}/store)`]);
    }
    return { auto_start: stored?.auto_start ?? false, description: stored?.description ?? '' };
  }

  /** persisted, auto_start and description are in the pipeline object: watchers are told (docs/api.md, "Status stream"). */
  private storeChanged(e: Entry): PipelineView {
    const view = this.view(e);
    this.events.emit({ type: 'status', id: e.def.id, pipeline: view });
    return view;
  }

  /** Brings back stored pipelines after a restart; auto_start ones start playing. */
  async restore(): Promise<void> {
    // What a previous run left (it crashed, or was killed) belongs to no pipeline now.
    if (this.opts.outputsDir) await rm(this.opts.outputsDir, { recursive: true, force: true });
    for (const id of this.store.list(STORE)) {
      let stored: StoredPipeline | undefined;
      let def: PipelineDefinition;
      try {
        // A document that does not open (unreadable JSON, a sealed credential under another key) is reported, not fatal.
        stored = this.store.read<StoredPipeline>(STORE, id);
        if (!stored) continue;
        def = this.validator.definition(stored.definition);
      } catch (err) {
        this.log.error({ pipeline: id, err: (err as Error).message }, 'stored pipeline is no longer valid; left in storage, not loaded');
        continue;
      }
      const e = this.newEntry(def, { auto_start: stored.auto_start, description: stored.description });
      this.entries.set(id, e);
      this.secrets.hold(def);
    }
    await Promise.all([...this.entries.values()].filter((e) => e.store?.auto_start).map((e) => e.queue.run(async () => {
      this.want(e, 'playing');
      await this.start(e, 'auto_start', 'restore').catch((err) => {
        this.log.error({ pipeline: e.def.id, err: (err as Error).message }, 'auto_start failed; retrying with backoff');
        this.scheduleRestart(e);
      });
    })));
  }

  // ---- engine hosts and recovery -------------------------------------------------------------------------

  private hostOf(e: Entry): EngineHost {
    if (!e.host?.alive) throw new ApiError('ENGINE_UNAVAILABLE', `the engine host of pipeline "${e.def.id}" is not running`);
    return e.host;
  }

  private async ensureHost(e: Entry): Promise<EngineHost> {
    if (e.host?.alive) return e.host;
    const host = this.hosts(e.def.id);
    host.on('event', (ev) => this.onHostEvent(e, host, ev));
    host.on('exit', (info) => this.onHostExit(e, host, info));
    e.host = host;
    try {
      await host.start();
    } catch (err) {
      if (e.host === host) e.host = null;
      throw new ApiError('ENGINE_UNAVAILABLE', `no engine host could be started: ${(err as Error).message}`);
    }
    return host;
  }

  private onHostEvent(e: Entry, host: EngineHost, ev: HostEvent): void {
    if (e.host !== host || e.deleted) return;
    const id = e.def.id;
    switch (ev.event) {
      case 'error': {
        // GStreamer's text may echo an element's location, secrets and all: masked before it is kept or sent.
        const message = maskSecrets(ev.message);
        this.log.warn({ pipeline: id, source: ev.source, err: message }, 'pipeline error');
        this.interrupted(e, message, false);
        break;
      }
      case 'eos':
        // An end-of-stream nobody asked for: a finite source is done; anything else lost its source.
        if (e.stopping || e.state !== 'playing' || e.def.on_demand) break;
        if (e.running?.finite) void e.queue.run(async () => {
          if (e.state !== 'playing' || e.stopping) return;
          this.want(e, 'ready');
          await this.halt(e, false);
        });
        else this.interrupted(e, 'the source ended the stream; reconnecting', true);
        break;
      case 'element':
        if (e.running?.lossMessages?.includes(ev.name) && e.state === 'playing' && !e.stopping) {
          this.interrupted(e, `the source went silent (${ev.name}); reconnecting`, true);
        }
        break;
      case 'sample':
        this.onSample(e, ev.sink, ev.data, ev.pts);
        break;
      case 'stats':
        e.stats?.add(ev.sample);
        if (e.state === 'playing' && e.stats) this.events.emit({ type: 'stats', id, stats: statsOf(e)! });
        break;
      case 'rtsp':
        if (!e.def.on_demand) break;
        if (ev.type === 'media-prepared') void e.queue.run(async () => {
          if (e.state !== 'playing') e.stats = new StatsWindow(new Date());
          this.setState(e, 'playing', 'on_demand');
        });
        if (ev.type === 'media-unprepared') void e.queue.run(async () => {
          e.stats = null;
          this.setState(e, 'ready', null);
        });
        break;
      default:
        break;
    }
  }

  /**
   * The GStreamer pipeline stopped flowing (an error, a lost or silent source): tell watchers, report what it is,
   * then work back to what the operator wanted, with backoff. finalise sends EOS first so a recording stays playable.
   */
  private interrupted(e: Entry, message: string, finalise: boolean): void {
    // The first message of a failing run is its cause; what the dying pipeline posts after it is not news, except
    // that an upstream element's generic flow error may race ahead of the element that failed (a muxer's refusal).
    if (e.interrupted) {
      if (e.lastError && isFlowConsequence(e.lastError) && !isFlowConsequence(message)) this.recordError(e, message, false);
      return;
    }
    // A run is under way from the moment start() sets `running`: an error in its last moments before playing counts.
    const run = e.running !== null && !e.def.on_demand && !e.stopping;
    if (run) e.interrupted = true;
    this.recordError(e, message);
    if (run && e.wanted === 'playing') e.counters = { ...e.counters, source_reconnects: e.counters.source_reconnects + 1 };
    // The source may come back with another codec: probe it again at the next start.
    e.probedCodec = undefined;
    this.events.emit({ type: 'error', id: e.def.id, message });
    if (!run) return;
    // Queued: a start still in flight finishes first, and this halts what it started, but never a later run (the
    // rollback of a failed patch restarts inside the same command, after this failure was reported).
    const failedRun = e.run;
    void e.queue.run(async () => {
      if (e.state !== 'playing' || e.run !== failedRun) return;
      await this.halt(e, finalise);
      if (e.wanted === 'playing') this.scheduleRestart(e);
    });
  }

  private onHostExit(e: Entry, host: EngineHost, info: HostExit): void {
    if (e.host !== host) return;
    e.host = null;
    if (info.expected || e.deleted || this.shuttingDown) return;
    const id = e.def.id;
    const message = `engine host exited unexpectedly (${info.signal ?? `code ${info.code}`}${info.hint ? `; ${info.hint}` : ''})`;
    this.log.error({ pipeline: id }, message);
    this.recordError(e, message);
    e.counters = { ...e.counters, host_restarts: e.counters.host_restarts + 1 };
    this.events.emit({ type: 'error', id, message });
    void e.queue.run(async () => {
      e.running = null;
      this.claims.release(id);
      if (e.state === 'playing') this.setState(e, 'ready', null);
      this.scheduleRestart(e);
    });
  }

  /** Restarts the host (and playback, when wanted) after a backoff that doubles up to the maximum. */
  private scheduleRestart(e: Entry): void {
    if (e.deleted || this.shuttingDown || e.restartTimer) return;
    const delay = Math.min(this.opts.restartMaxMs, this.opts.restartBaseMs * 2 ** e.restartAttempts);
    e.restartAttempts += 1;
    e.restartTimer = setTimeout(() => {
      e.restartTimer = null;
      void e.queue.run(async () => {
        if (e.deleted || this.shuttingDown) return;
        try {
          if (e.wanted !== 'playing') {
            await this.ensureHost(e);
          } else if (e.def.on_demand) {
            await this.serveOnDemand(e, 'recover');
          } else if (e.state !== 'playing') {
            await this.start(e, e.startedBy ?? 'api', 'recover');
          }
          e.restartAttempts = 0;
        } catch (err) {
          this.log.warn({ pipeline: e.def.id, err: (err as Error).message, attempt: e.restartAttempts }, 'recovery failed; retrying');
          this.scheduleRestart(e);
        }
      });
    }, delay);
    e.restartTimer.unref();
  }

  private clearRestart(e: Entry): void {
    if (e.restartTimer) clearTimeout(e.restartTimer);
    e.restartTimer = null;
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  private composeSettings(): ComposeSettings {
    return { rtspLatencyMs: this.opts.rtspLatencyMs(), outputsDir: this.opts.outputsDir };
  }

  /** The pipeline's own output directory (ComposeContext.outputDir), when it has an output and the service has a place. */
  private outputDir(e: Entry): string | undefined {
    return this.opts.outputsDir !== undefined && e.def.output ? outputDirOf(this.opts.outputsDir, e.def.id) : undefined;
  }

  /** Before a start: the output directory, empty (a run that died leaves its files; a new run must not serve them). */
  private async freshOutputDir(e: Entry): Promise<void> {
    const dir = this.outputDir(e);
    if (!dir) return;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
  }

  /** On stop and delete: the output directory and everything in it. */
  private async removeOutputDir(e: Entry): Promise<void> {
    const dir = this.outputDir(e);
    if (dir) await rm(dir, { recursive: true, force: true }).catch((err) => this.log.warn({ pipeline: e.def.id, err: (err as Error).message }, 'output directory could not be removed'));
  }

  private compose(def: PipelineDefinition, passthroughCodec?: string): ComposedPipeline {
    try {
      return composePipeline(def, this.registry, this.composeSettings(), passthroughCodec);
    } catch (err) {
      if (err instanceof ComposeError) throw validationError([err.message]);
      throw err;
    }
  }

  /**
   * A passed-through source's codec, from the caps of its first sample in e's host (cached on e), and the pipeline
   * composed with it. Both failures mean the pipeline could not start: a silent source (the probe times out), and
   * a codec the output cannot carry (AV1 into .ts), refused by the output's own validation (docs/dataplane.md).
   */
  private async probed(e: Entry, host: EngineHost, probe: { description: string; sink: string }): Promise<ComposedPipeline> {
    const { codec, composed } = await this.probeSource(e.def, host, probe);
    e.probedCodec = codec;
    return composed;
  }

  /**
   * Opens def's passed-through source in host and composes def with the codec found. Throws SourceRefusedError when
   * def cannot take that video (the client's mistake, by kind: a codec the output refuses, or no codec plugin for
   * it), and the host's error when the source cannot tell (silent, unreadable).
   */
  private async probeSource(def: PipelineDefinition, host: EngineHost, probe: { description: string; sink: string }): Promise<{ codec: string; composed: ComposedPipeline }> {
    const caps = await host.request<string>({ op: 'probe', ...probe, timeoutMs: this.opts.startTimeoutMs }, this.opts.startTimeoutMs + 5000);
    const codec = this.registry.codecByCaps(caps);
    if (!codec) {
      const media = caps.split(',')[0];
      throw new SourceRefusedError(`no codec plugin handles the source's video (${media})`,
        [`source.uri: the source's video (${media}) is no installed codec plugin's, so it cannot be passed through; set encoding to encode it`]);
    }
    try {
      return { codec: codec.codec, composed: composePipeline(def, this.registry, this.composeSettings(), codec.codec) };
    } catch (err) {
      if (err instanceof CodecRefusedError) {
        throw new SourceRefusedError(err.message, err.errors.map((m) => `${m} (the source's video is ${err.codec}, passed through: set encoding to encode it)`));
      }
      if (err instanceof ComposeError) throw new SourceRefusedError(err.message, [err.message]);
      throw err;
    }
  }

  /**
   * PUT of a passthrough definition (PUT lists 400, never a start failure): its source is opened now in e's idle host,
   * so a video the definition cannot take is refused with 400 (docs/api.md, passthrough). A source that cannot tell
   * in the start timeout (silent, unreachable), or no engine host, is no refusal: the codec is learned at play.
   */
  private async checkPassthrough(e: Entry, def: PipelineDefinition): Promise<void> {
    const probe = this.compose(def).probe;
    if (!probe) return;
    try {
      await this.probeSource(def, await this.ensureHost(e), probe);
    } catch (err) {
      if (err instanceof SourceRefusedError) throw startFailure(err, 'update');
      this.log.info({ pipeline: def.id, err: maskSecrets((err as Error).message) }, 'PUT: the passed-through source could not be probed; its codec is learned at play');
    }
  }

  /**
   * What the pipeline holds and which encoders it runs. Simple mode knows from its plugins; advanced mode asks
   * GStreamer, through the pipeline's own engine host, to parse the expanded description (rejects NG_ERR_PARSE).
   */
  private async facts(e: Entry, def: PipelineDefinition): Promise<{ claims: Claim[]; features: string[] }> {
    if (def.mode !== 'advanced') return { claims: this.validator.claims(def), features: [] };
    const description = this.compose(def).description;
    const host = await this.ensureHost(e);
    const elements = await host.request<ElementInfo[]>({ op: 'inspect', description });
    return inspectFacts(elements, this.registry);
  }

  /** Ends the host of an entry that never made it into the table. */
  private async discard(e: Entry): Promise<void> {
    e.deleted = true;
    const host = e.host;
    e.host = null;
    await host?.close();
  }

  /** The licence check of a pipeline that would use these features (already composed by the caller). */
  private checkLicence(id: string, used: string[], willPlay: boolean): void {
    const features = [...new Set(used)];
    const missing = this.licence.unlicensed(features);
    if (missing.length) {
      const why = this.licence.problem?.();
      throw new ApiError('LICENSE_ERROR', `codec not licensed: ${missing.join(', ')}${why ? ` (${why})` : ''}`);
    }
    const max = this.licence.maxStreams();
    if (willPlay && features.length && max !== null) {
      // `running` is set from the start of a start until the stop; for an on-demand pipeline, while it listens.
      const playing = [...this.entries.values()].filter((x) => x.def.id !== id && Boolean(x.running?.features.length)).length;
      if (playing >= max) throw new ApiError('LICENSE_LIMIT_EXCEEDED', `the licence allows ${max} encoding stream${max === 1 ? '' : 's'} at once`);
    }
  }

  /**
   * The admission figure (docs/operations.md, "Limits"): a start that would take the pixel rate of every playing
   * encoding pipeline over the configured total is refused. 409 PIPELINE_CONFLICT, like a claim: the budget is held
   * by the other pipelines, and stopping one of them frees it (docs/errors.md).
   */
  private admit(e: Entry): void {
    const max = this.opts.maxTotalPixelRate;
    const own = pixelRate(e.def);
    if (!max || !own) return;
    // `running` is set from the start of a start until the stop; an on-demand pipeline encodes only while playing.
    const others = [...this.entries.values()]
      .filter((x) => x !== e && x.running && (!x.def.on_demand || x.state === 'playing'))
      .reduce((sum, x) => sum + pixelRate(x.def), 0);
    if (others + own > max) {
      throw new ApiError('PIPELINE_CONFLICT', `starting pipeline "${e.def.id}" (${own} pixels/s) would take the playing pipelines' total to ${others + own} pixels/s, over this appliance's limit of ${max} (--max-total-pixel-rate): stop another pipeline or lower this one's width, height or fps`);
    }
  }

  /** Every pipeline that encodes and is running, for the licence and health. */
  counts(): { pipelines: number; playing: number; hosts: number; health: Record<'ok' | 'degraded' | 'failing', number> } {
    const all = [...this.entries.values()];
    const health = { ok: 0, degraded: 0, failing: 0 };
    for (const e of all) health[e.health.health] += 1;
    return { pipelines: all.length, playing: all.filter((e) => e.state === 'playing').length, hosts: all.filter((e) => e.host?.alive).length, health };
  }

  /** GET /svc/pipeline/{id}/stats: the measured figures (null while not playing) beside state and health. */
  stats(id: string): { id: string; state: PipelineState; health: string; health_reason: string | null; stats: PipelineStats | null } {
    const e = this.entry(id);
    return { id, state: e.state, health: e.health.health, health_reason: e.health.reason, stats: statsOf(e) };
  }

  /** Every pipeline as the metrics see it (core/pipeline/stats-model.ts). */
  metricsRows(): PipelineMetricsRow[] {
    return [...this.entries.values()].map((e) => ({
      id: e.def.id,
      mode: e.def.mode,
      codec: e.def.encoding?.codec ?? e.probedCodec ?? 'none',
      output: e.def.mode === 'advanced' ? 'advanced' : (e.def.output && this.registry.output(e.def.output.uri)?.name) ?? 'none',
      state: e.state,
      health: e.health.health,
      stats: statsOf(e),
      counters: e.counters,
      hostPid: e.host?.alive ? e.host.pid ?? null : null,
    }));
  }

  /** SIGTERM: stop every pipeline cleanly (files finalised), then end every host. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.healthTimer);
    await Promise.all([...this.entries.values()].map(async (e) => {
      this.clearRestart(e);
      await e.queue.run(async () => {
        await this.halt(e, true);
        await e.host?.close();
        e.host = null;
      }).catch(() => undefined);
    }));
  }
}

/** What a pipeline's encoding costs: width × height × fps (0 when it passes its stream through). */
function pixelRate(def: PipelineDefinition): number {
  return def.encoding ? def.encoding.width * def.encoding.height * def.encoding.fps : 0;
}

/** The position a pipeline's KLV stream carries (MGRS converted; validation has checked it converts), or none. */
function klvPosition(def: PipelineDefinition): KlvPosition | null {
  return def.geolocation ? toPosition(def.geolocation) : null;
}
