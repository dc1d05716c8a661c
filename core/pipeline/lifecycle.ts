/**
 * The lifecycle of one pipeline as data: what the operator wants, what runs, the engine host and the restart in
 * waiting. Only its supervisor (core/pipeline/supervisor.ts) writes it, each field through one method of
 * core/pipeline/lifecycle-writer.ts; everyone else sees it read-only through `Entry.life`. Pure functions of it live
 * here too.
 */
import type { EngineHost } from '../engine/host-process';
import type { ComposedPipeline } from '../compose';
import type { PipelineState, StartedBy } from './model';
import type { StatsWindow } from './stats';

export interface Lifecycle {
  /** What the operator asked for; recovery works towards it. */
  wanted: 'playing' | 'ready';
  /** When playing became wanted (ms), for the stall rule of health; null while not wanted. */
  wantedSince: number | null;
  /** Who wants it playing (null while not wanted): a recovery plays again in their name, so `started_by` stays true. */
  wantedBy: StartedBy;
  /** What the API shows: playing from the host's reply to play (or an on-demand client) until a halt. */
  state: PipelineState;
  startedBy: StartedBy;
  host: EngineHost | null;
  /**
   * What the host was asked to run, from the start of a start until the halt (on demand: while it listens). It counts
   * against the licence's stream limit and the admission figure from the moment it is set.
   */
  running: ComposedPipeline | null;
  /** A halt is under way: the end-of-stream it causes is not a lost source. */
  stopping: boolean;
  /** Deleted (or a create refused): nothing is restarted, no event is reported. */
  deleted: boolean;
  /** Failed recoveries in a row: the backoff doubles with each. */
  restartAttempts: number;
  /** The recovery in waiting, if any. */
  restartTimer: NodeJS.Timeout | null;
  /**
   * The current run was interrupted (an error, a lost source) and is being halted: what its dying pipeline posts next
   * (the end-of-stream after a muxer's error) is a consequence, not another failure. Cleared at the next start.
   */
  interrupted: boolean;
  /** Counts starts: which run an interruption belongs to. */
  run: number;
  /** The video codec a probe found in the passed-through source; forgotten when the source is lost or a start fails. */
  probedCodec?: string;
  /** The samples of the current run while it plays (core/pipeline/stats.ts), else null. */
  stats: StatsWindow | null;
}

export function newLifecycle(): Lifecycle {
  return {
    wanted: 'ready', wantedSince: null, wantedBy: null, state: 'ready', startedBy: null, host: null, running: null, stopping: false,
    deleted: false, restartAttempts: 0, restartTimer: null, interrupted: false, run: 0, stats: null,
  };
}

/** The wait before recovery attempt `attempts` (0 for the first): base, doubling, never above max. */
export function backoffDelay(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** attempts);
}

/** What a recovery does, by what is wanted: a host only, an on-demand server listening again, or playback again. */
export type RecoveryStep = 'host' | 'listen' | 'play' | 'none';

export function recoveryStep(life: Readonly<Lifecycle>, onDemand: boolean): RecoveryStep {
  if (life.wanted !== 'playing') return 'host';
  if (onDemand) return 'listen';
  return life.state === 'playing' ? 'none' : 'play';
}
