/**
 * The plugin compliance checks: each plugin is driven through the SDK contract and its fragments are parsed (and the
 * encoders run) by the real addon's GStreamer. One list of checks, run by the repository's suite
 * (test/plugins/compliance.test.ts, one test per check) and by a vendor with `encoderd-plugin-check` (./cli.ts).
 *
 * Sources and outputs are driven with the sample URIs they declare in `examples` (core/sdk/plugin.ts).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Native } from '../../engine/native';
import { composeContext } from '../../compose';
import { codecParams } from '../../compose/codecs';
import { ENCODING_DEFAULTS } from '../../pipeline/schema';
import type { PluginRegistry } from '../registry';
import { definePlugin, rawAudioCaps, type Claim, type CodecPlugin, type ComposeContext, type EncodingSpec, type OutputPlugin, type PipelineView, type Plugin, type SourcePlugin } from '../../sdk';
import { checkNames, checkQuoted, ensure, parses, runsToEos } from './gst';

export interface ComplianceCheck {
  name: string;
  run(): void | Promise<void>;
}

/** What the checks run against: the addon, and the registry whose video codecs outputs are tried with. */
export interface ComplianceEnv {
  native: typeof Native;
  registry: PluginRegistry;
}

const LIVE_KNOWN = ['bitrate', 'width', 'height', 'fps'];
const VIDEO_IN = 'videotestsrc num-buffers=10 ! video/x-raw,width=320,height=240,framerate=30/1';
const AUDIO_IN = 'audiotestsrc num-buffers=10';

type RecordingContext = ComposeContext & { given: string[] };

/** A compose context that remembers every element name it handed out (see checkNames). */
function contextFor(registry: PluginRegistry): RecordingContext {
  // An output directory with a space and a quote in its path: every plugin that writes there must quote it.
  const c = composeContext('compliance', { rtspLatencyMs: 200, outputsDir: join(tmpdir(), 'encoderd compliance "outputs"') }, registry.codecs('video').map((x) => x.caps));
  const given: string[] = [];
  return Object.assign(Object.create(c), { given, name: (role: string) => { const n = c.name(role); given.push(n); return n; } }) as RecordingContext;
}

function sampleEncoding(codec: CodecPlugin, quality = ENCODING_DEFAULTS.quality, params = codecParams(codec)): EncodingSpec {
  // Audio codecs may read `bitrate` as their own unit: take the first value they accept.
  for (const bitrate of [500, 1000, 2400, 3200]) {
    const enc = { codec: codec.codec, ...ENCODING_DEFAULTS, width: 320, height: 240, bitrate, quality, ...(codec.parameters ? { params } : {}) };
    if ((codec.validate?.(enc) ?? []).length === 0) return enc;
  }
  throw new Error(`codec ${codec.name} accepts none of the sample encodings`);
}

const view = (extra: Partial<PipelineView>): PipelineView => ({ id: 'compliance', mode: 'simple', on_demand: false, ...extra });
const json = (v: unknown) => JSON.stringify(v);

/** Every check of one plugin, in the order they run. */
export function pluginChecks(plugin: Plugin, env: ComplianceEnv): ComplianceCheck[] {
  const checks: ComplianceCheck[] = [{
    name: 'is a definePlugin value with a name and a version',
    run: () => {
      definePlugin(plugin);
      ensure(Object.isFrozen(plugin), 'the plugin is not frozen: make it with definePlugin');
      ensure(/^[a-z0-9][a-z0-9._-]*$/.test(plugin.name), `name ${json(plugin.name)} must be lower-case letters, digits, ".", "_" or "-"`);
      ensure(/^\d+\.\d+\.\d+/.test(plugin.version), `version ${json(plugin.version)} must be semver`);
      ensure(typeof plugin.description === 'string', 'description must be a string');
    },
  }];
  if (plugin.kind === 'codec') checks.push(...codecChecks(plugin, env));
  else if (plugin.kind === 'source') checks.push(...sourceChecks(plugin, env));
  else checks.push(...outputChecks(plugin, env));
  return checks;
}

function codecChecks(codec: CodecPlugin, { native, registry }: ComplianceEnv): ComplianceCheck[] {
  // An audio encoder is given what the core's audio chain gives it: its own rawAudio, nothing else.
  const input = codec.media === 'video' ? `${VIDEO_IN} ! videoconvert`
    : codec.rawAudio ? `${AUDIO_IN} ! audioconvert ! audioresample ! ${rawAudioCaps(codec.rawAudio)}` : AUDIO_IN;
  const ctx = () => contextFor(registry);
  const checks: ComplianceCheck[] = [{
    name: 'declares its codec facts',
    run: () => {
      ensure(/^[a-z0-9]+$/.test(codec.codec), `codec ${json(codec.codec)} must be lower-case letters and digits`);
      ensure(['video', 'audio'].includes(codec.media), `media ${json(codec.media)} must be video or audio`);
      ensure(/^(video|audio)\/[a-z0-9.+-]+$/.test(codec.caps), `caps ${json(codec.caps)} must be a video/ or audio/ media type`);
      ensure(typeof codec.licenceFeature === 'string' && codec.licenceFeature.length > 0, 'licenceFeature must be a non-empty string');
      for (const c of codec.containers) ensure(/^[a-z0-9]+$/.test(c), `container ${json(c)} must be a container's name in lower-case letters and digits`);
      ensure(native.hasElement(codec.parser), `parser ${codec.parser} is not an element of this GStreamer`);
    },
  }, {
    name: 'encoder fragments parse at every quality, carry the named element, quote every string; the default one encodes',
    run: async () => {
      for (let q = 1; q <= 10; q++) {
        const enc = codec.encoder(sampleEncoding(codec, q), ctx());
        checkQuoted(enc.description);
        parses(native, `${input} ! ${enc.description} ! fakesink name=out`);
        const p = new native.Pipeline(`${input} ! ${enc.description} ! fakesink`, () => undefined);
        const names = p.elements().map((e) => e.name);
        p.destroy();
        ensure(names.includes(enc.element), `element ${enc.element} is not in the encoder fragment at quality ${q}: ${enc.description}`);
      }
      const enc = codec.encoder(sampleEncoding(codec), ctx());
      await runsToEos(native, `${input} ! ${enc.description} ! ${codec.parser} ! fakesink`);
    },
  }, {
    name: 'live parameters are known encoding fields and map onto properties the running encoder has',
    run: () => {
      for (const param of codec.liveParams) ensure(LIVE_KNOWN.includes(param), `live parameter ${json(param)} must be one of ${LIVE_KNOWN.join(', ')}`);
      const enc = codec.encoder(sampleEncoding(codec), ctx());
      const p = new native.Pipeline(`${input} ! ${enc.description} ! fakesink`, () => undefined);
      try {
        for (const param of codec.liveParams) {
          const changes = codec.liveChange(param, 800, enc.element);
          ensure(changes.length > 0, `liveChange(${param}) returns no change`);
          for (const c of changes) {
            ensure(c.element === enc.element, `liveChange(${param}) changes ${c.element}, not the encoder ${enc.element}`);
            try {
              p.setProperty(c.element, c.property, c.value);
            } catch (err) {
              ensure(false, `liveChange(${param}): ${c.element}.${c.property} = ${json(c.value)}: ${(err as Error).message}`);
            }
          }
        }
        ensure(codec.liveChange('not-a-param', 1, enc.element).length === 0, 'liveChange of an unknown parameter must return []');
      } finally {
        p.destroy();
      }
    },
  }, {
    name: 'the RTP mapping parses: payloader after the encoder, depayloader after a payloader',
    run: () => {
      ensure(/^[A-Z0-9-]+$/.test(codec.rtp.encodingName), `rtp.encodingName ${json(codec.rtp.encodingName)} must be upper-case`);
      ensure(Number.isInteger(codec.rtp.clockRate), `rtp.clockRate ${json(codec.rtp.clockRate)} must be an integer`);
      const enc = codec.encoder(sampleEncoding(codec), ctx());
      const pay = codec.rtp.payloader(ctx(), 'pay0', 96);
      checkQuoted(pay);
      parses(native, `${input} ! ${enc.description} ! ${pay} ! ${codec.rtp.depayloader(ctx())} ! fakesink`);
    },
  }];
  const parameters = Object.entries(codec.parameters ?? {});
  if (parameters.length) {
    checks.push({
      name: 'encoding parameters: each default is one of its values, and every value the declaration names parses',
      run: () => {
        for (const [name, p] of parameters) {
          const values: unknown[] = [...(p.enum ?? []), p.minimum, p.maximum, p.default].filter((v) => v !== undefined);
          if (p.default !== undefined && p.minimum !== undefined) ensure(Number(p.default) >= p.minimum, `parameter ${name}: default ${json(p.default)} is below its minimum`);
          if (p.default !== undefined && p.maximum !== undefined) ensure(Number(p.default) <= p.maximum, `parameter ${name}: default ${json(p.default)} is above its maximum`);
          for (const value of values) {
            const enc = codec.encoder(sampleEncoding(codec, undefined, { ...codecParams(codec), [name]: value as number }), ctx());
            checkQuoted(enc.description);
            parses(native, `${input} ! ${enc.description} ! fakesink`);
          }
        }
      },
    });
  }
  const macro = codec.macro;
  if (macro) {
    checks.push({
      name: `macro <svc:${macro.tag} />: declared values are consistent and every expansion parses; the default encodes`,
      run: async () => {
        ensure(/^[a-z0-9_-]+$/.test(macro.tag), `macro tag ${json(macro.tag)} must be lower-case letters, digits, "_" or "-"`);
        const variants: Array<Record<string, number>> = [];
        const defaults = Object.fromEntries(Object.entries(macro.attributes).map(([k, a]) => [k, a.default]));
        variants.push(defaults);
        for (const [name, a] of Object.entries(macro.attributes)) {
          ensure(/^[a-z][a-z0-9_-]*$/.test(name), `macro attribute ${json(name)} must be lower-case`);
          if (a.oneOf) {
            ensure(a.oneOf.includes(a.default), `${name}: default ${a.default} is not one of ${json(a.oneOf)}`);
            for (const v of a.oneOf) variants.push({ ...defaults, [name]: v });
          } else {
            ensure(Number.isInteger(a.min) && Number.isInteger(a.max), `${name} needs min and max or oneOf`);
            ensure(a.default >= a.min! && a.default <= a.max!, `${name}: default ${a.default} is outside ${a.min}..${a.max}`);
            variants.push({ ...defaults, [name]: a.min! }, { ...defaults, [name]: a.max! });
          }
        }
        for (const values of variants) {
          const text = macro.expand(values, ctx());
          checkQuoted(text);
          parses(native, `${input} ! ${text} ! fakesink`);
        }
        await runsToEos(native, `${input} ! ${macro.expand(defaults, ctx())} ! fakesink`);
      },
    });
  }
  return checks;
}

function declaresExamples(plugin: SourcePlugin | OutputPlugin): ComplianceCheck {
  return {
    name: 'declares examples',
    run: () => {
      ensure(plugin.examples, `${plugin.kind} plugin ${plugin.name} must declare examples { valid, invalid }`);
      ensure(plugin.examples.valid.length > 0, `${plugin.kind} plugin ${plugin.name} must declare at least one valid example`);
    },
  };
}

function refused(errors: string[], field: 'source' | 'output', uri: string): void {
  ensure(errors.length > 0, `validate accepts the invalid example ${json(uri)}`);
  for (const e of errors) ensure(e.startsWith(`${field}.`), `message ${json(e)} must name the field (start with "${field}.")`);
}

function sourceChecks(source: SourcePlugin, { native, registry }: ComplianceEnv): ComplianceCheck[] {
  const examples = source.examples ?? { valid: [], invalid: [] };
  return [
    declaresExamples(source),
    ...examples.valid.map((uri): ComplianceCheck => ({
      name: `valid ${json(uri)}: accepted, validates, claims, parses`,
      run: () => {
        const spec = { uri };
        ensure(source.accepts(uri), `accepts(${json(uri)}) is false`);
        const errors = source.validate(spec, view({ source: spec }));
        ensure(errors.length === 0, `validate refuses the valid example: ${errors.join('; ')}`);
        checkClaims(source.claims(spec), source.claims(spec));
        for (const decode of source.producesRawOnly ? [true] : [true, false]) {
          const c = contextFor(registry);
          const f = source.fragment(spec, c, { decode });
          checkQuoted(f.description);
          ensure(['raw', 'encoded'].includes(f.kind), `fragment kind ${json(f.kind)} must be raw or encoded`);
          parses(native, `${f.description} ! fakesink`);
          checkNames(native, `${f.description} ! fakesink`, c.given);
        }
      },
    })),
    ...examples.invalid.map((uri): ComplianceCheck => ({
      name: `invalid ${json(uri)}: accepted but refused, naming source.uri`,
      run: () => {
        const spec = { uri };
        ensure(source.accepts(uri), `accepts(${json(uri)}) is false`);
        refused(source.validate(spec, view({ source: spec })), 'source', uri);
      },
    })),
  ];
}

function outputChecks(output: OutputPlugin, { native, registry }: ComplianceEnv): ComplianceCheck[] {
  const examples = output.examples ?? { valid: [], invalid: [] };
  return [
    declaresExamples(output),
    ...examples.valid.map((uri): ComplianceCheck => ({
      name: `valid ${json(uri)}: accepted, validates with some video codec, claims, parses`,
      run: () => {
        const spec = { uri };
        ensure(output.accepts(uri), `accepts(${json(uri)}) is false`);
        const codec = registry.codecs('video').find((c) => output.validate(spec, view({ output: spec, encoding: sampleEncoding(c) }), c).length === 0);
        ensure(codec, `no video codec is accepted by ${output.name} for ${uri}`);
        checkClaims(output.claims(spec), output.claims(spec));
        const c = contextFor(registry);
        const enc = codec.encoder(sampleEncoding(codec), c);
        const f = output.fragment(spec, [{ media: 'video', codec }], c, { onDemand: false });
        ensure(f.streams.length === 1, `fragment gives ${f.streams.length} stream chains for 1 stream`);
        const description = [f.shared, `${VIDEO_IN} ! videoconvert ! ${enc.description} ! ${f.streams[0]}`].filter(Boolean).join(' ');
        checkQuoted(f.shared);
        checkQuoted(f.streams[0]);
        parses(native, description);
        checkNames(native, description, c.given);
      },
    })),
    ...examples.invalid.map((uri): ComplianceCheck => ({
      name: `invalid ${json(uri)}: accepted but refused, naming output.uri`,
      run: () => {
        const spec = { uri };
        ensure(output.accepts(uri), `accepts(${json(uri)}) is false`);
        refused(output.validate(spec, view({ output: spec }), registry.codecs('video')[0]), 'output', uri);
      },
    })),
  ];
}

function checkClaims(claims: Claim[], again: Claim[]): void {
  ensure(json(claims) === json(again), `claims differ between two calls: ${json(claims)} then ${json(again)}`);
  for (const c of claims as unknown as Array<Record<string, unknown>>) {
    for (const field of ['resource', 'key', 'label']) ensure(typeof c[field] === 'string', `claim ${json(c)}: ${field} must be a string`);
  }
}
