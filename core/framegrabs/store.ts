/**
 * Framegrab files: <data>/framegrabs/<pipeline_id>/<pipeline_id>-<UTC time>.jpg (docs/framegrabs.md). Each file
 * is written under a temporary name and renamed, so a reader never sees half a JPEG. After every write the
 * pipeline's oldest files beyond the retention (settings.framegrab_retention) are deleted. A request names a file
 * only by its plain name; anything else (a path, `..`, another pattern) is simply not found.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FramegrabRecord {
  file: string;
  pipeline_id: string;
  size: number;
  created_at: string;
  url: string;
}

const ID = '[A-Za-z0-9_-]{1,64}';
const STAMP = '\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}\\.\\d{3}Z';
const FILE = new RegExp(`^(${ID})-(${STAMP})(?:-(\\d+))?\\.jpg$`);

/** The pipeline id and capture time a framegrab file name carries, or null when it is not one. */
export function parseFramegrabName(file: string): { pipelineId: string; createdAt: string } | null {
  const m = FILE.exec(file);
  if (!m) return null;
  const [date, time] = m[2].split('T');
  return { pipelineId: m[1], createdAt: `${date}T${time.replace(/^(\d{2})-(\d{2})-/, '$1:$2:')}` };
}

export function framegrabName(pipelineId: string, at: Date, n = 0): string {
  return `${pipelineId}-${at.toISOString().replace(/:/g, '-')}${n ? `-${n}` : ''}.jpg`;
}

export class FramegrabStore {
  readonly root: string;

  constructor(dataDir: string, private readonly retention: () => number) {
    this.root = join(dataDir, 'framegrabs');
  }

  /** Writes one JPEG and applies the retention; answers the file's name. */
  save(pipelineId: string, jpeg: Uint8Array, at = new Date()): string {
    const dir = join(this.root, pipelineId);
    mkdirSync(dir, { recursive: true });
    let n = 0;
    let file = framegrabName(pipelineId, at);
    while (this.exists(dir, file)) file = framegrabName(pipelineId, at, ++n);
    const tmp = join(dir, `.${file}.part`);
    writeFileSync(tmp, jpeg);
    renameSync(tmp, join(dir, file));
    this.prune(pipelineId);
    return file;
  }

  /** Deletes the pipeline's oldest files beyond the retention. */
  prune(pipelineId: string): void {
    const files = this.names(pipelineId);
    const excess = files.length - this.retention();
    for (const f of files.slice(0, Math.max(0, excess))) rmSync(join(this.root, pipelineId, f), { force: true });
  }

  pruneAll(): void {
    for (const id of this.pipelines()) this.prune(id);
  }

  /** Every file, newest first; only one pipeline's when pipelineId is given. */
  list(pipelineId?: string): FramegrabRecord[] {
    const ids = pipelineId === undefined ? this.pipelines() : [pipelineId];
    return ids.flatMap((id) => this.names(id).map((f) => this.record(id, f)).filter((r): r is FramegrabRecord => r !== null))
      .sort((a, b) => (a.created_at === b.created_at ? b.file.localeCompare(a.file) : b.created_at.localeCompare(a.created_at)));
  }

  /** The JPEG bytes of a file, or null when no such framegrab exists. */
  read(file: string): Buffer | null {
    const path = this.path(file);
    if (!path) return null;
    try {
      return readFileSync(path);
    } catch {
      return null;
    }
  }

  /** Whether a file was deleted. */
  delete(file: string): boolean {
    const path = this.path(file);
    if (!path) return false;
    rmSync(path);
    return true;
  }

  /** Deletes every file of a pipeline; answers how many. */
  deleteAll(pipelineId: string): number {
    const files = this.names(pipelineId);
    for (const f of files) rmSync(join(this.root, pipelineId, f), { force: true });
    return files.length;
  }

  private path(file: string): string | null {
    const parsed = parseFramegrabName(file);
    if (!parsed) return null;
    const dir = join(this.root, parsed.pipelineId);
    return this.exists(dir, file) ? join(dir, file) : null;
  }

  private exists(dir: string, file: string): boolean {
    try {
      return statSync(join(dir, file)).isFile();
    } catch {
      return false;
    }
  }

  private record(pipelineId: string, file: string): FramegrabRecord | null {
    const parsed = parseFramegrabName(file);
    try {
      const { size } = statSync(join(this.root, pipelineId, file));
      return { file, pipeline_id: pipelineId, size, created_at: parsed!.createdAt, url: `/svc/files/framegrabs/${file}` };
    } catch {
      return null;
    }
  }

  /** The pipeline's framegrab file names, oldest first (the names sort by capture time). */
  private names(pipelineId: string): string[] {
    if (!new RegExp(`^${ID}$`).test(pipelineId)) return [];
    try {
      return readdirSync(join(this.root, pipelineId)).filter((f) => parseFramegrabName(f)?.pipelineId === pipelineId).sort(byTime);
    } catch {
      return [];
    }
  }

  private pipelines(): string[] {
    try {
      return readdirSync(this.root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
    } catch {
      return [];
    }
  }
}

function byTime(a: string, b: string): number {
  const ta = parseFramegrabName(a)!.createdAt;
  const tb = parseFramegrabName(b)!.createdAt;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.length - b.length || (a < b ? -1 : 1);
}
