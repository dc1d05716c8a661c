/**
 * The supervisor of one pipeline: the one writer of its lifecycle (core/pipeline/lifecycle.ts; each field through one
 * method of core/pipeline/lifecycle-writer.ts), driving its engine host towards what the operator wants. The manager
 * calls it inside the pipeline's serial queue; what the host reports (its events, its death) and the restart timer
 * queue their work there too, so every transition below happens one at a time.
 *
 * Actual state is `state` (ready, playing); the phases are what the fields say together: idle (ready, nothing
 * running), starting (`running` set, not yet playing), playing, listening (on demand: `running` set, no client),
 * stopping (`stopping`), backoff (`restartTimer` set), deleted.
 *
 * | from                     | event                               | to                               | what it does                                                                           |
 * |--------------------------|-------------------------------------|----------------------------------|----------------------------------------------------------------------------------------|
 * | idle                     | play, create                        | starting → playing               | wanted = playing; claims, licence and admission taken; a host started if needed        |
 * | starting                 | the start fails (create, play)      | idle                             | wanted = ready; `last_error`, health failing; the API answers the failure              |
 * | starting                 | the start fails (restore, recovery) | backoff                          | wanted stays playing                                                                   |
 * | starting                 | the host dies                       | backoff                          | `host_restarts` + 1; the start answers 503 (504 on create)                             |
 * | idle (on demand)         | play, create                        | listening                        | wanted = playing; the host's RTSP server listens                                       |
 * | listening                | a client arrives                    | playing (`started_by` on_demand) |                                                                                        |
 * | playing (on demand)      | the last client leaves              | listening                        |                                                                                        |
 * | playing, listening       | stop                                | stopping → idle                  | wanted = ready; EOS first where files are finalised; a waiting restart is cancelled    |
 * | playing                  | a finite source ends                | stopping → idle                  | wanted = ready                                                                         |
 * | playing                  | an error, a lost or silent source   | stopping → backoff               | `source_reconnects` + 1; EOS first (not after an error), so a recording stays playable |
 * | any but deleted          | the host dies                       | backoff                          | `host_restarts` + 1; claims released; state ready                                      |
 * | stopping                 | the host dies                       | backoff → idle                   | the stop completes; a new idle host after the backoff                                  |
 * | backoff                  | the timer fires, ready wanted       | idle                             | a new host only                                                                        |
 * | backoff                  | the timer fires, playing wanted     | starting or listening            | success resets the backoff; failure doubles it, up to its ceiling; `started_by` kept   |
 * | playing                  | PATCH of width, height or fps       | stopping → starting              | the new encoding starts                                                                |
 * | starting (rebuild)       | the new encoding fails              | starting (rollback)              | the previous encoding starts again; wanted stays playing; PATCH answers the failure    |
 * | starting (rollback)      | the previous encoding fails too     | backoff                          | the previous encoding is recovered with backoff                                        |
 * | idle, listening, backoff | delete                              | deleted                          | the waiting restart is cancelled; what runs is stopped; the host ends                  |
 * | any                      | SIGTERM                             | idle, no host                    | what runs is stopped with EOS; nothing restarts                                        |
 *
 * Delete is refused while playing (409, stop first); every other command waits its turn in the queue.
 *
 * The backoff is restartBaseMs × 2^attempts, never above restartMaxMs (both from the config); attempts count failed
 * recoveries in a row and go back to 0 at any start that reaches playing (or a host that starts, when ready is
 * wanted), and at an API play.
 */
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue';
import type { EngineHost, EngineHostFactory, HostExit } from '../engine/host-process';
import type { HostEvent } from '../engine/protocol';
import type { PipelineEvents } from '../events/pipeline-events';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim } from '../sdk';
import { maskSecrets } from '../secrets/known-secrets';
import { toPosition } from '../klv/geolocation';
import type { KlvPosition } from '../klv/pacer';
import type { ComposedPipeline, ComposeSettings } from '../compose';
import { statsOf, type Entry } from './entry';
import type { HealthRecord } from './health-record';
import { inspectDescription, probeSource } from './host-queries';
import { backoffDelay, recoveryStep, type Lifecycle } from './lifecycle';
import { LifecycleWriter } from './lifecycle-writer';
import type { PipelineDefinition, PipelineState, PipelineView, StartedBy } from './model';
import type { OutputDirs } from './output-dirs';
import { SourceRefusedError, startFailure, type StartCause } from './start-failure';
import { isFlowConsequence, StatsWindow } from './stats';
import type { PipelineValidator } from './validate';

export interface SupervisorOptions {
  startTimeoutMs: number;
  stopTimeoutMs: number;
  /** Backoff for restarting a dead host or a failed source: base, doubling to max. */
  restartBaseMs: number;
  restartMaxMs: number;
}

/** What the feature commands (core/pipeline/features.ts) hear of a run. */
export interface RunListener {
  /** After a start reached playing: the wanted framegrabs. */
  afterStart(e: Entry): Promise<void>;
  /** A run ended: what it produced for snapshots is gone. */
  halted(e: Entry): void;
  /** A sample from a watched appsink: a framegrab JPEG, or a KLV packet of the source. */
  onSample(e: Entry, sink: string, data: Uint8Array, pts: number): void;
}

/** What the supervisor needs of the service around it: the decisions between pipelines stay the manager's. */
export interface SupervisorContext {
  readonly hosts: EngineHostFactory;
  readonly registry: PluginRegistry;
  readonly validator: PipelineValidator;
  readonly opts: SupervisorOptions;
  readonly log: Logger;
  readonly events: PipelineEvents;
  readonly health: HealthRecord;
  readonly outputs: OutputDirs;
  readonly runs: RunListener;
  /** def composed, a refusal as the 400 it answers. */
  compose(def: PipelineDefinition, passthroughCodec?: string): ComposedPipeline;
  composeSettings(): ComposeSettings;
  /** The licence, the admission figure and the claim table, checked and taken as one step; throws the API error. */
  reserve(e: Entry, features: string[], claims: Claim[]): void;
  /** Gives back what reserve took. */
  release(e: Entry): void;
  /** The one writer of Entry.def (a rebuild and its rollback change it). */
  redefine(e: Entry, def: PipelineDefinition): void;
  view(e: Entry): PipelineView;
  shuttingDown(): boolean;
}

/**
 * How much longer than the time a command gives the host (its timeoutMs) the core waits for the host's reply before it
 * kills the host as hung: the host's own timeout answers first when the host is alive (docs/operations.md, systemd's
 * TimeoutStopSec counts it). Not a setting: it only has to cover the host's own answer after its timeout (IPC and
 * tearing down what failed), never media, and the waits an operator tunes (start and stop timeouts) are added to it.
 * Too short, a live host is killed as hung and restarted with backoff; too long, a hung one is found later.
 */
const REPLY_MARGIN_MS = 5000;

/** A start by the API's hand, or the supervisor's own (restore, recovery) or a rebuild's: they differ in what a failure gives up. */
type Attempt = Exclude<StartCause, 'update'> | 'rebuild';

export class PipelineSupervisor {
  /** The entry's lifecycle, read here as everywhere (Entry.life); `write` is the one writer of its fields. */
  private readonly life: Readonly<Lifecycle>;
  private readonly write: LifecycleWriter;

  constructor(private readonly e: Entry, private readonly ctx: SupervisorContext) {
    this.life = e.life;
    // The only writable view of the lifecycle in the service (Entry.life is read-only to everyone else).
    this.write = new LifecycleWriter(e.life as Lifecycle);
  }

  // ---- what the operator wants ----------------------------------------------------------------------------

  private want(wanted: 'playing', by: StartedBy): void;
  private want(wanted: 'ready'): void;
  private want(wanted: 'playing' | 'ready', by: StartedBy = null): void {
    this.write.want(wanted, by);
  }

  /** Watchers hear of a change of state (pipeline_status, and started or stopped). */
  private setState(state: PipelineState, startedBy: StartedBy): void {
    if (!this.write.setState(state, startedBy)) return;
    const view = this.ctx.view(this.e);
    this.ctx.events.emit({ type: 'status', id: this.e.def.id, pipeline: view });
    this.ctx.events.emit({ type: state === 'playing' ? 'started' : 'stopped', id: this.e.def.id, pipeline: view });
  }

  /** The definition changed (PUT): a passed-through source's codec is learned again. */
  redefined(): void {
    this.write.setProbedCodec(undefined);
  }

  // ---- commands (inside the pipeline's queue) -------------------------------------------------------------

  /** Create and play: the operator wants it playing now. Throws the API error after leaving it ready. */
  async play(startedBy: StartedBy, why: 'create' | 'play'): Promise<void> {
    this.want('playing', startedBy);
    this.ctx.health.clearStartFailure(this.e);
    this.write.setRestartAttempts(0);
    await this.start(startedBy, why);
  }

  /** A stored auto_start pipeline at startup: a failure is retried with backoff. */
  async autoStart(): Promise<void> {
    this.want('playing', 'auto_start');
    await this.start('auto_start', 'restore').catch((err) => {
      this.ctx.log.error({ pipeline: this.e.def.id, err: (err as Error).message }, 'auto_start failed; retrying with backoff');
      this.scheduleRestart();
    });
  }

  stop(): Promise<void> {
    this.want('ready');
    this.ctx.health.clearStartFailure(this.e);
    this.clearRestart();
    return this.halt(true);
  }

  /**
   * Resolution or rate changed while playing: stop, start the new definition, and when it fails start the previous one
   * again. Playing stays wanted throughout (a failed start by the operator's play gives up on playing; this one must
   * not, or a later crash would bring back the host without the playback). Throws the new definition's failure.
   */
  async rebuild(next: PipelineDefinition): Promise<void> {
    const previous = this.e.def;
    const startedBy = this.life.startedBy;
    await this.halt(true);
    this.ctx.redefine(this.e, next);
    try {
      await this.start(startedBy, 'rebuild');
    } catch (err) {
      this.ctx.redefine(this.e, previous);
      await this.start(startedBy, 'recover').catch(() => this.scheduleRestart());
      throw err;
    }
  }

  /** DELETE (and a create refused after it was entered): nothing restarts, what runs is stopped, the host ends. */
  async withdraw(): Promise<void> {
    this.write.markDeleted();
    this.want('ready');
    this.clearRestart();
    const host = this.life.host;
    this.write.setHost(null);
    if (host) {
      if (this.life.running) await this.stopHost(host, this.life.running, this.life.running.finaliseWithEos).catch(() => undefined);
      await host.close();
    }
  }

  /** Ends the host of an entry that never made it into the table. */
  async discard(): Promise<void> {
    this.write.markDeleted();
    const host = this.life.host;
    this.write.setHost(null);
    await host?.close();
  }

  /** SIGTERM: no further restart (the caller says shuttingDown), what runs is stopped with EOS, the host ends. */
  async shutdown(): Promise<void> {
    this.clearRestart();
    await this.e.queue.run(async () => {
      await this.halt(true);
      await this.life.host?.close();
      this.write.setHost(null);
    }).catch(() => undefined);
  }

  // ---- starts ----------------------------------------------------------------------------------------------

  /** Starts the pipeline. Throws the API error for the failure, after leaving it ready. */
  private async start(startedBy: StartedBy, why: Attempt): Promise<void> {
    const e = this.e;
    const life = this.life;
    const id = e.def.id;
    const cause: Exclude<StartCause, 'update'> = why === 'rebuild' ? 'play' : why;
    // A passed-through source is probed at every start, never taken from the last one: it may send another codec
    // since (a file replaced, an origin reconfigured), which the output may refuse (docs/api.md, passthrough).
    const planned = this.ctx.compose(e.def);
    let facts: { claims: Claim[]; features: string[] };
    try {
      facts = await this.facts(e.def);
    } catch (err) {
      throw startFailure(err, cause);
    }
    // From here to the claims taken nothing awaits: the licence count and the claim table are checked and taken as one step.
    let composed = { ...planned, features: [...new Set([...planned.features, ...facts.features])] };
    this.ctx.reserve(e, composed.features, facts.claims);
    // Set before the await, so a concurrent start elsewhere counts this one against the licence's stream limit.
    this.write.setRunning(composed);
    this.write.nextRun();
    this.write.setInterrupted(false);
    // The host's first sample is sent as it reaches playing, before its reply: the window is there to take it.
    this.write.setStats(new StatsWindow(new Date()));
    try {
      await this.ctx.outputs.fresh(e.def);
      const host = await this.ensureHost();
      if (composed.probe) {
        composed = { ...await this.probed(host, composed.probe), features: composed.features };
        this.write.setRunning(composed);
      }
      const inCompanions = new Set(composed.companionSinks?.flat());
      const watchSinks = [composed.framegrab?.sink, composed.klvSink].filter((s): s is string => Boolean(s) && !inCompanions.has(s!));
      // The host paces the output's KLV stream itself from the start (core/klv/pacer.ts, docs/klv.md), relaying the
      // source's KLV when the pipeline has no geolocation.
      const klv = composed.klvInjector
        ? { appsrc: composed.klvInjector, position: klvPosition(e.def), stamp: composed.klvStamp ?? 'ahead', ...(composed.klvSink ? { relay: composed.klvSink } : {}) }
        : undefined;
      const { startTimeoutMs } = this.ctx.opts;
      await host.request({
        op: 'play', description: composed.description, services: composed.services, companions: composed.companions, timeoutMs: startTimeoutMs,
        companionSinks: composed.companionSinks, watchSinks, klv, meters: composed.meters,
      }, startTimeoutMs + REPLY_MARGIN_MS);
    } catch (err) {
      this.ctx.release(e);
      this.write.setRunning(null);
      this.write.setStats(null);
      this.write.setProbedCodec(undefined);
      // The operator's own start that fails gives up on playing; the supervisor's (restore, recovery, rebuild) does not.
      if (why === 'create' || why === 'play') this.want('ready');
      const message = maskSecrets((err as Error).message);
      // A bus error of this run may have been recorded already: one failure, one count.
      this.ctx.health.error(e, message, !life.interrupted);
      if (why !== 'recover') this.ctx.health.startFailed(e, message);
      this.ctx.log.warn({ pipeline: id, err: message }, 'pipeline failed to start');
      this.ctx.events.emit({ type: 'error', id, message });
      this.ctx.health.judge(e);
      throw startFailure(err, cause);
    }
    this.ctx.health.started(e, life.interrupted);
    this.write.setRestartAttempts(0);
    if (life.stats) life.stats.playingSince = new Date();
    this.setState('playing', startedBy);
    await this.ctx.runs.afterStart(e);
  }

  /** On-demand: the host listens with an RTSP server; the pipeline plays while clients watch. */
  async serveOnDemand(why: 'create' | 'play' | 'recover' = 'play'): Promise<void> {
    const e = this.e;
    const life = this.life;
    if (life.running) return;
    // Probed at every start, as start() does.
    let composed = this.ctx.compose(e.def);
    this.ctx.reserve(e, composed.features, this.ctx.validator.claims(e.def));
    // Set before the await, like start(): a concurrent start elsewhere counts this one against the stream limit.
    this.write.setRunning(composed);
    try {
      await this.ctx.outputs.fresh(e.def);
      const host = await this.ensureHost();
      if (composed.probe) composed = await this.probed(host, composed.probe);
      const { startTimeoutMs } = this.ctx.opts;
      await host.request({ op: 'play', description: composed.description, services: composed.services, companions: composed.companions, timeoutMs: startTimeoutMs, meters: composed.meters });
      this.write.setRunning(composed);
      this.ctx.health.clearStartFailure(e);
      this.want('playing', 'on_demand');
    } catch (err) {
      this.ctx.release(e);
      this.write.setRunning(null);
      this.write.setProbedCodec(undefined);
      // A refused source is this pipeline's failing start, kept and shown like one (last_error, health failing).
      if (err instanceof SourceRefusedError) {
        const message = maskSecrets(err.message);
        this.ctx.health.error(e, message);
        if (why !== 'recover') this.ctx.health.startFailed(e, message);
        this.ctx.events.emit({ type: 'error', id: e.def.id, message });
        this.ctx.health.judge(e);
      }
      throw startFailure(err, why);
    }
  }

  // ---- stops -----------------------------------------------------------------------------------------------

  /** Stops the host's pipeline; with eos, closes its EOS gate first (ComposedPipeline.eosGate) so files end on a whole frame. */
  private async stopHost(host: EngineHost, running: ComposedPipeline | null, eos: boolean): Promise<unknown> {
    if (eos && running?.eosGate) {
      await host.request({ op: 'set', changes: [{ element: running.eosGate, property: 'drop', value: true }] })
        .catch((err) => this.ctx.log.warn({ err: (err as Error).message }, 'the end-of-stream gate could not be closed'));
    }
    const { stopTimeoutMs } = this.ctx.opts;
    return host.request({ op: 'stop', eos, timeoutMs: stopTimeoutMs }, stopTimeoutMs + REPLY_MARGIN_MS);
  }

  /** Stops what runs (finalising files when eos), releases claims, and reports ready. */
  private async halt(eos: boolean): Promise<void> {
    const e = this.e;
    const life = this.life;
    const wasPlaying = life.state === 'playing';
    const host = life.host;
    if (host?.alive && (life.running || e.def.on_demand)) {
      this.write.setStopping(true);
      await this.stopHost(host, life.running, eos && Boolean(life.running?.finaliseWithEos))
        .catch((err) => this.ctx.log.warn({ pipeline: e.def.id, err: (err as Error).message }, 'stop failed'))
        .finally(() => this.write.setStopping(false));
    }
    await this.ctx.outputs.remove(e.def);
    this.write.setRunning(null);
    this.write.setStats(null);
    this.ctx.runs.halted(e);
    this.ctx.release(e);
    if (wasPlaying) this.setState('ready', null);
  }

  // ---- the engine host ---------------------------------------------------------------------------------------

  /** The live host, or 503 ENGINE_UNAVAILABLE. */
  hostOf(): EngineHost {
    const host = this.life.host;
    if (!host?.alive) throw new ApiError('ENGINE_UNAVAILABLE', `the engine host of pipeline "${this.e.def.id}" is not running`);
    return host;
  }

  async ensureHost(): Promise<EngineHost> {
    const life = this.life;
    if (life.host?.alive) return life.host;
    const host = this.ctx.hosts(this.e.def.id);
    host.on('event', (ev) => this.onHostEvent(host, ev));
    host.on('exit', (info) => this.onHostExit(host, info));
    this.write.setHost(host);
    try {
      await host.start();
    } catch (err) {
      if (life.host === host) this.write.setHost(null);
      throw new ApiError('ENGINE_UNAVAILABLE', `no engine host could be started: ${(err as Error).message}`);
    }
    return host;
  }

  /**
   * What the pipeline holds and which encoders it runs. Simple mode knows from its plugins; advanced mode asks
   * GStreamer, through the pipeline's own engine host, to parse the expanded description (rejects NG_ERR_PARSE).
   */
  async facts(def: PipelineDefinition): Promise<{ claims: Claim[]; features: string[] }> {
    if (def.mode !== 'advanced') return { claims: this.ctx.validator.claims(def), features: [] };
    const description = this.ctx.compose(def).description;
    return inspectDescription(await this.ensureHost(), description, this.ctx.registry);
  }

  /** A passed-through source's codec, probed in host (kept in the lifecycle), and the pipeline composed with it. */
  private async probed(host: EngineHost, probe: { description: string; sink: string }): Promise<ComposedPipeline> {
    const { codec, composed } = await this.probeSource(this.e.def, host, probe);
    this.write.setProbedCodec(codec);
    return composed;
  }

  /** def's passed-through source opened in host (core/pipeline/host-queries.ts): its codec, and def composed with it. */
  probeSource(def: PipelineDefinition, host: EngineHost, probe: { description: string; sink: string }): Promise<{ codec: string; composed: ComposedPipeline }> {
    return probeSource(host, def, probe, {
      registry: this.ctx.registry, settings: this.ctx.composeSettings(), timeoutMs: this.ctx.opts.startTimeoutMs, replyMarginMs: REPLY_MARGIN_MS,
    });
  }

  private onHostEvent(host: EngineHost, ev: HostEvent): void {
    const e = this.e;
    const life = this.life;
    if (life.host !== host || life.deleted) return;
    const id = e.def.id;
    switch (ev.event) {
      case 'error': {
        // GStreamer's text may echo an element's location, secrets and all: masked before it is kept or sent.
        const message = maskSecrets(ev.message);
        this.ctx.log.warn({ pipeline: id, source: ev.source, err: message }, 'pipeline error');
        this.interrupted(message, false);
        break;
      }
      case 'eos':
        // An end-of-stream nobody asked for: a finite source is done; anything else lost its source.
        if (life.stopping || life.state !== 'playing' || e.def.on_demand) break;
        if (life.running?.finite) void e.queue.run(async () => {
          if (life.state !== 'playing' || life.stopping) return;
          this.want('ready');
          await this.halt(false);
        });
        else this.interrupted('the source ended the stream; reconnecting', true);
        break;
      case 'element':
        if (life.running?.lossMessages?.includes(ev.name) && life.state === 'playing' && !life.stopping) {
          this.interrupted(`the source went silent (${ev.name}); reconnecting`, true);
        }
        break;
      case 'sample':
        this.ctx.runs.onSample(e, ev.sink, ev.data, ev.pts);
        break;
      case 'stats':
        life.stats?.add(ev.sample);
        if (life.state === 'playing' && life.stats) this.ctx.events.emit({ type: 'stats', id, stats: statsOf(e)! });
        break;
      case 'service':
        if (!e.def.on_demand) break;
        if (ev.type === 'media-prepared') void e.queue.run(async () => {
          if (life.state !== 'playing') this.write.setStats(new StatsWindow(new Date()));
          this.setState('playing', 'on_demand');
        });
        if (ev.type === 'media-unprepared') void e.queue.run(async () => {
          this.write.setStats(null);
          this.setState('ready', null);
        });
        break;
      default:
        break;
    }
  }

  /**
   * The GStreamer pipeline stopped flowing (an error, a lost or silent source, an output's own check): tell watchers,
   * report what it is, then work back to what the operator wanted, with backoff. finalise sends EOS first so a
   * recording stays playable.
   */
  interrupted(message: string, finalise: boolean): void {
    const e = this.e;
    const life = this.life;
    // The first message of a failing run is its cause; what the dying pipeline posts after it is not news, except
    // that an upstream element's generic flow error may race ahead of the element that failed (a muxer's refusal).
    if (life.interrupted) {
      if (e.lastError && isFlowConsequence(e.lastError) && !isFlowConsequence(message)) this.ctx.health.error(e, message, false);
      return;
    }
    // A run is under way from the moment start() sets `running`: an error in its last moments before playing counts.
    const run = life.running !== null && !e.def.on_demand && !life.stopping;
    if (run) this.write.setInterrupted(true);
    this.ctx.health.error(e, message);
    if (run && life.wanted === 'playing') this.ctx.health.sourceReconnected(e);
    // The source may come back with another codec: probe it again at the next start.
    this.write.setProbedCodec(undefined);
    this.ctx.events.emit({ type: 'error', id: e.def.id, message });
    if (!run) return;
    // Queued: a start still in flight finishes first, and this halts what it started, but never a later run (the
    // rollback of a failed rebuild restarts inside the same command, after this failure was reported).
    const failedRun = life.run;
    void e.queue.run(async () => {
      if (life.state !== 'playing' || life.run !== failedRun) return;
      await this.halt(finalise);
      if (life.wanted === 'playing') this.scheduleRestart();
    });
  }

  private onHostExit(host: EngineHost, info: HostExit): void {
    const e = this.e;
    const life = this.life;
    if (life.host !== host) return;
    this.write.setHost(null);
    if (info.expected || life.deleted || this.ctx.shuttingDown()) return;
    const id = e.def.id;
    const message = `engine host exited unexpectedly (${info.signal ?? `code ${info.code}`}${info.hint ? `; ${info.hint}` : ''})`;
    this.ctx.log.error({ pipeline: id }, message);
    this.ctx.health.error(e, message);
    this.ctx.health.hostRestarted(e);
    this.ctx.events.emit({ type: 'error', id, message });
    void e.queue.run(async () => {
      this.write.setRunning(null);
      this.ctx.release(e);
      if (life.state === 'playing') this.setState('ready', null);
      this.scheduleRestart();
    });
  }

  // ---- restart and backoff -----------------------------------------------------------------------------------

  /** Restarts the host (and playback, when wanted) after a backoff that doubles up to the maximum. */
  private scheduleRestart(): void {
    const life = this.life;
    if (life.deleted || this.ctx.shuttingDown() || life.restartTimer) return;
    const delay = backoffDelay(life.restartAttempts, this.ctx.opts.restartBaseMs, this.ctx.opts.restartMaxMs);
    this.write.setRestartAttempts(life.restartAttempts + 1);
    const timer = setTimeout(() => {
      this.write.setRestartTimer(null);
      void this.e.queue.run(() => this.recover());
    }, delay);
    timer.unref();
    this.write.setRestartTimer(timer);
  }

  private async recover(): Promise<void> {
    const life = this.life;
    if (life.deleted || this.ctx.shuttingDown()) return;
    try {
      switch (recoveryStep(life, this.e.def.on_demand)) {
        case 'host':
          await this.ensureHost();
          break;
        case 'listen':
          await this.serveOnDemand('recover');
          break;
        case 'play':
          await this.start(life.wantedBy ?? 'api', 'recover');
          break;
        case 'none':
          break;
      }
      this.write.setRestartAttempts(0);
    } catch (err) {
      this.ctx.log.warn({ pipeline: this.e.def.id, err: (err as Error).message, attempt: life.restartAttempts }, 'recovery failed; retrying');
      this.scheduleRestart();
    }
  }

  private clearRestart(): void {
    if (this.life.restartTimer) clearTimeout(this.life.restartTimer);
    this.write.setRestartTimer(null);
  }
}

/** The position a pipeline's KLV stream carries (MGRS converted; validation has checked it converts), or none. */
export function klvPosition(def: PipelineDefinition): KlvPosition | null {
  return def.geolocation ? toPosition(def.geolocation) : null;
}
