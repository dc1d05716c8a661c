/**
 * The plugin compliance suite: every plugin the service would load (plugins/index.ts builtinPlugins, whatever it
 * lists when this runs, and every example vendor plugin under examples/plugins) is driven through the SDK contract
 * and its fragments are parsed (and the encoders run) by the real addon's GStreamer.
 *
 * Sources and outputs are driven with the sample URIs they declare in `examples` (core/sdk/plugin.ts).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinPlugins } from '../../plugins';
import { loadNative } from '../../core/engine/native';
import { composeContext } from '../../core/pipeline/compose';
import { ENCODING_DEFAULTS } from '../../core/pipeline/schema';
import { loadVendorPlugins } from '../../core/plugins/loader';
import { PluginRegistry } from '../../core/plugins/registry';
import { definePlugin, type CodecPlugin, type EncodingSpec, type OutputPlugin, type Plugin, type PipelineView, type SourcePlugin } from '../../core/sdk';
import { ROOT } from '../helpers/service';


const vendor = loadVendorPlugins(join(ROOT, 'examples/plugins')).map((l) => l.plugin);
const all: Array<[string, Plugin]> = [...builtinPlugins.map((p): [string, Plugin] => [`builtin ${p.kind} ${p.name}`, p]),
  ...vendor.map((p): [string, Plugin] => [`vendor ${p.kind} ${p.name}`, p])];
const registry = new PluginRegistry();
for (const p of builtinPlugins) registry.register(p, 'builtin');
for (const p of vendor) registry.register(p, 'vendor');

const native = loadNative();
/** A compose context that remembers every element name it handed out (see checkNames). */
const ctx = () => {
  // An output directory with a space and a quote in its path: every plugin that writes there must quote it.
  const c = composeContext('compliance', { rtspLatencyMs: 200, outputsDir: join(tmpdir(), 'encoderd compliance "outputs"') }, registry.codecs('video').map((x) => x.caps));
  const given: string[] = [];
  return Object.assign(Object.create(c), { given, name: (role: string) => { const n = c.name(role); given.push(n); return n; } }) as typeof c & { given: string[] };
};

/**
 * An injected `name=...` (a URI that escaped its quotes) would name an element: every element named from the text
 * must carry a name the context handed out (or GStreamer's own `factoryN`).
 */
function checkNames(description: string, c: { given: string[] }): void {
  const p = new native.Pipeline(description, () => undefined);
  try {
    for (const el of p.elements()) {
      if (el.factory === 'pipeline') continue;
      const auto = new RegExp(`^${el.factory.replace(/[^a-z0-9]/gi, '.')}\\d+$`);
      // Children a bin makes itself (decodebin's typefind) are named by GStreamer, not by the text.
      const fromText = description.includes(el.name);
      expect(!fromText || c.given.includes(el.name) || auto.test(el.name), `element ${el.name} (${el.factory}) in ${description}`).toBe(true);
    }
  } finally {
    p.destroy();
  }
}
const LIVE_KNOWN = ['bitrate', 'width', 'height', 'fps'];
const VIDEO_IN = 'videotestsrc num-buffers=10 ! video/x-raw,width=320,height=240,framerate=30/1';
const AUDIO_IN = 'audiotestsrc num-buffers=10';

function parses(description: string): void {
  let p;
  try {
    p = new native.Pipeline(description, () => undefined);
  } catch (err) {
    throw new Error(`GStreamer cannot parse: ${description}\n${(err as Error).message}`);
  }
  p.destroy();
}

/** Runs description to end-of-stream: the fragment does not only parse, it negotiates and encodes. */
async function runsToEos(description: string): Promise<void> {
  const errors: string[] = [];
  let eos!: () => void;
  const done = new Promise<void>((r) => { eos = r; });
  const p = new native.Pipeline(description, (m) => {
    if (m.type === 'eos') eos();
    if (m.type === 'error') {
      errors.push(m.message);
      eos();
    }
  });
  try {
    await p.setState('playing', 10000);
    await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`no EOS: ${description}`)), 15000))]);
  } finally {
    p.destroy();
  }
  expect(errors, description).toEqual([]);
}

/**
 * Every `key=value` of a description whose value is not a plain token (number, enum nick, boolean) must be double
 * quoted, i.e. have gone through the SDK's serializer.
 */
function unquotedValues(description: string): string[] {
  const tokens: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < description.length; i++) {
    const c = description[i];
    if (quoted && c === '\\') {
      cur += c + (description[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (!quoted && /\s/.test(c)) {
      if (cur) tokens.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur) tokens.push(cur);
  return tokens.filter((t) => {
    const eq = t.indexOf('=');
    if (eq < 0) return false;
    const value = t.slice(eq + 1);
    return !value.startsWith('"') && !/^[A-Za-z0-9_.+-]+$/.test(value);
  });
}

function checkQuoted(description: string): void {
  expect(unquotedValues(description), description).toEqual([]);
}

function sampleEncoding(codec: CodecPlugin, quality = ENCODING_DEFAULTS.quality): EncodingSpec {
  // Audio codecs may read `bitrate` as their own unit (codec2: the mode in bit/s): take the first value they accept.
  for (const bitrate of [500, 1000, 2400, 3200]) {
    const enc = { codec: codec.codec, ...ENCODING_DEFAULTS, width: 320, height: 240, bitrate, quality };
    if ((codec.validate?.(enc) ?? []).length === 0) return enc;
  }
  throw new Error(`codec ${codec.name} accepts none of the sample encodings`);
}

const view = (extra: Partial<PipelineView>): PipelineView => ({ id: 'compliance', mode: 'simple', on_demand: false, ...extra });

describe.each(all)('%s', (_label, plugin) => {
  it('is a definePlugin value with a name and a version', () => {
    expect(() => definePlugin(plugin)).not.toThrow();
    expect(Object.isFrozen(plugin)).toBe(true);
    expect(plugin.name).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
    expect(plugin.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof plugin.description).toBe('string');
  });

  if (plugin.kind === 'codec') codecChecks(plugin);
  else if (plugin.kind === 'source') sourceChecks(plugin);
  else outputChecks(plugin);
});

function codecChecks(codec: CodecPlugin): void {
  const input = codec.media === 'video' ? `${VIDEO_IN} ! videoconvert` : AUDIO_IN;

  it('declares its codec facts', () => {
    expect(codec.codec).toMatch(/^[a-z0-9]+$/);
    expect(['video', 'audio']).toContain(codec.media);
    expect(codec.caps).toMatch(/^(video|audio)\/[a-z0-9.+-]+$/);
    expect(typeof codec.licenceFeature).toBe('string');
    expect(codec.licenceFeature.length).toBeGreaterThan(0);
    for (const c of codec.containers) expect(['mpegts', 'matroska', 'mp4']).toContain(c);
    expect(native.hasElement(codec.parser), `parser ${codec.parser}`).toBe(true);
  });

  it('encoder fragments parse at every quality, carry the named element, quote every string; the default one encodes', async () => {
    for (let q = 1; q <= 10; q++) {
      const enc = codec.encoder(sampleEncoding(codec, q), ctx());
      checkQuoted(enc.description);
      parses(`${input} ! ${enc.description} ! fakesink name=out`);
      const p = new native.Pipeline(`${input} ! ${enc.description} ! fakesink`, () => undefined);
      expect(p.elements().map((e) => e.name), `element ${enc.element}`).toContain(enc.element);
      p.destroy();
    }
    const enc = codec.encoder(sampleEncoding(codec), ctx());
    await runsToEos(`${input} ! ${enc.description} ! ${codec.parser} ! fakesink`);
  });

  it('live parameters are known encoding fields and map onto properties the running encoder has', () => {
    for (const param of codec.liveParams) expect(LIVE_KNOWN).toContain(param);
    const enc = codec.encoder(sampleEncoding(codec), ctx());
    const p = new native.Pipeline(`${input} ! ${enc.description} ! fakesink`, () => undefined);
    try {
      for (const param of codec.liveParams) {
        const changes = codec.liveChange(param, 800, enc.element);
        expect(changes.length, `liveChange(${param})`).toBeGreaterThan(0);
        for (const c of changes) {
          expect(c.element).toBe(enc.element);
          expect(() => p.setProperty(c.element, c.property, c.value)).not.toThrow();
        }
      }
      expect(codec.liveChange('not-a-param', 1, enc.element)).toEqual([]);
    } finally {
      p.destroy();
    }
  });

  it('the RTP mapping parses: payloader after the encoder, depayloader after a payloader', () => {
    expect(codec.rtp.encodingName).toMatch(/^[A-Z0-9-]+$/);
    expect(Number.isInteger(codec.rtp.clockRate)).toBe(true);
    const enc = codec.encoder(sampleEncoding(codec), ctx());
    const pay = codec.rtp.payloader(ctx(), 'pay0', 96);
    checkQuoted(pay);
    parses(`${input} ! ${enc.description} ! ${pay} ! ${codec.rtp.depayloader(ctx())} ! fakesink`);
  });

  if (codec.macro) {
    const macro = codec.macro;
    it(`macro <svc:${macro.tag} />: declared values are consistent and every expansion parses; the default encodes`, async () => {
      expect(macro.tag).toMatch(/^[a-z0-9_-]+$/);
      const variants: Array<Record<string, number>> = [];
      const defaults = Object.fromEntries(Object.entries(macro.attributes).map(([k, a]) => [k, a.default]));
      variants.push(defaults);
      for (const [name, a] of Object.entries(macro.attributes)) {
        expect(name).toMatch(/^[a-z][a-z0-9_-]*$/);
        if (a.oneOf) {
          expect(a.oneOf).toContain(a.default);
          for (const v of a.oneOf) variants.push({ ...defaults, [name]: v });
        } else {
          expect(Number.isInteger(a.min) && Number.isInteger(a.max), `${name} needs min and max or oneOf`).toBe(true);
          expect(a.default).toBeGreaterThanOrEqual(a.min!);
          expect(a.default).toBeLessThanOrEqual(a.max!);
          variants.push({ ...defaults, [name]: a.min! }, { ...defaults, [name]: a.max! });
        }
      }
      for (const values of variants) {
        const text = macro.expand(values, ctx());
        checkQuoted(text);
        parses(`${input} ! ${text} ! fakesink`);
      }
      await runsToEos(`${input} ! ${macro.expand(defaults, ctx())} ! fakesink`);
    });
  }
}

function sourceChecks(source: SourcePlugin): void {
  it('declares examples', () => {
    expect(source.examples, `source plugin ${source.name} must declare examples { valid, invalid }`).toBeDefined();
    expect(source.examples!.valid.length).toBeGreaterThan(0);
  });
  const examples = source.examples ?? { valid: [], invalid: [] };

  it.each(examples.valid.map((u) => [u]))('valid %j: accepted, validates, claims, parses', (uri) => {
    const spec = { uri };
    expect(source.accepts(uri)).toBe(true);
    expect(source.validate(spec, view({ source: spec }))).toEqual([]);
    checkClaims(source.claims(spec), source.claims(spec));
    for (const decode of source.producesRawOnly ? [true] : [true, false]) {
      const c = ctx();
      const f = source.fragment(spec, c, { decode });
      checkQuoted(f.description);
      expect(['raw', 'encoded']).toContain(f.kind);
      parses(`${f.description} ! fakesink`);
      checkNames(`${f.description} ! fakesink`, c);
    }
  });

  it.each(examples.invalid.map((u) => [u]))('invalid %j: accepted but refused, naming source.uri', (uri) => {
    const spec = { uri };
    expect(source.accepts(uri)).toBe(true);
    const errors = source.validate(spec, view({ source: spec }));
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatch(/^source\./);
  });
}

function outputChecks(output: OutputPlugin): void {
  it('declares examples', () => {
    expect(output.examples, `output plugin ${output.name} must declare examples { valid, invalid }`).toBeDefined();
    expect(output.examples!.valid.length).toBeGreaterThan(0);
  });
  const examples = output.examples ?? { valid: [], invalid: [] };

  it.each(examples.valid.map((u) => [u]))('valid %j: accepted, validates with some video codec, claims, parses', (uri) => {
    const spec = { uri };
    expect(output.accepts(uri)).toBe(true);
    const codec = registry.codecs('video').find((c) => output.validate(spec, view({ output: spec, encoding: sampleEncoding(c) }), c).length === 0);
    expect(codec, `no video codec is accepted by ${output.name} for ${uri}`).toBeDefined();
    checkClaims(output.claims(spec), output.claims(spec));
    const c = ctx();
    const enc = codec!.encoder(sampleEncoding(codec!), c);
    const f = output.fragment(spec, [{ media: 'video', codec: codec! }], c, { onDemand: false });
    expect(f.streams).toHaveLength(1);
    const description = [f.shared, `${VIDEO_IN} ! videoconvert ! ${enc.description} ! ${f.streams[0]}`].filter(Boolean).join(' ');
    checkQuoted(f.shared);
    checkQuoted(f.streams[0]);
    parses(description);
    checkNames(description, c);
  });

  it.each(examples.invalid.map((u) => [u]))('invalid %j: accepted but refused, naming output.uri', (uri) => {
    const spec = { uri };
    expect(output.accepts(uri)).toBe(true);
    const codec = registry.codecs('video')[0];
    const errors = output.validate(spec, view({ output: spec }), codec);
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e).toMatch(/^output\./);
  });
}

function checkClaims(claims: unknown[], again: unknown[]): void {
  expect(claims).toEqual(again);
  for (const c of claims as Array<Record<string, unknown>>) {
    expect(typeof c.resource).toBe('string');
    expect(typeof c.key).toBe('string');
    expect(typeof c.label).toBe('string');
  }
}

describe('the suite itself', () => {
  it('sees every built-in plugin and the example vendor plugin', () => {
    expect(all.length).toBe(builtinPlugins.length + vendor.length);
    expect(vendor.map((p) => p.name)).toContain('vp8');
  });

  it('its name check catches an injected element name, and not a quoted one', () => {
    expect(() => checkNames('videotestsrc ! filesink location=/tmp/a name=evil', { given: [] })).toThrow(/element evil \(filesink\)/);
    expect(() => checkNames('videotestsrc ! filesink location="/tmp/a name=evil"', { given: [] })).not.toThrow();
  });

  it('its quoting check catches an unquoted string value', () => {
    expect(unquotedValues('filesink location=/tmp/a b')).toEqual(['location=/tmp/a']);
    expect(unquotedValues('filesink location="/tmp/a b" sync=false pt=96 name="x"')).toEqual([]);
  });
});
