/**
 * encoderd-plugin-check (bin/, core/plugins/compliance/cli.ts) run as a vendor runs it: a child process started
 * from a temporary folder outside the repository, against a copy of the example plugin and against plugins broken
 * on purpose. It runs the compiled output: `npm test` builds it first (`npm run build` otherwise).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/service';

const BIN = join(ROOT, 'bin/encoderd-plugin-check');
let work: string;

function check(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function plugin(folder: string, source: string): void {
  mkdirSync(join(work, folder));
  writeFileSync(join(work, folder, 'index.js'), `'use strict';\nmodule.exports = (sdk) => sdk.definePlugin(${source});\n`);
}

// An output that writes its path into filesink's location unquoted: `/tmp/a b.mkv` becomes location=/tmp/a and a
// stray `b.mkv`, and a crafted path could add properties or elements.
const UNQUOTED_OUTPUT = `{
  kind: 'output', name: 'rawfile', version: '0.1.0', description: 'a Matroska file, its path unquoted',
  examples: { valid: ['rawfile:///tmp/a b.mkv'], invalid: ['rawfile://relative.mkv'] },
  accepts: (uri) => uri.startsWith('rawfile://'),
  validate: (o) => (o.uri.startsWith('rawfile:///') ? [] : ['output.uri must be an absolute path']),
  claims: (o) => [{ resource: 'file', key: o.uri.slice(10), label: 'output file ' + o.uri.slice(10) }],
  supportsOnDemand: false,
  fragment: (o, streams, ctx) => {
    const mux = ctx.name('mux');
    return {
      shared: 'matroskamux name=' + mux + ' ! filesink location=' + o.uri.slice(10),
      streams: streams.map((s) => 'queue ! ' + s.codec.parser + ' ! ' + mux + '.'),
    };
  },
}`;

beforeAll(() => {
  expect(existsSync(join(ROOT, 'dist/core/plugins/compliance/cli.js')), 'dist/ is missing: npm run build').toBe(true);
  work = mkdtempSync(join(tmpdir(), 'encoderd-plugin-check-'));
  cpSync(join(ROOT, 'examples/plugins/vp8'), join(work, 'vp8'), { recursive: true });
  plugin('rawfile', UNQUOTED_OUTPUT);
  // definePlugin refuses a codec without an encoder: the plugin does not load.
  plugin('noencoder', `{
    kind: 'codec', name: 'noenc', version: '0.1.0', description: 'no encoder', codec: 'noenc', media: 'video',
    licenceFeature: 'noenc', caps: 'video/x-noenc', parser: 'identity', containers: [], liveParams: [],
    rtp: { encodingName: 'X', clockRate: 90000, payloader: () => 'identity', depayloader: () => 'identity' },
    liveChange: () => [],
  }`);
  writeFileSync(join(work, 'plugin.ts'), 'export default {};\n');
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('encoderd-plugin-check, outside the repository', () => {
  it('passes the example VP8 plugin (a copy in a temporary folder), listing every check', async () => {
    const r = await check('./vp8');
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`codec plugin vp8 1.0.0 (${join(work, 'vp8')})`);
    for (const name of [
      'loads as --plugins-dir loads it',
      'registers beside the built-in plugins',
      'is a definePlugin value with a name and a version',
      'declares its codec facts',
      'encoder fragments parse at every quality, carry the named element, quote every string; the default one encodes',
      'live parameters are known encoding fields and map onto properties the running encoder has',
      'the RTP mapping parses: payloader after the encoder, depayloader after a payloader',
      'macro <svc:vp8 />: declared values are consistent and every expansion parses; the default encodes',
    ]) expect(r.stdout).toContain(`  pass  ${name}\n`);
    expect(r.stdout).toMatch(/^8 checks: 8 passed, 0 failed$/m);
    expect(r.stdout).not.toContain('FAIL');
  });

  it('fails an output whose fragment carries the URI unquoted, naming the check and the value', async () => {
    const r = await check('rawfile');
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('  FAIL  valid "rawfile:///tmp/a b.mkv": accepted, validates with some video codec, claims, parses\n');
    expect(r.stdout).toContain('unquoted value location=/tmp/a');
    expect(r.stdout).toContain('  pass  invalid "rawfile://relative.mkv": accepted but refused, naming output.uri\n');
    expect(r.stdout).toMatch(/^\d+ checks: \d+ passed, 1 failed$/m);
  });

  it('fails a plugin that does not load (a codec without an encoder), with the loader\'s message', async () => {
    const r = await check(join(work, 'noencoder', 'index.js'));
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain('  FAIL  loads as --plugins-dir loads it\n');
    expect(r.stdout).toContain('plugin "noenc": codec plugins must provide "encoder"');
    expect(r.stdout).toMatch(/^1 checks: 0 passed, 1 failed$/m);
  });

  it('takes a folder of plugin folders, as --plugins-dir: checks each, fails when one fails', async () => {
    const r = await check('.');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('codec plugin vp8 1.0.0');
    expect(r.stdout).toContain('output plugin rawfile 0.1.0');
    expect(r.stdout).toContain(join(work, 'noencoder'));
  });

  it('answers usage errors with 2: nothing given, a missing path, a TypeScript file', async () => {
    expect((await check()).code).toBe(2);
    const missing = await check('./nope');
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('./nope: no such file or folder');
    const ts = await check('plugin.ts');
    expect(ts.code).toBe(2);
    expect(ts.stdout).toContain('plain CommonJS JavaScript');
    const help = await check('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: encoderd-plugin-check PATH...');
  });
});
