/**
 * The feature commands of a pipeline: framegrabs, snapshots and KLV extraction (docs/framegrabs.md, docs/klv.md).
 * They act on a running pipeline through its framegrab branch and its watched appsinks, inside the pipeline's serial
 * queue like every command; the one writer of the feature fields of an Entry.
 */
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue';
import type { EngineHost } from '../engine/host-process';
import type { PipelineEvents } from '../events/pipeline-events';
import { branchChanges, type FramegrabSettings } from '../framegrabs/branch';
import { SNAPSHOT_QUALITY } from '../framegrabs/snapshots';
import type { FramegrabStore } from '../framegrabs/store';
import { klvEvent } from '../klv/extractor';
import type { ComposedPipeline } from '../compose';
import type { Entry, EntryTable } from './entry';
import type { PipelineDefinition, PipelineView } from './model';
import type { RunListener } from './supervisor';

export interface FeatureContext {
  readonly table: EntryTable;
  readonly events: PipelineEvents;
  readonly log: Logger;
  readonly framegrabs: FramegrabStore | null;
  compose(def: PipelineDefinition): ComposedPipeline;
  /** The live host of e, or 503 ENGINE_UNAVAILABLE. */
  hostOf(e: Entry): EngineHost;
}

export class PipelineFeatures implements RunListener {
  constructor(private readonly ctx: FeatureContext) {}

  framegrabStart(id: string, settings: FramegrabSettings): Promise<PipelineView> {
    return this.ctx.table.command(id, async (e) => {
      const el = this.ctx.compose(e.def).framegrab;
      if (!el) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" has no framegrab branch: framegrabs need a simple or multiview pipeline that encodes and is not on demand`);
      e.framegrab = { ...settings };
      e.framegrabSavedAt = 0;
      if (e.life.state === 'playing' && e.life.running?.framegrab) {
        this.ctx.hostOf(e);
        await this.applyBranch(e);
      }
      return this.ctx.table.changed(e);
    });
  }

  framegrabStop(id: string): Promise<PipelineView> {
    return this.ctx.table.command(id, async (e) => {
      e.framegrab = null;
      if (e.life.state === 'playing' && e.life.running?.framegrab && e.life.host?.alive) await this.applyBranch(e);
      return this.ctx.table.changed(e);
    });
  }

  /**
   * The pipeline's current picture as a JPEG: from the framegrab branch, opened at one frame a second while someone
   * asks (core/framegrabs/snapshots.ts). 409 while not playing, or when the pipeline has no raw picture to take.
   */
  async snapshot(id: string): Promise<Uint8Array> {
    const e = this.ctx.table.entry(id);
    const running = e.life.running;
    if (e.life.state !== 'playing' || !running) throw new ApiError('CONFLICT', `pipeline "${id}" is not playing: it has no current picture`);
    if (!running.framegrab) {
      throw new ApiError('CONFLICT', `pipeline "${id}" has no picture to take: snapshots need a simple or multiview pipeline that encodes and is not on demand`);
    }
    const now = Date.now();
    e.snapshot.want(now);
    if (!e.snapshotting) await e.queue.run(async () => { if (e.life.state === 'playing' && e.life.host?.alive) await this.applyBranch(e); });
    const jpeg = await e.snapshot.current(Date.now(), 3000);
    if (!jpeg) throw new ApiError('CONFLICT', `pipeline "${id}" has produced no picture in the last 3 s`);
    return jpeg;
  }

  klvStart(id: string): Promise<PipelineView> {
    return this.klvWant(id, true);
  }

  klvStop(id: string): Promise<PipelineView> {
    return this.klvWant(id, false);
  }

  private klvWant(id: string, wanted: boolean): Promise<PipelineView> {
    return this.ctx.table.command(id, async (e) => {
      if (wanted && !e.klvSeen) {
        throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" has no KLV to extract: klv.available is false (the source has carried none while playing)`);
      }
      e.klvWanted = wanted;
      return this.ctx.table.changed(e);
    });
  }

  /** The definition was replaced (PUT): whether its source carries KLV is learned again. */
  redefined(e: Entry): void {
    e.klvSeen = false;
  }

  // ---- what the supervisor tells of a run (RunListener) -----------------------------------------------------

  async afterStart(e: Entry): Promise<void> {
    const running = e.life.running;
    if (!running || !e.life.host) return;
    e.snapshotting = false;
    if (running.framegrab && (e.framegrab || e.snapshot.wanted(Date.now()))) {
      await this.applyBranch(e).catch((err) => this.ctx.log.warn({ pipeline: e.def.id, err: (err as Error).message }, 'framegrabs could not start'));
    }
  }

  halted(e: Entry): void {
    e.snapshot.clear();
    e.snapshotting = false;
  }

  onSample(e: Entry, sink: string, data: Uint8Array, pts: number): void {
    const running = e.life.running;
    if (!running) return;
    if (sink === running.framegrab?.sink) {
      const now = Date.now();
      e.snapshot.put(data, now);
      if (!e.framegrab || !this.ctx.framegrabs) return;
      // At the snapshots' rate (one a second), one framegrab per interval is saved; half a second of slack for jitter.
      if (e.snapshotting && now - e.framegrabSavedAt < e.framegrab.interval_seconds * 1000 - 500) return;
      e.framegrabSavedAt = now;
      try {
        this.ctx.framegrabs.save(e.def.id, data);
      } catch (err) {
        this.ctx.log.error({ pipeline: e.def.id, err: (err as Error).message }, 'framegrab could not be written');
      }
      return;
    }
    if (sink === running.klvSink) {
      if (!e.klvSeen) {
        e.klvSeen = true;
        this.ctx.table.changed(e);
      }
      if (!e.klvWanted) return;
      const decoded = klvEvent(e.def.id, data, pts);
      if (decoded) this.ctx.events.emit({ type: 'klv', id: e.def.id, data: decoded });
    }
  }

  /** Once a second: a branch left at the snapshots' rate after nobody asked for a while goes back to framegrabs or closed. */
  settleSnapshots(e: Entry): void {
    if (!e.snapshotting || e.snapshot.wanted(Date.now())) return;
    void e.queue.run(async () => {
      if (e.snapshotting && e.life.state === 'playing') await this.applyBranch(e).catch(() => undefined);
    });
  }

  /** Sets the framegrab branch to what framegrabs and snapshots want now (inside e's queue). */
  private async applyBranch(e: Entry): Promise<void> {
    const running = e.life.running;
    const host = e.life.host;
    if (!running?.framegrab || !host?.alive) return;
    const snapshots = e.snapshot.wanted(Date.now());
    await host.request({ op: 'set', changes: branchChanges(running.framegrab, e.framegrab, snapshots, SNAPSHOT_QUALITY) });
    e.snapshotting = snapshots;
  }
}
