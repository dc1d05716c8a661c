/**
 * Vendor plugins from --plugins-dir: each sub-folder is one plugin, plain JavaScript, loaded with require (its
 * package.json `main`, else index.js). The module exports a factory `(sdk) => sdk.definePlugin({...})` (as
 * module.exports, `plugin` or `default`): the loader hands it the SDK, so vendor code never resolves a path into
 * the core and works wherever the service is installed. Misuse fails at startup, naming the folder and plugin.
 *
 * Every hook of a vendor plugin is wrapped so an exception it throws names the plugin and the hook.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as sdk from '../sdk';
import type { Plugin } from '../sdk';

export type Sdk = typeof sdk;

export interface LoadedPlugin {
  plugin: Plugin;
  /** The folder it came from. */
  dir: string;
}

export class PluginLoadError extends Error {}

const HOOKS: Record<Plugin['kind'], string[]> = {
  source: ['accepts', 'validate', 'claims', 'fragment', 'secrets', 'present', 'elementClaims'],
  codec: ['validate', 'encoder', 'liveChange'],
  output: ['accepts', 'validate', 'claims', 'fragment', 'secrets', 'check', 'carriesKlv', 'elementClaims'],
};

function entryOf(folder: string): string {
  const pkgPath = join(folder, 'package.json');
  let main = 'index.js';
  if (existsSync(pkgPath)) {
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { main?: unknown };
    if (pkg.main !== undefined) {
      if (typeof pkg.main !== 'string' || !pkg.main) throw new Error('package.json "main" must be a file name');
      main = pkg.main;
    }
  }
  const entry = resolve(folder, main);
  if (!entry.startsWith(`${resolve(folder)}/`)) throw new Error('package.json "main" must stay inside the plugin folder');
  if (!existsSync(entry)) throw new Error(`${main} not found`);
  return entry;
}

function wrap<F>(fn: F, plugin: string, hook: string): F {
  if (typeof fn !== 'function') throw new Error(`plugin "${plugin}": ${hook} must be a function`);
  return function wrapped(this: unknown, ...args: unknown[]) {
    try {
      return (fn as (...a: unknown[]) => unknown).apply(this, args);
    } catch (err) {
      throw new Error(`plugin "${plugin}" hook ${hook}: ${(err as Error)?.message ?? String(err)}`);
    }
  } as F;
}

/** A copy of a vendor plugin whose hooks name it when they throw; checked again with definePlugin. */
export function guarded(plugin: Plugin): Plugin {
  const copy: Record<string, unknown> = { ...plugin };
  const name = plugin.name;
  for (const hook of HOOKS[plugin.kind]) {
    if (copy[hook] !== undefined) copy[hook] = wrap(copy[hook], name, hook);
  }
  if (plugin.kind === 'output' && plugin.serves) copy.serves = { ...plugin.serves, contentType: wrap(plugin.serves.contentType, name, 'serves.contentType') };
  if (plugin.kind === 'codec') {
    copy.rtp = {
      ...plugin.rtp,
      payloader: wrap(plugin.rtp?.payloader, name, 'rtp.payloader'),
      depayloader: wrap(plugin.rtp?.depayloader, name, 'rtp.depayloader'),
      ...(plugin.rtp?.fmtp ? { fmtp: wrap(plugin.rtp.fmtp, name, 'rtp.fmtp') } : {}),
    };
    if (plugin.macro) copy.macro = { ...plugin.macro, expand: wrap(plugin.macro.expand, name, 'macro.expand') };
  }
  return sdk.definePlugin(copy as unknown as Plugin);
}

/** Loads one plugin folder. Throws PluginLoadError naming the folder (and the plugin, when it got that far). */
export function loadPluginFolder(folder: string, api: Sdk = sdk): Plugin {
  return load(`vendor plugin folder ${folder}`, () => entryOf(folder), api);
}

/**
 * Loads one plugin module file, as loadPluginFolder loads a folder's entry (encoderd-plugin-check takes either).
 * Throws PluginLoadError naming the file.
 */
export function loadPluginModule(file: string, api: Sdk = sdk): Plugin {
  return load(`vendor plugin module ${file}`, () => {
    if (!existsSync(file)) throw new Error('not found');
    return resolve(file);
  }, api);
}

function load(label: string, entry: () => string, api: Sdk): Plugin {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(entry()) as Record<string, unknown> | ((s: Sdk) => unknown);
    const exported = typeof mod === 'function' ? mod : (mod.plugin ?? mod.default ?? mod);
    const value = typeof exported === 'function' ? (exported as (s: Sdk) => unknown)(api) : exported;
    if (!value || typeof value !== 'object' || !('kind' in value)) {
      throw new Error('the module must export a factory (sdk) => sdk.definePlugin({...})');
    }
    return guarded(api.definePlugin(value as Plugin));
  } catch (err) {
    throw new PluginLoadError(`${label}: ${(err as Error).message}`);
  }
}

/** Every sub-folder of dir (sorted, so the order is stable), skipping dot-folders and node_modules. */
export function loadVendorPlugins(dir: string, api: Sdk = sdk): LoadedPlugin[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new PluginLoadError(`--plugins-dir ${dir}: ${(err as Error).message}`);
  }
  return entries
    .filter((d) => d.isDirectory() && !d.name.startsWith('.') && d.name !== 'node_modules')
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const folder = join(dir, name);
      return { plugin: loadPluginFolder(folder, api), dir: folder };
    });
}
