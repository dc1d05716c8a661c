/**
 * native/binding.gyp lists its sources by name (no glob, no generated list): every C (and C++) file under native/src,
 * native/host, native/test-addon, native/test-host-faults, native/test-x265-reopen and native/test-crash-element is
 * listed exactly once (the addon's target, or a list in its variables, which scripts/build-native.mjs reads: the
 * GStreamer layer the addon and the native engine host share, the elements, the standalone plugin's, the native
 * host's, the test addon's, the host fault shim's, the x265 re-open counter's, the segfaulting element's), and every
 * listed file exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const native = fileURLToPath(new URL('../../native', import.meta.url));
const gyp = JSON.parse(readFileSync(join(native, 'binding.gyp'), 'utf8')) as {
  variables: Record<string, string | string[]>;
  targets: Array<{ target_name: string; sources: string[] }>;
};

function cFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? cFiles(join(dir, e.name)) : /\.(c|cc)$/.test(e.name) ? [relative(native, join(dir, e.name))] : []);
}

const lists = ['gst_core_sources', 'element_sources', 'gst_plugin_sources', 'host_sources', 'test_addon_sources', 'test_host_faults_sources',
  'test_x265_reopen_sources', 'test_crash_element_sources'];
const target = gyp.targets.find((t) => t.target_name === 'encoderd')!;
const listed = [
  ...target.sources.filter((s) => !s.startsWith('<@(')),
  ...lists.flatMap((name) => gyp.variables[name] as string[]),
];

describe('native/binding.gyp', () => {
  it('names every source file, with no glob or command', () => {
    for (const s of listed) expect(s, s).toMatch(/^[\w./-]+\.cc?$/);
    expect(target.sources).toContain('<@(element_sources)');
    expect(target.sources).toContain('<@(gst_core_sources)');
  });

  it('lists every .c file under native/src, native/host and the test-only folders, once', () => {
    const onDisk = [...cFiles(join(native, 'src')), ...cFiles(join(native, 'host')), ...cFiles(join(native, 'test-addon')),
      ...cFiles(join(native, 'test-host-faults')), ...cFiles(join(native, 'test-x265-reopen')),
      ...cFiles(join(native, 'test-crash-element'))].sort();
    expect([...listed].sort()).toEqual(onDisk);
  });

  it('lists only files that exist', () => {
    for (const s of listed) expect(existsSync(join(native, s)), s).toBe(true);
  });

  it('keeps the fake camera provider out of the production addon', () => {
    expect(target.sources.concat(gyp.variables.element_sources as string[]).some((s) => /fake/.test(s))).toBe(false);
  });

  it('keeps the host fault shim and the segfaulting element out of the production addon, plugin and native host', () => {
    const production = [...target.sources, ...(gyp.variables.host_sources as string[]), ...(gyp.variables.gst_core_sources as string[]),
      ...(gyp.variables.element_sources as string[]), ...(gyp.variables.gst_plugin_sources as string[])];
    expect(production.some((s) => /fault|x265-reopen|crash/.test(s))).toBe(false);
  });
});
