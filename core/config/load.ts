/**
 * Config flows one way: schema defaults → config file (--config / ENCODERD_CONFIG, JSON with // comments)
 * → ENCODERD_* environment → command-line flags → validated → frozen.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SchemaValidator } from '../validation/validator';
import { configSchema, OPTION_NAMES, type Config } from './schema';

const validator = new SchemaValidator<Config>(configSchema);
const NUMERIC = new Set(['port', 'webPort', 'explorerPort', 'startTimeoutMs', 'stopTimeoutMs', 'bodyLimit', 'sseKeepaliveMs', 'hostMemoryMaxMb', 'maxTotalPixelRate',
  'restartBackoffBaseMs', 'restartBackoffMaxMs', 'hostStartTimeoutMs']);

export class ConfigError extends Error {}

const BOOLEAN = new Set(['spareEngineHost']);

function coerce(key: string, text: string): unknown {
  if (BOOLEAN.has(key)) return text === 'true' ? true : text === 'false' ? false : text;
  if (NUMERIC.has(key)) return /^-?\d+$/.test(text) ? Number(text) : text;
  if (key === 'trustedProxies') return text.split(',').map((s) => s.trim()).filter(Boolean);
  return text;
}

/** Strips whole-line // comments so the shipped default file can explain itself. */
export function parseCommentedJson(text: string): unknown {
  return JSON.parse(text.split('\n').filter((l) => !l.trim().startsWith('//')).join('\n'));
}

export function parseFlags(argv: string[]): { values: Record<string, unknown>; configFile?: string; help: boolean } {
  const byFlag = new Map(Object.entries(OPTION_NAMES).map(([k, f]) => [f, k]));
  const values: Record<string, unknown> = {};
  let configFile: string | undefined;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new ConfigError(`unknown argument ${arg}`);
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new ConfigError(`--${m[1]} needs a value`);
    if (m[1] === 'config') {
      configFile = value;
      continue;
    }
    const key = byFlag.get(m[1]);
    if (!key) throw new ConfigError(`unknown flag --${m[1]}`);
    values[key] = coerce(key, value);
  }
  return { values, configFile, help };
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const flags = parseFlags(argv);
  const fileName = flags.configFile ?? env.ENCODERD_CONFIG;
  let fromFile: Record<string, unknown> = {};
  if (fileName) {
    try {
      fromFile = parseCommentedJson(readFileSync(fileName, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`cannot read config file ${fileName}: ${(err as Error).message}`);
    }
  }
  const fromEnv: Record<string, unknown> = {};
  for (const [key, flag] of Object.entries(OPTION_NAMES)) {
    const name = `ENCODERD_${flag.replace(/-/g, '_').toUpperCase()}`;
    if (env[name] !== undefined) fromEnv[key] = coerce(key, env[name] as string);
  }
  const merged = { ...fromFile, ...fromEnv, ...flags.values };
  const r = validator.validate(merged);
  if (r.errors.length) throw new ConfigError(`invalid configuration: ${r.errors.join('; ')}`);
  const config = r.value as Config;
  // The one rule between fields: a ceiling below the first wait would make the backoff shrink.
  if (config.restartBackoffMaxMs < config.restartBackoffBaseMs) {
    throw new ConfigError(`invalid configuration: restartBackoffMaxMs (${config.restartBackoffMaxMs}) must be at least restartBackoffBaseMs (${config.restartBackoffBaseMs})`);
  }
  config.dataDir = resolve(config.dataDir);
  for (const k of ['licence', 'licenceKey', 'pluginsDir', 'tlsCert', 'tlsKey'] as const) {
    if (config[k]) config[k] = resolve(config[k] as string);
  }
  return Object.freeze({ ...config, trustedProxies: Object.freeze([...config.trustedProxies]) as string[] });
}

export const HELP = `encoderd — control service of a video encoder appliance

Usage: encoderd [--flag value ...]

  --config FILE          JSON config file (// comments allowed)      ENCODERD_CONFIG
${Object.entries(OPTION_NAMES).map(([, f]) => `  --${f.padEnd(21)}ENCODERD_${f.replace(/-/g, '_').toUpperCase()}`).join('\n')}

Defaults: see config/encoderd.default.jsonc.`;
