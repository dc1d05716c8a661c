/**
 * The settings: one store document (collection 'settings', name 'current'), written atomically by the store.
 * PUT merges the fields it names over the current record (see docs/settings.md); every accepted change
 * is persisted first, then applied, then announced to listeners.
 */
import type { Logger } from 'pino';
import { validationError } from '../errors/catalogue';
import type { Store } from '../store/json-store';
import { defaultSettings, patchValidator, recordValidator, type Settings } from './schema';

const COLLECTION = 'settings';
const DOCUMENT = 'current';

export type SettingsListener = (now: Readonly<Settings>, before: Readonly<Settings>) => void;

export class SettingsService {
  private current: Settings;
  private readonly listeners: SettingsListener[] = [];

  constructor(private readonly store: Store, private readonly log: Logger, defaults: Settings) {
    const stored = store.read<Partial<Settings>>(COLLECTION, DOCUMENT);
    // Fields added in a later version take their defaults; a stored value that no longer validates is
    // replaced by its default and said so, rather than refusing to start.
    const merged: Record<string, unknown> = { ...defaults };
    for (const [k, v] of Object.entries(stored ?? {})) {
      if (!(k in defaults)) continue;
      const candidate = { ...defaults, [k]: v };
      if (recordValidator.validate(candidate).errors.length) log.warn({ field: k }, 'stored setting is invalid; using its default');
      else merged[k] = v;
    }
    this.current = merged as unknown as Settings;
  }

  get(): Readonly<Settings> {
    return { ...this.current };
  }

  /** Validates and applies a PUT body; answers the whole record. */
  update(body: unknown): Settings {
    if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) throw validationError(['body must be an object']);
    const r = patchValidator.validate(body);
    if (r.errors.length) throw validationError(r.errors);
    const before = this.current;
    const next: Settings = { ...before, ...(r.value as Partial<Settings>) };
    this.store.write(COLLECTION, DOCUMENT, next);
    this.current = next;
    const changed = Object.keys(r.value as object).filter((k) => before[k as keyof Settings] !== next[k as keyof Settings]);
    if (changed.length) this.log.info({ changed }, 'settings changed');
    for (const fn of this.listeners) {
      try {
        fn(this.get(), { ...before });
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'applying settings failed');
      }
    }
    return this.get();
  }

  onChange(fn: SettingsListener): void {
    this.listeners.push(fn);
  }
}

export { defaultSettings };
