/**
 * Secrets inside URIs (SourcePlugin/OutputPlugin.secrets), the generic core: masked in views, put back from the masked
 * form a client was shown, refused when *** matches nothing, sealed at rest, masked in logs. Driven by two fake plugins
 * beside the built-ins, so nothing here depends on one protocol; the RTMP plugin's own rule is checked at the end.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import rtmp from '../../plugins/outputs/rtmp';
import { ApiError } from '../../core/errors/catalogue';
import { createLogger } from '../../core/log/logger';
import { newEntry, viewOf } from '../../core/pipeline/entry';
import type { PipelineDefinition } from '../../core/pipeline/model';
import { PluginRegistry } from '../../core/plugins/registry';
import { definePlugin, type OutputPlugin, type SourcePlugin } from '../../core/sdk';
import { maskSecrets, releaseSecrets } from '../../core/secrets/known-secrets';
import { SecretBox } from '../../core/secrets/secret-box';
import { openCredentials, sealCredentials } from '../../core/secrets/sealed-credentials';
import { hasUriSecrets, maskUri, UriSecrets } from '../../core/secrets/uri-secrets';

/** `vault://host/path?key=SECRET&x=1`: the key parameter is the secret. */
const keyOf = (uri: string) => /[?&]key=([^&]+)/.exec(uri)?.[1];
const vaultOut = definePlugin<OutputPlugin>({
  kind: 'output', name: 'vault-out', version: '1.0.0', supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('vault://'),
  secrets: (uri) => (keyOf(uri) ? [keyOf(uri)!] : []),
  validate: () => [], claims: () => [], fragment: () => ({ shared: 'fakesink', streams: ['queue'] }),
});
const vaultIn = definePlugin<SourcePlugin>({
  kind: 'source', name: 'vault-in', version: '1.0.0', producesRawOnly: false, mayCarryAudio: false,
  accepts: (uri) => uri.startsWith('vaultsrc://'),
  secrets: (uri) => (keyOf(uri) ? [keyOf(uri)!] : []),
  validate: () => [], claims: () => [], fragment: () => ({ description: 'videotestsrc', kind: 'raw' }),
});
const broken = definePlugin<OutputPlugin>({
  kind: 'output', name: 'broken-out', version: '1.0.0', supportsOnDemand: false,
  accepts: (uri) => uri.startsWith('broken://'),
  secrets: () => { throw new Error('cannot tell'); },
  validate: () => [], claims: () => [], fragment: () => ({ shared: 'fakesink', streams: ['queue'] }),
});

const registry = new PluginRegistry();
for (const p of [...builtinPlugins, vaultOut, vaultIn, broken]) registry.register(p);
const secrets = new UriSecrets(registry);

const simple = (output: string, source = 'test://ball'): PipelineDefinition => ({
  id: 'p1', mode: 'simple', on_demand: false, source: { uri: source },
  encoding: { codec: 'h264', bitrate: 500, width: 320, height: 240, fps: 30, quality: 5 }, output: { uri: output },
});

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

afterEach(() => {
  releaseSecrets('p1');
  releaseSecrets('p2');
});

describe('masking', () => {
  it('maskUri replaces every occurrence, a secret inside a longer one with it', () => {
    expect(maskUri('vault://h/a?key=abc&again=abc', ['abc'])).toBe('vault://h/a?key=***&again=***');
    expect(maskUri('x://h/abcdef/abc', ['abc', 'abcdef'])).toBe('x://h/***/***');
    expect(maskUri('x://h/plain', [])).toBe('x://h/plain');
  });

  it('a URI object without secrets is shown as itself; one with secrets is copied once, its other fields kept', () => {
    const plain = { uri: 'udp://127.0.0.1:5000', network_interface: 'lo' };
    expect(secrets.spec(plain, 'output')).toBe(plain);
    const keyed = { uri: 'vault://h/a?key=K3y-Value&x=1', network_interface: 'lo' };
    const shown = secrets.spec(keyed, 'output');
    expect(shown).toEqual({ uri: 'vault://h/a?key=***&x=1', network_interface: 'lo' });
    expect(secrets.spec(keyed, 'output')).toBe(shown);
    expect(keyed.uri).toBe('vault://h/a?key=K3y-Value&x=1');
  });

  it('multiview inputs: the same array when nothing is secret, else only the inputs with secrets are new', () => {
    const plain = [{ source: { uri: 'test://ball' } }, { source: { uri: 'test://smpte' } }];
    expect(secrets.inputs(plain)).toBe(plain);
    const mixed = [{ source: { uri: 'test://ball' }, label: 'a' }, { source: { uri: 'vaultsrc://h/s?key=in-secret' }, label: 'b' }];
    const shown = secrets.inputs(mixed);
    expect(shown).not.toBe(mixed);
    expect(shown[0]).toBe(mixed[0]);
    expect(shown[1]).toEqual({ source: { uri: 'vaultsrc://h/s?key=***' }, label: 'b' });
  });

  it('viewOf shows source and output masked and leaves the definition whole', () => {
    const def = simple('vault://h/out?key=out-secret', 'vaultsrc://cam/x?key=src-secret');
    const view = viewOf(newEntry(def, null), secrets);
    expect(view.output!.uri).toBe('vault://h/out?key=***');
    expect(view.source!.uri).toBe('vaultsrc://cam/x?key=***');
    expect(view.encoding).toBe(def.encoding);
    expect(JSON.stringify(view)).not.toMatch(/out-secret|src-secret/);
    expect(def.output!.uri).toBe('vault://h/out?key=out-secret');
    const plain = simple('/tmp/x.ts');
    const plainView = viewOf(newEntry(plain, null), secrets);
    expect(plainView.output).toBe(plain.output);
    expect(plainView.source).toBe(plain.source);
  });

  it('a plugin that throws from secrets() has its whole URI masked', () => {
    expect(secrets.mask('broken://h/anything', 'output')).toBe('***');
  });
});

describe('round trip', () => {
  const current = simple('vault://h/out?key=out-secret', 'vaultsrc://cam/x?key=src-secret');

  it('a masked URI equal to the current one masked keeps the current secret', () => {
    const body = { ...current, source: { uri: 'vaultsrc://cam/x?key=***' }, output: { uri: 'vault://h/out?key=***' } };
    const back = secrets.unmask(body, current) as PipelineDefinition;
    expect(back.output!.uri).toBe('vault://h/out?key=out-secret');
    expect(back.source!.uri).toBe('vaultsrc://cam/x?key=src-secret');
    expect(body.output.uri).toBe('vault://h/out?key=***');
  });

  it('a body with no *** is returned as it is; a new secret replaces the old one', () => {
    const body = { ...current, output: { uri: 'vault://h/out?key=new-secret' } };
    expect(secrets.unmask(body, current)).toBe(body);
    expect(secrets.unmask(body)).toBe(body);
  });

  it('*** that matches nothing current is a VALIDATION_ERROR naming the field', () => {
    const moved = { ...current, output: { uri: 'vault://elsewhere/out?key=***' } };
    const err = refusal(() => secrets.unmask(moved, current));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe('output.uri contains *** where a secret was, but it does not match the current value');
    const created = refusal(() => secrets.unmask({ ...current, output: { uri: 'vault://h/out?key=***' } }));
    expect(created.message).toMatch(/^output\.uri contains \*\*\* where a secret was, but there is no current value/);
  });

  it('*** that is not where a secret is stays as it is (a file name)', () => {
    const body = { ...current, output: { uri: '/tmp/***.ts' } };
    expect(secrets.unmask(body, current)).toBe(body);
  });

  it('multiview inputs come back by position, even when two differ only in their secrets', () => {
    const mv: PipelineDefinition = {
      id: 'p2', mode: 'multiview', on_demand: false, output: { uri: '/tmp/mv.mkv' },
      inputs: [{ source: { uri: 'vaultsrc://cam/x?key=first' } }, { source: { uri: 'vaultsrc://cam/x?key=second' } }],
    };
    const shown = secrets.inputs(mv.inputs!);
    const back = secrets.unmask({ ...mv, inputs: shown }, mv) as PipelineDefinition;
    expect(back.inputs!.map((i) => i.source.uri)).toEqual(['vaultsrc://cam/x?key=first', 'vaultsrc://cam/x?key=second']);
    const err = refusal(() => secrets.unmask({ ...mv, inputs: [shown[0], { source: { uri: 'vaultsrc://other/x?key=***' } }] }, mv));
    expect(err.message).toBe('inputs[1].source.uri contains *** where a secret was, but it does not match the current value');
  });
});

describe('at rest', () => {
  it('the sealing predicate seals whole URIs with secrets, nothing else; they open again', () => {
    const box = SecretBox.fromKey(Buffer.alloc(32, 9));
    const doc = { definition: simple('vault://h/out?key=rest-secret'), description: 'vault://h but no key', stored_at: 'now' };
    const sealed = sealCredentials(doc, box, 'pipelines/p1', hasUriSecrets(registry));
    const text = JSON.stringify(sealed);
    expect(text).not.toContain('rest-secret');
    expect(text).toContain('vault://h but no key');
    expect(text).toContain('test://ball');
    expect(openCredentials(sealed, box, 'pipelines/p1')).toEqual(doc);
  });
});

describe('logs', () => {
  function memoryLogger() {
    const lines: string[] = [];
    const dest = new Writable({ write(chunk, _enc, cb) { lines.push(String(chunk)); cb(); } });
    return { log: createLogger('info', dest), text: () => lines.join('') };
  }

  it('a held secret is masked wherever it appears, in messages, fields and errors, until released', () => {
    secrets.hold(simple('vault://h/out?key=held-Secret-7'));
    const { log, text } = memoryLogger();
    log.warn('element said: could not open "held-Secret-7" at its location');
    log.warn({ err: new Error('rtmp2sink: held-Secret-7 refused'), detail: { deep: 'x held-Secret-7 y' } }, 'pipeline error');
    expect(text()).not.toContain('held-Secret-7');
    expect(text()).toContain('could not open \\"***\\"');
    expect(maskSecrets('held-Secret-7')).toBe('***');
    releaseSecrets('p1');
    expect(maskSecrets('held-Secret-7')).toBe('held-Secret-7');
  });

  it('a URI a plugin accepts is masked by its secrets even when no pipeline holds it', () => {
    const { log, text } = memoryLogger();
    log.info({ uri: 'vault://h/out?key=never-held&x=1' }, 'publishing to vault://h/out?key=never-held2 now');
    expect(text()).not.toMatch(/never-held/);
    expect(text()).toContain('vault://h/out?key=***&x=1');
  });

  it('a new definition of the same pipeline replaces what it held', () => {
    secrets.hold(simple('vault://h/out?key=old-secret'));
    secrets.hold(simple('vault://h/out?key=new-secret'));
    expect(maskSecrets('old-secret new-secret')).toBe('old-secret ***');
  });
});

describe('the RTMP plugin\'s rule: the stream key is everything after the last /', () => {
  it.each([
    ['rtmp://h/live/key', ['key']],
    ['rtmps://h:443/app/sub/key?token=1', ['key?token=1']],
    ['rtmp://h/key-in-the-wrong-place', ['key-in-the-wrong-place']],
    ['rtmp://h/live/', []],
    ['rtmp://h', []],
  ])('%s', (uri, expected) => {
    expect(rtmp.secrets!(uri)).toEqual(expected);
  });
});
