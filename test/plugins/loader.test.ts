/** Vendor plugin loading (core/plugins/loader.ts): the forms a plugin folder may take, and misuse failing at startup. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadVendorPlugins, PluginLoadError } from '../../core/plugins/loader';
import { composeContext } from '../../core/compose';
import { run, startService, ROOT } from '../helpers/service';

const CODEC = (name: string, extra = '') => `sdk.definePlugin({
  kind: 'codec', name: '${name}', version: '0.1.0', codec: '${name}', media: 'video', licenceFeature: '${name}',
  caps: 'video/x-${name}', parser: 'identity', containers: ['matroska'], liveParams: [],
  rtp: { encodingName: 'X', clockRate: 90000, payloader: () => 'identity', depayloader: () => 'identity' },
  encoder: (e, ctx) => ({ description: sdk.element('identity', { name: ctx.name('venc') }), element: 'venc' }),
  liveChange: () => [], ${extra}
})`;

function pluginsDir(folders: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-plugins-'));
  for (const [folder, files] of Object.entries(folders)) {
    mkdirSync(join(dir, folder));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, folder, file), text);
  }
  return dir;
}

describe('loading', () => {
  it('takes module.exports = factory, exports.plugin and exports.default, and package.json main; in folder order', () => {
    const dir = pluginsDir({
      b: { 'index.js': `module.exports = (sdk) => ${CODEC('bcodec')};` },
      a: { 'package.json': '{"main": "lib/main.js"}', 'index.js': 'throw new Error("not me")' },
      c: { 'index.js': `exports.plugin = (sdk) => ${CODEC('ccodec')};` },
      d: { 'index.js': `exports.default = (sdk) => ${CODEC('dcodec')};` },
      '.hidden': { 'index.js': 'throw new Error("hidden folders are skipped")' },
    });
    mkdirSync(join(dir, 'a', 'lib'));
    writeFileSync(join(dir, 'a', 'lib', 'main.js'), `module.exports = (sdk) => ${CODEC('acodec')};`);
    writeFileSync(join(dir, 'README.md'), 'files beside the folders are ignored');
    const loaded = loadVendorPlugins(dir);
    expect(loaded.map((l) => l.plugin.name)).toEqual(['acodec', 'bcodec', 'ccodec', 'dcodec']);
    expect(loaded.every((l) => Object.isFrozen(l.plugin))).toBe(true);
  });

  it('wraps hooks so a throwing hook names the plugin and the hook', () => {
    const dir = pluginsDir({ x: { 'index.js': `module.exports = (sdk) => ${CODEC('boom', "validate: () => { throw new Error('kaput'); },")};` } });
    const [{ plugin }] = loadVendorPlugins(dir);
    expect(plugin.kind).toBe('codec');
    if (plugin.kind !== 'codec') return;
    expect(() => plugin.validate!({ codec: 'boom', bitrate: 1, width: 1, height: 1, fps: 1, quality: 1 })).toThrow('plugin "boom" hook validate: kaput');
    expect(plugin.encoder({ codec: 'boom', bitrate: 1, width: 1, height: 1, fps: 1, quality: 1 }, composeContext('p', { rtspLatencyMs: 0 })).element).toBe('venc');
  });
});

describe('misuse fails with the folder and the plugin named', () => {
  it.each([
    ['no entry file', { 'README.md': 'x' }, /vendor plugin folder .*\/bad: index\.js not found/],
    ['main outside the folder', { 'package.json': '{"main": "../../etc/passwd"}' }, /bad: package.json "main" must stay inside the plugin folder/],
    ['exports a non-plugin', { 'index.js': 'module.exports = { hello: 1 };' }, /bad: the module must export a factory \(sdk\) => sdk.definePlugin/],
    ['factory throws', { 'index.js': 'module.exports = () => { throw new Error("no licence server"); };' }, /bad: no licence server/],
    ['missing encoder', { 'index.js': `module.exports = (sdk) => (${CODEC('halfcodec')}, sdk.definePlugin({ kind: 'codec', name: 'halfcodec', version: '1.0.0' }));` },
      /bad: plugin "halfcodec": codec plugins must provide "codec"/],
    ['bad name', { 'index.js': "module.exports = (sdk) => ({ kind: 'codec', name: 'Bad Name', version: '1' });" }, /plugin "Bad Name": name must be lower-case/],
    ['hook not a function', { 'index.js': `module.exports = (sdk) => (${CODEC('strcodec', "liveChange: 'nope',").replace('liveChange: () => [], ', '')});` }, /plugin "strcodec": liveChange must be a function/],
    ['syntax error', { 'index.js': 'module.exports = (' }, /bad: /],
  ])('%s', (_name, files, message) => {
    const dir = pluginsDir({ bad: files as Record<string, string> });
    expect(() => loadVendorPlugins(dir)).toThrow(PluginLoadError);
    expect(() => loadVendorPlugins(dir)).toThrow(message);
  });

  it('a missing --plugins-dir', () => {
    expect(() => loadVendorPlugins('/nonexistent/plugins')).toThrow(/--plugins-dir \/nonexistent\/plugins: ENOENT/);
  });

  it('the service refuses to start with a broken plugin or a duplicate codec, naming the plugin', async () => {
    const broken = pluginsDir({ bad: { 'index.js': "module.exports = (sdk) => sdk.definePlugin({ kind: 'codec', name: 'brokenvendor', version: '1.0.0' });" } });
    const r = await run(process.execPath, [join(ROOT, 'bin/encoderd'), '--port', '0', '--web-port', '0', '--data-dir', mkdtempSync(join(tmpdir(), 'encoderd-d-')), '--plugins-dir', broken]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('plugin "brokenvendor": codec plugins must provide "codec"');
    const dup = pluginsDir({ h: { 'index.js': `module.exports = (sdk) => ${CODEC('h264')};` } });
    const d = await run(process.execPath, [join(ROOT, 'bin/encoderd'), '--port', '0', '--web-port', '0', '--data-dir', mkdtempSync(join(tmpdir(), 'encoderd-d-')), '--plugins-dir', dup]);
    expect(d.code).not.toBe(0);
    expect(d.stderr).toContain('plugin "h264": a codec plugin of that name is already registered');
  });
});

it('an empty --plugins-dir loads nothing beyond the built-ins', async () => {
  const svc = await startService({ args: ['--plugins-dir', pluginsDir({})] });
  try {
    const v = await svc.api('GET', '/svc/version');
    expect(v.body.plugins.every((p: { origin: string }) => p.origin === 'builtin')).toBe(true);
  } finally {
    await svc.stop();
  }
});
