/**
 * The pipeline manager: the one owner of the table of pipelines. Every command on a pipeline (play, stop, patch,
 * update, delete) runs through that pipeline's serial queue, so concurrent requests apply in order; only the manager
 * decides what concerns more than one pipeline (ids, claims, the licence's stream limit, the admission figure).
 * Each pipeline's lifecycle is its supervisor's (core/pipeline/supervisor.ts); storage and the feature commands
 * are modules of their own (storage.ts, features.ts). Routes stay thin.
 */
import type { Logger } from 'pino';
import { ApiError, validationError } from '../errors/catalogue';
import type { EngineHostFactory } from '../engine/host-process';
import { HostCommandError } from '../engine/host-process';
import type { PipelineEvents } from '../events/pipeline-events';
import type { LicenceGate } from '../licence/gate';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim } from '../sdk';
import type { Store } from '../store/json-store';
import { maskSecrets } from '../secrets/known-secrets';
import { UriSecrets } from '../secrets/uri-secrets';
import { ClaimTable, conflictMessage } from './claims';
import { composePipeline, ComposeError, type ComposedPipeline, type ComposeSettings } from '../compose';
import type { PipelineDefinition, PipelineState, PipelineView, StartedBy, StoreMeta } from './model';
import { newEntry, statsOf, viewOf, type Entry, type EntryTable } from './entry';
import { PipelineFeatures } from './features';
import { HealthRecord } from './health-record';
import { LivePacer } from './live-pacer';
import { OutputDirs } from './output-dirs';
import { startFailure, SourceRefusedError } from './start-failure';
import { PipelineStorage } from './storage';
import { klvPosition, PipelineSupervisor, type SupervisorContext, type SupervisorOptions } from './supervisor';
import type { FramegrabStore } from '../framegrabs/store';
import { notFound, PipelineValidator } from './validate';
import type { PipelineMetricsRow, PipelineStats } from './stats-model';
import { ViewJson } from './view-json';

/** The filters of GET /svc/pipeline. */
export interface PipelineFilter {
  mode?: string;
  on_demand?: boolean;
  state?: string;
}

export interface ManagerOptions extends SupervisorOptions {
  rtspLatencyMs: () => number;
  /** `<data dir>/outputs`, where each pipeline with an output gets its own directory (ComposeContext.outputDir). */
  outputsDir?: string;
  /** The admission figure: the most width × height × fps all playing encoding pipelines may add up to (0: none). */
  maxTotalPixelRate?: number;
}

export class PipelineManager implements EntryTable {
  private readonly entries = new Map<string, Entry>();
  /**
   * Beside the entries, not in them: an Entry is data every module reads (entry.ts), and its supervisor holds the only
   * writable view of its lifecycle.
   */
  private readonly supervisors = new WeakMap<Entry, PipelineSupervisor>();
  /** Per running encoder of a codec with liveChangeIntervalMs: its pace (live-pacer.ts). A new run starts afresh. */
  private readonly pacers = new WeakMap<ComposedPipeline, LivePacer>();
  private readonly claims = new ClaimTable();
  readonly validator: PipelineValidator;
  /** Secrets in URIs: *** in views, kept when sent back masked, known to the logs while a pipeline holds them. */
  private readonly secrets: UriSecrets;
  private readonly viewJson: ViewJson;
  /** Store, store-patch, unstore, restore (core/pipeline/storage.ts). */
  readonly storage: PipelineStorage;
  /** Framegrabs, snapshots, KLV (core/pipeline/features.ts). */
  readonly features: PipelineFeatures;
  private readonly health: HealthRecord;
  private readonly outputs: OutputDirs;
  private readonly supervision: SupervisorContext;
  private shuttingDown = false;
  /** Judges every pipeline's health once a second: a stall shows even when no sample arrives (docs/api.md). */
  private readonly healthTimer: NodeJS.Timeout;

  constructor(
    private readonly registry: PluginRegistry,
    hosts: EngineHostFactory,
    private readonly events: PipelineEvents,
    store: Store,
    private readonly licence: LicenceGate,
    private readonly log: Logger,
    private readonly opts: ManagerOptions,
    framegrabs: FramegrabStore | null = null,
  ) {
    this.validator = new PipelineValidator(registry);
    this.secrets = new UriSecrets(registry);
    this.viewJson = new ViewJson(this.secrets);
    this.health = new HealthRecord(log, (e) => this.changed(e));
    this.outputs = new OutputDirs(opts.outputsDir, log);
    this.features = new PipelineFeatures({
      table: this, events, log, framegrabs, compose: (def) => this.compose(def), hostOf: (e) => this.sup(e).hostOf(),
    });
    this.storage = new PipelineStorage({
      table: this, store, validator: this.validator, secrets: this.secrets, log,
      adopt: (def, meta) => this.adopt(def, meta),
      autoStart: (e) => this.sup(e).autoStart(),
    });
    this.supervision = {
      hosts, registry, validator: this.validator, opts, log, events, health: this.health, outputs: this.outputs, runs: this.features,
      compose: (def, codec) => this.compose(def, codec),
      composeSettings: () => this.composeSettings(),
      reserve: (e, features, claims) => this.reserve(e, features, claims),
      release: (e) => this.claims.release(e.def.id),
      redefine: (e, def) => this.redefine(e, def),
      view: (e) => this.view(e),
      shuttingDown: () => this.shuttingDown,
    };
    this.healthTimer = setInterval(() => {
      for (const e of this.entries.values()) {
        this.checkOutput(e);
        this.health.judge(e);
        this.features.settleSnapshots(e);
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
      && (filter.state === undefined || e.life.state === filter.state));
  }

  /**
   * The output's session description (GET /sdp): of what runs, or else of the definition. A passed-through stream's
   * codec is known only once probed (at its start), so until then its pipeline has none.
   */
  sdp(id: string): string | undefined {
    const e = this.entry(id);
    return (e.life.running?.description ? e.life.running : this.compose(e.def, e.life.probedCodec)).sdp;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  entry(id: string, notFoundCode: 'NOT_FOUND' | 'PIPELINE_NOT_FOUND' = 'NOT_FOUND'): Entry {
    const e = this.entries.get(id);
    if (!e) throw notFoundCode === 'NOT_FOUND' ? notFound(id) : new ApiError('PIPELINE_NOT_FOUND', `pipeline "${id}" not found`);
    return e;
  }

  view(e: Entry): PipelineView {
    return viewOf(e, this.secrets);
  }

  /** persisted, auto_start, description, klv, framegrab and health are in the pipeline object: watchers are told (docs/api.md, "Status stream"). */
  changed(e: Entry): PipelineView {
    const view = this.view(e);
    this.events.emit({ type: 'status', id: e.def.id, pipeline: view });
    return view;
  }

  private sup(e: Entry): PipelineSupervisor {
    return this.supervisors.get(e)!;
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
    const e = this.newEntry(def, this.storage.storedMeta(def));
    const sup = this.sup(e);
    // Advanced pipelines are parsed by their own engine host now: a bad description answers 400 before anything is kept.
    const facts = await sup.facts(def).catch(async (err) => {
      await sup.discard();
      // POST lists no 500 or 503: an engine that cannot check the description is a start that failed (docs/errors.md).
      throw err instanceof HostCommandError && err.code === 'NG_ERR_PARSE' ? validationError([`raw_pipeline: ${err.message}`]) : startFailure(err, 'create');
    });
    if (this.entries.has(def.id)) {
      await sup.discard();
      throw new ApiError('PIPELINE_CONFLICT', `pipeline id "${def.id}" is in use by pipeline "${def.id}"`);
    }
    try {
      this.checkLicence(def.id, [...planned.features, ...facts.features], true);
    } catch (err) {
      await sup.discard();
      throw err;
    }
    // Claims are checked now so a doomed create answers 409 before anything starts.
    const found = this.claims.check(def.id, facts.claims);
    if (found) {
      await sup.discard();
      throw new ApiError('PIPELINE_CONFLICT', conflictMessage(found, def.id));
    }
    const absent = this.validator.presenceProblems(def);
    if (absent.length) {
      await sup.discard();
      throw validationError(absent);
    }
    this.entries.set(def.id, e);
    this.secrets.hold(def);
    this.events.emit({ type: 'status', id: def.id, pipeline: this.view(e) });
    await e.queue.run(async () => {
      await sup.ensureHost().catch(() => undefined);
      try {
        // POST lists 504 for a start that fails; an RTSP server that cannot listen is one (docs/errors.md).
        if (def.on_demand) await sup.serveOnDemand('create').catch((err) => { throw startFailure(err, 'create'); });
        else await sup.play('api', 'create');
      } catch (err) {
        // A 400 refuses the create (a passed-through source's codec the output cannot carry): nothing is kept, as for
        // any other 400. A start that fails otherwise (504) keeps the pipeline, ready, with last_error (docs/api.md).
        if (err instanceof ApiError && err.code === 'VALIDATION_ERROR') await this.withdraw(e, false);
        throw err;
      }
    });
    return this.view(e);
  }

  /** A new entry and its supervisor (not yet in the table). */
  private newEntry(def: PipelineDefinition, store: StoreMeta | null): Entry {
    const e = newEntry(def, store);
    this.supervisors.set(e, new PipelineSupervisor(e, this.supervision));
    return e;
  }

  /** A stored pipeline brought back at startup: in the table, its secrets known, not started. */
  private adopt(def: PipelineDefinition, store: StoreMeta): Entry {
    const e = this.newEntry(def, store);
    this.entries.set(def.id, e);
    this.secrets.hold(def);
    return e;
  }

  /** The one writer of a definition: PUT, PATCH, and a rebuild and its rollback (through the supervisor). */
  private redefine(e: Entry, def: PipelineDefinition): void {
    e.def = def;
  }

  update(id: string, body: unknown): Promise<PipelineView> {
    return this.command(id, async (e) => {
      if (e.life.state === 'playing') throw new ApiError('CONFLICT', `pipeline "${id}" is running; stop it first`);
      if (e.def.on_demand && e.life.running) throw new ApiError('CONFLICT', `pipeline "${id}" is on demand and its RTSP server is listening; stop it first`);
      const def = this.validator.definition(this.secrets.unmask(body, e.def));
      if (def.id !== id) throw validationError([`id must be "${id}", the pipeline being replaced`]);
      if (def.on_demand && e.store) throw validationError([`on_demand cannot be true: pipeline "${id}" is in storage, and only on_demand=false pipelines can be stored (DELETE /svc/pipeline/${id}/store first)`]);
      this.compose(def);
      const sup = this.sup(e);
      await sup.facts(def).catch((err) => {
        if (err instanceof HostCommandError && err.code === 'NG_ERR_PARSE') throw validationError([`raw_pipeline: ${err.message}`]);
        // PUT lists no engine failure; 503 says what happened, where a 500 would claim a defect (docs/errors.md).
        throw err instanceof ApiError ? err : new ApiError('ENGINE_UNAVAILABLE', `the engine could not check raw_pipeline: ${maskSecrets((err as Error).message)}`);
      });
      const absent = this.validator.presenceProblems(def);
      if (absent.length) throw validationError(absent);
      await this.checkPassthrough(e, def);
      this.redefine(e, def);
      this.secrets.hold(def);
      this.features.redefined(e);
      sup.redefined();
      this.health.clearStartFailure(e);
      return this.changed(e);
    });
  }

  delete(id: string, deletePersisted: boolean): Promise<void> {
    return this.command(id, async (e) => {
      if (e.life.state === 'playing') throw new ApiError('CONFLICT', `pipeline "${id}" is running; stop it first`);
      await this.withdraw(e, deletePersisted);
    });
  }

  /**
   * Takes e out of the service (inside its queue): DELETE, and a create refused after it was entered. The stored
   * copy stays unless deletePersisted; watchers get pipeline_not_found.
   */
  private async withdraw(e: Entry, deletePersisted: boolean): Promise<void> {
    const id = e.def.id;
    if (this.entries.get(id) === e) this.entries.delete(id);
    this.secrets.release(id);
    this.claims.release(id);
    await this.sup(e).withdraw();
    // Unless a new pipeline of the same id has started meanwhile: the directory is its own now.
    if (!this.entries.has(id)) await this.outputs.remove(e.def);
    if (deletePersisted) this.storage.forget(e);
    this.events.emit({ type: 'deleted', id });
  }

  command<T>(id: string, task: (e: Entry) => Promise<T>): Promise<T> {
    const e = this.entry(id);
    return e.queue.run(async () => {
      if (e.life.deleted) throw notFound(id);
      return task(e);
    });
  }

  // ---- play and stop -------------------------------------------------------------------------------------

  play(id: string, startedBy: StartedBy = 'api'): Promise<PipelineView> {
    return this.command(id, async (e) => {
      if (e.def.on_demand) {
        await this.sup(e).serveOnDemand();
        return this.view(e);
      }
      if (e.life.state === 'playing') return this.view(e);
      await this.sup(e).play(startedBy, 'play');
      return this.view(e);
    });
  }

  stop(id: string): Promise<PipelineView> {
    return this.command(id, async (e) => {
      await this.sup(e).stop();
      this.health.judge(e);
      return this.view(e);
    });
  }

  // ---- patch -----------------------------------------------------------------------------------------------

  patch(id: string, body: unknown): Promise<PipelineView> {
    const e = this.entry(id);
    const patch = this.validator.patchBody(body);
    return this.command(id, async () => {
      if (patch.encoding && e.def.mode === 'advanced') {
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is in advanced mode; its encoding cannot be patched`);
      }
      if (patch.encoding && e.def.on_demand && e.life.running) {
        // PATCH lists 409 PIPELINE_CONFLICT (not CONFLICT) for an encoding patch the pipeline's kind refuses (docs/errors.md).
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand and its RTSP server is listening; stop it before patching its encoding`);
      }
      if (patch.encoding) {
        if (!e.def.encoding) throw validationError(['encoding cannot be patched on a pipeline that passes its stream through']);
        await this.patchEncoding(e, patch.encoding);
      }
      if (patch.geolocation !== undefined) {
        const { geolocation: _previous, ...rest } = e.def;
        this.redefine(e, patch.geolocation === null ? rest : { ...rest, geolocation: patch.geolocation });
        // Live: the engine host's KLV pacer sends the new position at once (no rebuild, no interruption).
        const host = e.life.host;
        if (e.life.state === 'playing' && e.life.running?.klvInjector && host?.alive) {
          await host.request({ op: 'klv', position: klvPosition(e.def) })
            .catch((err) => this.log.warn({ pipeline: id, err: (err as Error).message }, 'geolocation could not reach the KLV stream'));
        }
      }
      return this.changed(e);
    });
  }

  private async patchEncoding(e: Entry, change: Record<string, number>): Promise<void> {
    // Definitions are never changed in place (entry.ts), so the previous one can simply be kept.
    const previous = e.def;
    const next: PipelineDefinition = { ...e.def, encoding: { ...e.def.encoding!, ...change } };
    const problems = this.validator.encodingProblems(next.encoding);
    if (problems.length) throw validationError(problems);
    const running = e.life.running;
    if (e.life.state !== 'playing' || !running) {
      this.compose(next);
      this.redefine(e, next);
      return;
    }
    const codec = this.registry.codec(next.encoding!.codec)!;
    const old = previous.encoding as unknown as Record<string, number>;
    const changed = Object.keys(change).filter((k) => change[k] !== old[k]);
    if (changed.every((k) => codec.liveParams.includes(k)) && running.encoderElement) {
      const element = running.encoderElement;
      const changes = changed.flatMap((k) => codec.liveChange(k, change[k], element));
      const pacer = codec.liveChangeIntervalMs ? this.pacerOf(e, running, codec.liveChangeIntervalMs) : null;
      // PATCH lists 503, not 500: a host that fails the change is an engine that is not there for it.
      if (changes.length && (!pacer || pacer.offer(changes) === 'now')) {
        await this.sup(e).hostOf().request({ op: 'set', changes }).catch((err) => {
          throw err instanceof ApiError ? err : new ApiError('ENGINE_UNAVAILABLE', `the encoder could not be changed: ${maskSecrets((err as Error).message)}`);
        });
      }
      this.redefine(e, next);
      return;
    }
    // Resolution or rate: stop, update, start again; the supervisor restores the previous configuration if that fails.
    try {
      await this.sup(e).rebuild(next);
    } catch (err) {
      // Spec: on PATCH a licence refusal of any kind is LICENSE_ERROR.
      if (err instanceof ApiError && (err.code === 'LICENSE_ERROR' || err.code === 'LICENSE_LIMIT_EXCEEDED')) throw new ApiError('LICENSE_ERROR', err.message);
      // PATCH lists 409 and 503 too: a claim taken meanwhile, or no engine host, is said as such.
      if (err instanceof ApiError && (err.code === 'PIPELINE_CONFLICT' || err.code === 'ENGINE_UNAVAILABLE')) throw err;
      throw err instanceof ApiError && err.code === 'PIPELINE_START_TIMEOUT'
        ? err
        : new ApiError('PIPELINE_START_TIMEOUT', `pipeline did not reach playing with the new encoding; previous configuration restored: ${(err as Error).message}`);
    }
  }

  /**
   * The pacer of running's encoder. What it holds goes out through e's queue when the interval ends, and only to the
   * same run: a pipeline stopped, rebuilt or deleted meanwhile has an encoder composed from its definition already.
   */
  private pacerOf(e: Entry, running: ComposedPipeline, intervalMs: number): LivePacer {
    let pacer = this.pacers.get(running);
    if (!pacer) {
      const id = e.def.id;
      pacer = new LivePacer(intervalMs, (changes) => {
        this.command(id, async (cur) => {
          if (cur.life.running !== running || cur.life.state !== 'playing' || !cur.life.host?.alive) return;
          await cur.life.host.request({ op: 'set', changes });
          this.log.info({ pipeline: id, changes: changes.map((c) => `${c.property}=${c.value}`) }, 'held encoder change applied');
        }).catch((err) => this.log.warn({ pipeline: id, err: maskSecrets((err as Error).message) }, 'held encoder change not applied'));
      });
      this.pacers.set(running, pacer);
    }
    return pacer;
  }

  // ---- storage ---------------------------------------------------------------------------------------------

  /** Brings back stored pipelines after a restart; auto_start ones start playing. */
  async restore(): Promise<void> {
    await this.outputs.clearAll();
    await this.storage.restore();
  }

  // ---- helpers -------------------------------------------------------------------------------------------

  /** Asks a playing pipeline's output plugin for a problem the data plane cannot see (OutputPlugin.check). */
  private checkOutput(e: Entry): void {
    if (e.life.state !== 'playing' || e.life.stopping || e.def.on_demand || !e.def.output || e.def.mode === 'advanced') return;
    const problem = this.registry.output(e.def.output.uri)?.check?.(e.def.output, this.outputs.of(e.def));
    if (problem) {
      this.log.warn({ pipeline: e.def.id, err: problem }, 'output lost');
      this.sup(e).interrupted(problem, false);
    }
  }

  private composeSettings(): ComposeSettings {
    return { rtspLatencyMs: this.opts.rtspLatencyMs(), outputsDir: this.opts.outputsDir };
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
   * PUT of a passthrough definition (PUT lists 400, never a start failure): its source is opened now in e's idle host,
   * so a video the definition cannot take is refused with 400 (docs/api.md, passthrough). A source that cannot tell
   * in the start timeout (silent, unreachable), or no engine host, is no refusal: the codec is learned at play.
   */
  private async checkPassthrough(e: Entry, def: PipelineDefinition): Promise<void> {
    const probe = this.compose(def).probe;
    if (!probe) return;
    const sup = this.sup(e);
    try {
      await sup.probeSource(def, await sup.ensureHost(), probe);
    } catch (err) {
      if (err instanceof SourceRefusedError) throw startFailure(err, 'update');
      this.log.info({ pipeline: def.id, err: maskSecrets((err as Error).message) }, 'PUT: the passed-through source could not be probed; its codec is learned at play');
    }
  }

  /** A start's licence count, admission figure and claims, checked and taken as one step (nothing awaits in it). */
  private reserve(e: Entry, features: string[], claims: Claim[]): void {
    this.checkLicence(e.def.id, features, true);
    this.admit(e);
    const found = this.claims.take(e.def.id, claims);
    if (found) throw new ApiError('PIPELINE_CONFLICT', conflictMessage(found, e.def.id));
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
      const playing = [...this.entries.values()].filter((x) => x.def.id !== id && Boolean(x.life.running?.features.length)).length;
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
      .filter((x) => x !== e && x.life.running && (!x.def.on_demand || x.life.state === 'playing'))
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
    return { pipelines: all.length, playing: all.filter((e) => e.life.state === 'playing').length, hosts: all.filter((e) => e.life.host?.alive).length, health };
  }

  /** GET /svc/pipeline/{id}/stats: the measured figures (null while not playing) beside state and health. */
  stats(id: string): { id: string; state: PipelineState; health: string; health_reason: string | null; stats: PipelineStats | null } {
    const e = this.entry(id);
    return { id, state: e.life.state, health: e.health.health, health_reason: e.health.reason, stats: statsOf(e) };
  }

  /** Every pipeline as the metrics see it (core/pipeline/stats-model.ts). */
  metricsRows(): PipelineMetricsRow[] {
    return [...this.entries.values()].map((e) => ({
      id: e.def.id,
      mode: e.def.mode,
      codec: e.def.encoding?.codec ?? e.life.probedCodec ?? 'none',
      output: e.def.mode === 'advanced' ? 'advanced' : (e.def.output && this.registry.output(e.def.output.uri)?.name) ?? 'none',
      state: e.life.state,
      health: e.health.health,
      stats: statsOf(e),
      counters: e.counters,
      hostPid: e.life.host?.alive ? e.life.host.pid ?? null : null,
    }));
  }

  /** SIGTERM: stop every pipeline cleanly (files finalised), then end every host; nothing restarts after. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.healthTimer);
    await Promise.all([...this.entries.values()].map((e) => this.sup(e).shutdown()));
  }
}

/** What a pipeline's encoding costs: width × height × fps (0 when it passes its stream through). */
function pixelRate(def: PipelineDefinition): number {
  return def.encoding ? def.encoding.width * def.encoding.height * def.encoding.fps : 0;
}
