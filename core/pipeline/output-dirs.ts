/**
 * Each pipeline with an output gets its own directory under `<data dir>/outputs` (ComposeContext.outputDir): emptied
 * before a start, removed at the stop and the delete.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { outputDirOf } from '../compose';
import type { PipelineDefinition } from './model';

export class OutputDirs {
  /** root: `<data dir>/outputs`; undefined where the service has no place for them (tests of the manager alone). */
  constructor(readonly root: string | undefined, private readonly log: Logger) {}

  /** The pipeline's own output directory, when it has an output and the service has a place. */
  of(def: PipelineDefinition): string | undefined {
    return this.root !== undefined && def.output ? outputDirOf(this.root, def.id) : undefined;
  }

  /** Before a start: the output directory, empty (a run that died leaves its files; a new run must not serve them). */
  async fresh(def: PipelineDefinition): Promise<void> {
    const dir = this.of(def);
    if (!dir) return;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
  }

  /** On stop and delete: the output directory and everything in it. */
  async remove(def: PipelineDefinition): Promise<void> {
    const dir = this.of(def);
    if (dir) await rm(dir, { recursive: true, force: true }).catch((err) => this.log.warn({ pipeline: def.id, err: (err as Error).message }, 'output directory could not be removed'));
  }

  /** At startup: what a previous run left (it crashed, or was killed) belongs to no pipeline now. */
  async clearAll(): Promise<void> {
    if (this.root) await rm(this.root, { recursive: true, force: true });
  }
}
