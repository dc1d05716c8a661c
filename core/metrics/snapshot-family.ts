/**
 * A metric family whose values are read at scrape time from a snapshot (the manager's rows, /proc), not
 * updated as things happen. Each collect() resets the family before setting it, so a series whose subject is
 * gone (a deleted pipeline, an ended engine host) disappears from the output instead of keeping its last value.
 *
 * Counters: the snapshot carries totals (frames since playing, restarts since created). prom-client's Counter
 * cannot be set, so collect() resets it and increments it by the total: the exposition says `counter` (rate()
 * and increase() apply, a restart from zero is an ordinary counter reset) without a Gauge posing as one.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** One series: its label values and its value. */
export type Series = readonly [labels: Record<string, string>, value: number];

export interface FamilySpec<R> {
  name: string;
  help: string;
  kind: 'gauge' | 'counter';
  labelNames: readonly string[];
  /** The family's series in the current snapshot; none when there is nothing to say. */
  series(rows: readonly R[]): Iterable<Series>;
}

export function snapshotFamily<R>(registry: Registry, rows: () => readonly R[], spec: FamilySpec<R>): void {
  const common = { name: spec.name, help: spec.help, labelNames: [...spec.labelNames], registers: [registry] };
  if (spec.kind === 'gauge') {
    new Gauge({
      ...common,
      collect() {
        this.reset();
        for (const [labels, value] of spec.series(rows())) this.set(labels, value);
      },
    });
  } else {
    new Counter({
      ...common,
      collect() {
        this.reset();
        for (const [labels, value] of spec.series(rows())) this.inc(labels, value);
      },
    });
  }
}
