/**
 * The one place each field of a pipeline's lifecycle (core/pipeline/lifecycle.ts) is written: a small method per
 * field, or per pair of fields that always change together (wanted and wantedSince, state and startedBy), so every
 * change of a field is found in one place. Only the pipeline's supervisor holds one; what a change means (events,
 * health) stays the supervisor's. test/unit/lifecycle-writer.test.ts checks that no other line of core/ assigns a
 * lifecycle field and that each is assigned once here.
 */
import type { EngineHost } from '../engine/host-process';
import type { ComposedPipeline } from '../compose';
import type { Lifecycle } from './lifecycle';
import type { PipelineState, StartedBy } from './model';
import type { StatsWindow } from './stats';

export class LifecycleWriter {
  constructor(private readonly life: Lifecycle) {}

  /** The stall rule of health counts from the moment playing became wanted; by whom is who asked last. */
  want(wanted: 'playing' | 'ready', by: StartedBy): void {
    const stillWanted = wanted === 'playing' && this.life.wanted === 'playing';
    this.life.wantedSince = wanted === 'ready' ? null : stillWanted ? this.life.wantedSince : Date.now();
    this.life.wantedBy = wanted === 'ready' ? null : by;
    this.life.wanted = wanted;
  }

  /** Whether the state changed (the supervisor tells watchers then). */
  setState(state: PipelineState, startedBy: StartedBy): boolean {
    const changed = this.life.state !== state;
    this.life.state = state;
    this.life.startedBy = startedBy;
    return changed;
  }

  setHost(host: EngineHost | null): void {
    this.life.host = host;
  }

  setRunning(composed: ComposedPipeline | null): void {
    this.life.running = composed;
  }

  setStopping(stopping: boolean): void {
    this.life.stopping = stopping;
  }

  /** For good: a deleted pipeline's supervisor restarts nothing and reports nothing. */
  markDeleted(): void {
    this.life.deleted = true;
  }

  setRestartAttempts(attempts: number): void {
    this.life.restartAttempts = attempts;
  }

  setRestartTimer(timer: NodeJS.Timeout | null): void {
    this.life.restartTimer = timer;
  }

  setInterrupted(interrupted: boolean): void {
    this.life.interrupted = interrupted;
  }

  /** A start begins a new run: an interruption of an earlier one no longer halts what runs (see `run`). */
  nextRun(): void {
    this.life.run += 1;
  }

  setProbedCodec(codec: string | undefined): void {
    this.life.probedCodec = codec;
  }

  setStats(stats: StatsWindow | null): void {
    this.life.stats = stats;
  }
}
