/** Config flows defaults → file → environment → flags, is validated, and is frozen. */
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseCommentedJson } from '../../core/config/load';

const ROOT = join(__dirname, '../..');

describe('config', () => {
  it('the commented default file equals the embedded defaults', () => {
    const file = parseCommentedJson(readFileSync(join(ROOT, 'config/encoderd.default.jsonc'), 'utf8')) as Record<string, unknown>;
    const embedded = loadConfig([], {});
    const fromFile = loadConfig(['--config', join(ROOT, 'config/encoderd.default.jsonc')], {});
    expect(fromFile).toEqual(embedded);
    expect(Object.keys(file).sort()).toEqual(Object.keys(embedded).sort());
    expect(embedded.port).toBe(3539);
    expect(Object.isFrozen(embedded)).toBe(true);
  });

  it('environment overrides the file and flags override the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ port: 1000, logLevel: 'warn' }));
    const c = loadConfig(['--config', join(dir, 'c.json'), '--port', '3000'], { ENCODERD_PORT: '2000', ENCODERD_LOG_LEVEL: 'debug', ENCODERD_DATA_DIR: dir });
    expect(c.port).toBe(3000);
    expect(c.logLevel).toBe('debug');
    expect(c.dataDir).toBe(dir);
  });

  it('refuses bad values and unknown flags', () => {
    expect(() => loadConfig(['--port', 'abc'], {})).toThrow(ConfigError);
    expect(() => loadConfig(['--nope', '1'], {})).toThrow(/unknown flag --nope/);
    expect(() => loadConfig([], { ENCODERD_LOG_LEVEL: 'loud' })).toThrow(/logLevel must be one of/);
  });

  it('takes the restart backoff and the host start timeout from the config, and refuses a ceiling below the base', () => {
    const c = loadConfig([], {});
    expect([c.restartBackoffBaseMs, c.restartBackoffMaxMs, c.hostStartTimeoutMs]).toEqual([500, 30000, 15000]);
    const set = loadConfig(['--restart-backoff-base-ms', '100', '--host-start-timeout-ms', '2000'], { ENCODERD_RESTART_BACKOFF_MAX_MS: '800' });
    expect([set.restartBackoffBaseMs, set.restartBackoffMaxMs, set.hostStartTimeoutMs]).toEqual([100, 800, 2000]);
    expect(() => loadConfig(['--restart-backoff-base-ms', '5000', '--restart-backoff-max-ms', '1000'], {})).toThrow(/restartBackoffMaxMs \(1000\) must be at least restartBackoffBaseMs/);
    expect(() => loadConfig(['--host-start-timeout-ms', '10'], {})).toThrow(/hostStartTimeoutMs must be between 500 and 120000/);
  });

  it('keeps a spare engine host unless told not to, as true or false only', () => {
    expect(loadConfig([], {}).spareEngineHost).toBe(true);
    expect(loadConfig([], { ENCODERD_SPARE_ENGINE_HOST: 'false' }).spareEngineHost).toBe(false);
    expect(loadConfig(['--spare-engine-host', 'true'], { ENCODERD_SPARE_ENGINE_HOST: 'false' }).spareEngineHost).toBe(true);
    expect(() => loadConfig(['--spare-engine-host', 'no'], {})).toThrow(/spareEngineHost must be a boolean/);
  });
});
