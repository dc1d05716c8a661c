/**
 * A process's resident memory by kind of mapping, from the text of /proc/<pid>/smaps. Used by the soak (its
 * `api_parts`) and by bench/smaps-diff.mjs, which compares two captures of one process mapping by mapping.
 *
 * Kinds, in kB of Rss:
 * - `v8Pages`: V8's heap pages (anonymous 256 kB maps) and its executable code pages (rwxp);
 * - `mainHeap`: glibc's main arena (`[heap]`, brk);
 * - `arenas`: glibc's other arenas. Each is a 64 MiB-aligned reservation (HEAP_MAX_SIZE on 64-bit): an rw-p map
 *   at the aligned start and a ---p remainder right after it, 64 MiB together (or one rw-p map of all 64 MiB);
 * - `stacks`: thread stacks (anonymous 8 MiB rw-p maps, the default stack size of libuv's and V8's threads);
 * - `otherAnon`: every other anonymous map (V8's large objects, glibc's mmapped chunks);
 * - `fileBacked`: pages of mapped files (node, the libraries touched so far).
 */
const ARENA_BYTES = 64 * 1024 * 1024;
const STACK_BYTES = 8 * 1024 * 1024;
const V8_PAGE_BYTES = 256 * 1024;

export const KINDS = ['v8Pages', 'mainHeap', 'arenas', 'stacks', 'otherAnon', 'fileBacked'];

/** Every mapping of an smaps text: start, end, perms, name and Rss in kB. */
export function parseSmaps(text) {
  const maps = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) maps.push({ start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[2]}`), perms: m[3], name: m[4], rssKb: 0 });
    else if (maps.length && line.startsWith('Rss:')) maps[maps.length - 1].rssKb = Number(line.split(/\s+/)[1]);
  }
  return maps;
}

/** The kind of each mapping (same order as parseSmaps). */
export function classify(maps) {
  return maps.map((m, i) => {
    if (m.name === '[heap]') return 'mainHeap';
    if (m.name && !m.name.startsWith('[')) return 'fileBacked';
    if (m.name) return 'otherAnon'; // [stack], [vvar], [vdso]…: small, and not ours
    const bytes = Number(m.end - m.start);
    const next = maps[i + 1];
    const aligned = m.start % BigInt(ARENA_BYTES) === 0n;
    if (aligned && m.perms === 'rw-p' && (bytes === ARENA_BYTES
      || (next && !next.name && next.perms === '---p' && next.start === m.end && Number(next.end - m.start) === ARENA_BYTES))) return 'arenas';
    if (bytes === V8_PAGE_BYTES || m.perms === 'rwxp') return 'v8Pages';
    if (bytes === STACK_BYTES && m.perms === 'rw-p') return 'stacks';
    return 'otherAnon';
  });
}

/** Resident MB by kind. */
export function residentByKind(text) {
  const maps = parseSmaps(text);
  const kinds = Object.fromEntries(KINDS.map((k) => [k, 0]));
  classify(maps).forEach((k, i) => { kinds[k] += maps[i].rssKb / 1024; });
  return kinds;
}
