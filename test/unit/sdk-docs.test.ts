/**
 * docs/plugins.md documents the SDK: every export of core/sdk (listed by the TypeScript compiler, types included)
 * is named in a fourth-level heading of its "SDK reference" section, and every name those headings or the export
 * table of "The SDK" present as an export is one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service';

const INDEX = join(ROOT, 'core/sdk/index.ts');
const DOC = readFileSync(join(ROOT, 'docs/plugins.md'), 'utf8');

function sdkExports(): string[] {
  const program = ts.createProgram([INDEX], { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, strict: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(INDEX)!);
  if (!module) throw new Error(`${INDEX} is not a module`);
  return checker.getExportsOfModule(module).map((s) => s.name).sort();
}

/** The lines of the `## title` section, outside fenced code blocks. */
function section(title: string): string[] {
  const lines = DOC.split('\n');
  const start = lines.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/plugins.md has no "## ${title}" section`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  let fenced = false;
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((l) => {
    if (l.startsWith('```')) fenced = !fenced;
    return !fenced && !l.startsWith('```');
  });
}

/** The leading identifier of each code span: `definePlugin(value)` → definePlugin. */
const spanNames = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => /^[A-Za-z_$][\w$]*/.exec(m[1])?.[0]).filter((n): n is string => Boolean(n));

const referenced = [...new Set(section('SDK reference').filter((l) => l.startsWith('#### ')).flatMap(spanNames))].sort();
// The first column of the summary table in "The SDK (`sdk` argument = `core/sdk`)".
const summarised = section('The SDK (`sdk` argument = `core/sdk`)')
  .filter((l) => l.startsWith('| `'))
  .flatMap((l) => spanNames(l.split('|')[1]));

describe('docs/plugins.md against core/sdk', () => {
  const exported = sdkExports();

  it('the compiler lists the exports of every SDK file, types and values', () => {
    expect(exported).toEqual(expect.arrayContaining(['definePlugin', 'CodecPlugin', 'SourceFragment', 'FIRST_DYNAMIC_PT', 'PropValue', 'resolvedFilePath']));
  });

  it('every export has a heading in "SDK reference"', () => {
    expect(exported.filter((name) => !referenced.includes(name)), 'exports of core/sdk not documented').toEqual([]);
  });

  it('every name the reference headings and the summary table give as an export is one', () => {
    expect(summarised.length).toBeGreaterThan(0);
    expect(referenced.filter((name) => !exported.includes(name)), 'documented but not exported by core/sdk').toEqual([]);
    expect(summarised.filter((name) => !exported.includes(name)), 'in the summary table but not exported by core/sdk').toEqual([]);
  });
});
