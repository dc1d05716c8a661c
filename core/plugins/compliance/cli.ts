/**
 * encoderd-plugin-check: the compliance checks (./checks.ts) run against vendor plugins outside this repository,
 * loaded exactly as --plugins-dir loads them, registered beside the built-in plugins (so an output is tried with the
 * service's video codecs, and a name or codec already taken fails as at startup). Prints each check with pass or
 * FAIL; exits 0 when every check passes, 1 when one fails, 2 on a usage error. docs/plugins.md, "Checking a plugin".
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtinPlugins } from '../../../plugins';
import { loadNative } from '../../engine/native';
import type { Plugin } from '../../sdk';
import { loadPluginFolder, loadPluginModule } from '../loader';
import { PluginRegistry } from '../registry';
import { pluginChecks, type ComplianceCheck } from './checks';

const USAGE = `Usage: encoderd-plugin-check PATH...

Runs encoderd's plugin compliance checks against vendor plugins. Each PATH is
  a plugin folder         (its package.json "main", else index.js), as in --plugins-dir;
  a plugin module file    (.js, CommonJS, exporting the factory (sdk) => sdk.definePlugin({...}));
  a folder of plugin folders, as given to --plugins-dir.
Prints each check with pass or FAIL. Exit status: 0 all passed, 1 a check failed, 2 usage error.
`;

interface Candidate {
  /** What the output calls it until the plugin has a name: the folder or file. */
  path: string;
  load(): Plugin;
}

/** A folder is one plugin when it has an entry the loader would take; otherwise each of its sub-folders is one. */
function candidates(arg: string): Candidate[] {
  const path = resolve(arg);
  if (!existsSync(path)) throw new UsageError(`${arg}: no such file or folder`);
  if (statSync(path).isFile()) {
    if (/\.[cm]?tsx?$/.test(path)) throw new UsageError(`${arg}: encoderd loads vendor plugins as plain CommonJS JavaScript; compile it and check the .js`);
    return [{ path, load: () => loadPluginModule(path) }];
  }
  if (existsSync(join(path, 'package.json')) || existsSync(join(path, 'index.js'))) return [{ path, load: () => loadPluginFolder(path) }];
  const folders = readdirSync(path, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
    .map((d) => join(path, d.name))
    .sort();
  if (folders.length === 0) throw new UsageError(`${arg}: neither a plugin folder (package.json or index.js) nor a folder of plugin folders`);
  return folders.map((folder) => ({ path: folder, load: () => loadPluginFolder(folder) }));
}

class UsageError extends Error {}

async function runCheck(check: ComplianceCheck, out: (line: string) => void): Promise<boolean> {
  try {
    await check.run();
    out(`  pass  ${check.name}`);
    return true;
  } catch (err) {
    out(`  FAIL  ${check.name}`);
    const message = err instanceof Error ? err.message : String(err);
    for (const line of message.split('\n')) out(`        ${line}`);
    return false;
  }
}

/** Runs the checks for the plugins at args; resolves to the exit status. */
export async function main(args: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(USAGE);
    return 0;
  }
  let found: Candidate[];
  try {
    const unknown = args.find((a) => a.startsWith('-'));
    if (unknown) throw new UsageError(`unknown option ${unknown}`);
    if (args.length === 0) throw new UsageError('no plugin given');
    found = args.flatMap(candidates);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    out(`encoderd-plugin-check: ${err.message}\n\n${USAGE}`);
    return 2;
  }

  const registry = new PluginRegistry();
  for (const p of builtinPlugins) registry.register(p, 'builtin');
  const native = loadNative();

  let passed = 0;
  let failed = 0;
  const run = async (check: ComplianceCheck, emit: (line: string) => void) => {
    const ok = await runCheck(check, emit);
    if (ok) passed++;
    else failed++;
    return ok;
  };
  // Every plugin is loaded and registered before any is checked: an output is tried with every video codec,
  // vendor ones too.
  const loaded: Array<{ path: string; plugin?: Plugin; lines: string[] }> = [];
  for (const c of found) {
    const entry: (typeof loaded)[number] = { path: c.path, lines: [] };
    loaded.push(entry);
    const load: ComplianceCheck = { name: 'loads as --plugins-dir loads it', run: () => { entry.plugin = c.load(); } };
    const register: ComplianceCheck = { name: 'registers beside the built-in plugins', run: () => registry.register(entry.plugin!, 'vendor') };
    const keep = (l: string) => entry.lines.push(l);
    if (!(await run(load, keep)) || !(await run(register, keep))) entry.plugin = undefined;
  }
  for (const { path, plugin, lines } of loaded) {
    out(plugin ? `${plugin.kind} plugin ${plugin.name} ${plugin.version} (${path})` : path);
    for (const l of lines) out(l);
    if (!plugin) continue;
    let checks: ComplianceCheck[];
    try {
      checks = pluginChecks(plugin, { native, registry });
    } catch (err) {
      checks = [{ name: 'declares what the checks need (examples: arrays of URIs)', run: () => { throw err; } }];
    }
    for (const check of checks) await run(check, out);
  }
  out(`${passed + failed} checks: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}
