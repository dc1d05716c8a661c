/**
 * The pipeline object as JSON text, made once per change rather than once per request. A dashboard polling the list
 * of 50 pipelines spent most of its time serialising objects that had not changed since the last poll
 * (docs/benchmarks.md, "Control plane"). Each entry's text is kept with what it was made from, and made again when
 * any of that differs: no writer has to remember to invalidate it.
 *
 * What a view shows of an entry is compared by identity: the manager replaces a definition, a store record, a
 * framegrab setting and a health judgement rather than changing them in place (core/pipeline/entry.ts, viewOf).
 * The statistics of a playing pipeline change with time, so they are the one part serialised per request, spliced
 * into the kept text.
 */
import type { UriSecrets } from '../secrets/uri-secrets';
import { statsOf, viewOf, type Entry } from './entry';

interface Kept {
  inputs: unknown[];
  /** The text up to and including `"stats":`. */
  head: string;
  /** The text after the stats value. */
  tail: string;
}

/** What viewOf reads of an entry, besides its statistics. */
function inputsOf(e: Entry): unknown[] {
  return [e.def, e.life.state, e.life.startedBy, e.store, e.store?.auto_start, e.store?.description, e.klvSeen, e.klvWanted,
    e.framegrab, e.lastError, e.health.health, e.health.reason];
}

function same(a: unknown[], b: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const STATS_KEY = '"stats":null';

export class ViewJson {
  private readonly kept = new WeakMap<Entry, Kept>();

  constructor(private readonly secrets?: UriSecrets) {}

  /** The pipeline object of e as JSON text, equal to JSON.stringify(viewOf(e)). */
  of(e: Entry, now = Date.now()): string {
    const inputs = inputsOf(e);
    let k = this.kept.get(e);
    let stats;
    if (k && same(k.inputs, inputs)) {
      stats = statsOf(e, now);
    } else {
      const view = viewOf(e, this.secrets, now);
      stats = view.stats;
      k = split(view, inputs);
      this.kept.set(e, k);
    }
    return k.head + (stats ? JSON.stringify(stats) : 'null') + k.tail;
  }

  /** A JSON array of the entries' pipeline objects. */
  list(entries: Iterable<Entry>, now = Date.now()): string {
    const parts: string[] = [];
    for (const e of entries) parts.push(this.of(e, now));
    return `[${parts.join(',')}]`;
  }
}

/**
 * Cuts the view's text around its statistics. Only `auto_start` (a boolean) and `description` (a string, whose
 * quotes JSON escapes) follow `stats` at the top level, so the last `"stats":null` is the top-level one.
 */
function split(view: ReturnType<typeof viewOf>, inputs: unknown[]): Kept {
  const text = JSON.stringify({ ...view, stats: null });
  const at = text.lastIndexOf(STATS_KEY);
  return { inputs, head: text.slice(0, at + STATS_KEY.length - 4), tail: text.slice(at + STATS_KEY.length) };
}
