/**
 * No module in core/ imports another in a cycle (issue 15): every relative import and re-export of core/**\/*.ts,
 * type-only ones included (a type cycle is a knot for the reader all the same), is walked depth first; a module met
 * again while still on the path closes a cycle, reported as the chain of files.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const CORE = join(ROOT, 'core');
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|(?:^|[\s;])import\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The modules under root a file imports, resolved as TypeScript does (`./x` → x.ts or x/index.ts); others are left out. */
function importsOf(file: string, root: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(SPECIFIER)) {
    const base = resolve(dirname(file), m[1] ?? m[2] ?? m[3]);
    const target = [`${base}.ts`, join(base, 'index.ts')].find((p) => existsSync(p));
    if (target && target.startsWith(`${root}/`)) found.add(target);
  }
  return [...found];
}

/** The cycles a depth-first walk of root's modules meets, each as its files from the first to the one that imports it back. */
function cycles(root: string): string[][] {
  const modules = files(root);
  const graph = new Map(modules.map((f) => [f, importsOf(f, root)]));
  const done = new Set<string>();
  const path: string[] = [];
  const found: string[][] = [];
  const visit = (f: string) => {
    const at = path.indexOf(f);
    if (at >= 0) {
      found.push(path.slice(at).map((p) => relative(root, p)));
      return;
    }
    if (done.has(f)) return;
    path.push(f);
    for (const next of graph.get(f) ?? []) visit(next);
    path.pop();
    done.add(f);
  };
  for (const f of modules) visit(f);
  return found;
}

it('the walk sees imports of every form, and the cycle they close', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
  try {
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b';\nexport type A = B;\n");
    writeFileSync(join(dir, 'b.ts'), "export { c } from './c/index';\nexport type B = number;\n");
    writeFileSync(join(dir, 'index.ts'), "import './a';\n");
    mkdirSync(join(dir, 'c'));
    writeFileSync(join(dir, 'c/index.ts'), "export const c = () => import('../a');\n");
    expect(cycles(dir)).toEqual([['a.ts', 'b.ts', 'c/index.ts']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('no module in core/ imports another in a cycle', () => {
  expect(cycles(CORE)).toEqual([]);
});
