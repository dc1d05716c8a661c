/**
 * The plugin compliance suite: every plugin the service would load (plugins/index.ts builtinPlugins, whatever it
 * lists when this runs, and every example vendor plugin under examples/plugins) is run through the compliance
 * checks (core/plugins/compliance/checks.ts), one test per check. A vendor runs the same checks with
 * `encoderd-plugin-check` (test/plugins/plugin-check.test.ts).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { loadNative } from '../../core/engine/native';
import { pluginChecks } from '../../core/plugins/compliance/checks';
import { checkNames, unquotedValues } from '../../core/plugins/compliance/gst';
import { loadVendorPlugins } from '../../core/plugins/loader';
import { PluginRegistry } from '../../core/plugins/registry';
import type { Plugin } from '../../core/sdk';
import { ROOT } from '../helpers/service';

const vendor = loadVendorPlugins(join(ROOT, 'examples/plugins')).map((l) => l.plugin);
const all: Array<[string, Plugin]> = [...builtinPlugins.map((p): [string, Plugin] => [`builtin ${p.kind} ${p.name}`, p]),
  ...vendor.map((p): [string, Plugin] => [`vendor ${p.kind} ${p.name}`, p])];
const registry = new PluginRegistry();
for (const p of builtinPlugins) registry.register(p, 'builtin');
for (const p of vendor) registry.register(p, 'vendor');

const native = loadNative();

describe.each(all)('%s', (_label, plugin) => {
  for (const check of pluginChecks(plugin, { native, registry })) it(check.name, () => check.run());
});

describe('the suite itself', () => {
  it('sees every built-in plugin and the example vendor plugin', () => {
    expect(all.length).toBe(builtinPlugins.length + vendor.length);
    expect(vendor.map((p) => p.name)).toContain('vp8');
  });

  it('its name check catches an injected element name, and not a quoted one', () => {
    expect(() => checkNames(native, 'videotestsrc ! filesink location=/tmp/a name=evil', [])).toThrow(/element evil \(filesink\)/);
    expect(() => checkNames(native, 'videotestsrc ! filesink location="/tmp/a name=evil"', [])).not.toThrow();
  });

  it('its quoting check catches an unquoted string value', () => {
    expect(unquotedValues('filesink location=/tmp/a b')).toEqual(['location=/tmp/a']);
    expect(unquotedValues('filesink location="/tmp/a b" sync=false pt=96 name="x"')).toEqual([]);
  });
});
