/**
 * What grew between two captures of one process's /proc/<pid>/smaps: `node bench/smaps-diff.mjs BEFORE AFTER [N]`.
 * Prints the resident MB of each kind of mapping (bench/lib/smaps.mjs) before, after and the difference, then the
 * N (default 15) mappings whose Rss changed most, matched by start address (a mapping that appeared or went counts
 * from or to 0). Issue 16's question "which mapping grows in the API process" is answered with it
 * (docs/benchmarks.md).
 */
import { readFileSync } from 'node:fs';
import { classify, KINDS, parseSmaps, residentByKind } from './lib/smaps.mjs';

// Output piped into head: stop quietly when it closes.
process.stdout.on('error', () => process.exit(0));

const [beforePath, afterPath, topArg] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  process.stderr.write('usage: node bench/smaps-diff.mjs BEFORE AFTER [N]\n');
  process.exit(2);
}
const texts = [beforePath, afterPath].map((p) => readFileSync(p, 'utf8'));
const [before, after] = texts.map(residentByKind);
const mb = (x) => x.toFixed(2).padStart(8);
process.stdout.write(`${'kind'.padEnd(11)}${'before'.padStart(8)}${'after'.padStart(8)}${'delta'.padStart(8)}  (MB resident)\n`);
for (const k of [...KINDS, 'total']) {
  const b = k === 'total' ? Object.values(before).reduce((a, x) => a + x, 0) : before[k];
  const a = k === 'total' ? Object.values(after).reduce((s, x) => s + x, 0) : after[k];
  process.stdout.write(`${k.padEnd(11)}${mb(b)}${mb(a)}${mb(a - b)}\n`);
}

const keyed = texts.map((t) => {
  const maps = parseSmaps(t);
  const kinds = classify(maps);
  return new Map(maps.map((m, i) => [m.start.toString(16), { ...m, kind: kinds[i] }]));
});
const rows = [];
for (const key of new Set([...keyed[0].keys(), ...keyed[1].keys()])) {
  const b = keyed[0].get(key);
  const a = keyed[1].get(key);
  const delta = (a?.rssKb ?? 0) - (b?.rssKb ?? 0);
  if (delta) rows.push({ key, delta, kind: (a ?? b).kind, sizeKb: Number(((a ?? b).end - (a ?? b).start) / 1024n), state: !b ? 'new' : !a ? 'gone' : '' });
}
rows.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta));
process.stdout.write(`\nmappings that changed most (kB of Rss): start, kind, size kB, delta kB\n`);
for (const r of rows.slice(0, Number(topArg ?? 15))) {
  process.stdout.write(`${r.key.padStart(14)} ${r.kind.padEnd(10)} ${String(r.sizeKb).padStart(8)} ${String(r.delta).padStart(8)} ${r.state}\n`);
}
const moved = (kind, state) => rows.filter((r) => r.kind === kind && r.state === state).length;
process.stdout.write(`\nv8Pages mappings: ${moved('v8Pages', 'new')} new, ${moved('v8Pages', 'gone')} gone; other anonymous: ${moved('otherAnon', 'new')} new, ${moved('otherAnon', 'gone')} gone\n`);
