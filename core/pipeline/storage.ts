/**
 * Pipelines in storage (docs/api.md, "Storage"): store, store-patch, unstore, and the restore at startup that brings
 * them back (auto_start ones playing). Bodies are checked against their schemas; the one writer of Entry.store.
 */
import type { Logger } from 'pino';
import { ApiError, validationError } from '../errors/catalogue';
import type { UriSecrets } from '../secrets/uri-secrets';
import type { Store } from '../store/json-store';
import { SchemaValidator } from '../validation/validator';
import type { Entry, EntryTable } from './entry';
import type { PipelineDefinition, PipelineView, StoreMeta } from './model';
import type { PipelineValidator } from './validate';

const STORE = 'pipelines';

interface StoredPipeline extends StoreMeta {
  definition: PipelineDefinition;
  stored_at: string;
}

/** The metadata of a stored pipeline, said in the words the API has always used. */
const META_PROPERTIES = {
  auto_start: { type: 'boolean', 'x-message': 'must be a boolean' },
  description: { type: 'string', maxLength: 1024, 'x-message': 'must be a string of at most 1024 characters' },
} as const;

/** POST …/store: the metadata only. */
const storeBody = new SchemaValidator<Partial<StoreMeta>>({ type: 'object', additionalProperties: false, properties: META_PROPERTIES });
/** PATCH …/store: the metadata, beside definition fields merged into the stored definition (validated as a whole). */
const storePatchBody = new SchemaValidator<Partial<StoreMeta>>({ type: 'object', properties: META_PROPERTIES });

/** A body that is not an object (none, an array) is an empty one: every field of these bodies is optional. */
function objectBody(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : {};
}

export interface StorageContext {
  readonly table: EntryTable;
  readonly store: Store;
  readonly validator: PipelineValidator;
  readonly secrets: UriSecrets;
  readonly log: Logger;
  /** Enters a restored pipeline into the table (not started). */
  adopt(def: PipelineDefinition, store: StoreMeta): Entry;
  /** Starts a restored auto_start pipeline (inside its queue); a failure is retried with backoff. */
  autoStart(e: Entry): Promise<void>;
}

export class PipelineStorage {
  constructor(private readonly ctx: StorageContext) {}

  create(id: string, body: unknown): Promise<PipelineView> {
    const checked = storeBody.validate(objectBody(body));
    // In the order the API has always listed them: the fields it knows, then the ones it does not.
    const unknown = (m: string) => m.endsWith(' is not a supported field');
    if (checked.errors.length) throw validationError([...checked.errors.filter((m) => !unknown(m)), ...checked.errors.filter(unknown)]);
    const meta = checked.value!;
    const e = this.ctx.table.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; only on_demand=false pipelines can be stored`);
      const store: StoreMeta = { auto_start: meta.auto_start ?? false, description: meta.description ?? '' };
      this.ctx.store.write(STORE, id, { definition: e.def, ...store, stored_at: new Date().toISOString() } satisfies StoredPipeline);
      e.store = store;
      return this.ctx.table.changed(e);
    });
  }

  patch(id: string, body: unknown): Promise<PipelineView> {
    const fields = objectBody(body);
    const e = this.ctx.table.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; only on_demand=false pipelines can be stored`);
      const stored = this.ctx.store.read<StoredPipeline>(STORE, id);
      if (!stored || !e.store) throw new ApiError('PIPELINE_NOT_PERSISTED', `pipeline "${id}" is not in storage`);
      const { auto_start, description, ...definitionFields } = fields;
      const checked = storePatchBody.validate({ auto_start, description });
      if (checked.errors.length) throw validationError(checked.errors);
      let definition = stored.definition;
      if (Object.keys(definitionFields).length) {
        if ('id' in definitionFields && definitionFields.id !== id) throw validationError(['id cannot be changed']);
        definition = this.ctx.validator.definition(this.ctx.secrets.unmask(mergeDefinition(stored.definition, definitionFields), stored.definition));
        if (definition.on_demand) throw new ApiError('PIPELINE_CONFLICT', 'a stored pipeline cannot be on demand');
      }
      const meta: StoreMeta = {
        auto_start: (auto_start as boolean | undefined) ?? stored.auto_start,
        description: (description as string | undefined) ?? stored.description,
      };
      this.ctx.store.write(STORE, id, { ...stored, ...meta, definition } satisfies StoredPipeline);
      e.store = meta;
      return this.ctx.table.changed(e);
    });
  }

  delete(id: string): Promise<PipelineView> {
    const e = this.ctx.table.entry(id, 'PIPELINE_NOT_FOUND');
    return e.queue.run(async () => {
      if (e.def.on_demand) throw new ApiError('PIPELINE_CONFLICT', `pipeline "${id}" is on demand; it cannot be in storage`);
      if (!e.store) throw new ApiError('PIPELINE_NOT_PERSISTED', `pipeline "${id}" is not in storage`);
      this.ctx.store.remove(STORE, id);
      e.store = null;
      return this.ctx.table.changed(e);
    });
  }

  /** DELETE with delete_persisted: the stored copy goes too. */
  forget(e: Entry): void {
    if (e.store) this.ctx.store.remove(STORE, e.def.id);
  }

  /**
   * The storage metadata of a new pipeline whose id has a stored document (kept by DELETE without delete_persisted),
   * or null. A stored pipeline is never on demand, so an on-demand create of a stored id is refused.
   */
  storedMeta(def: PipelineDefinition): StoreMeta | null {
    if (!this.ctx.store.list(STORE).includes(def.id)) return null;
    // A document that does not open (restore() reports it) is still in storage: its metadata is the default.
    let stored: StoredPipeline | undefined;
    try {
      stored = this.ctx.store.read<StoredPipeline>(STORE, def.id);
    } catch {
      stored = undefined;
    }
    if (def.on_demand) {
      throw validationError([`on_demand cannot be true: pipeline "${def.id}" is in storage, and only on_demand=false pipelines can be stored (create it with on_demand false, then DELETE /svc/pipeline/${def.id}/store)`]);
    }
    return { auto_start: stored?.auto_start ?? false, description: stored?.description ?? '' };
  }

  /** Brings back stored pipelines after a restart; auto_start ones start playing. */
  async restore(): Promise<void> {
    const entries: Entry[] = [];
    for (const id of this.ctx.store.list(STORE)) {
      let stored: StoredPipeline | undefined;
      let def: PipelineDefinition;
      try {
        // A document that does not open (unreadable JSON, a sealed credential under another key) is reported, not fatal.
        stored = this.ctx.store.read<StoredPipeline>(STORE, id);
        if (!stored) continue;
        def = this.ctx.validator.definition(stored.definition);
      } catch (err) {
        this.ctx.log.error({ pipeline: id, err: (err as Error).message }, 'stored pipeline is no longer valid; left in storage, not loaded');
        continue;
      }
      entries.push(this.ctx.adopt(def, { auto_start: stored.auto_start, description: stored.description }));
    }
    await Promise.all(entries.filter((e) => e.store?.auto_start).map((e) => e.queue.run(() => this.ctx.autoStart(e))));
  }
}

/** A stored definition with fields of a PATCH merged in: objects one level deep, everything else replaced. */
function mergeDefinition(definition: PipelineDefinition, fields: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...definition } as Record<string, unknown>;
  for (const [k, v] of Object.entries(fields)) {
    merged[k] = v && typeof v === 'object' && !Array.isArray(v) && merged[k] && typeof merged[k] === 'object'
      ? { ...(merged[k] as object), ...(v as object) } : v;
  }
  return merged;
}
