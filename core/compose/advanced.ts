/**
 * Advanced mode: the client's description, taken as written, with encoder macros expanded from the codec plugins.
 * What the pipeline holds (ports, files, cameras) and which encoders it runs are read from the elements GStreamer
 * parsed out of the expanded description (the engine host's `inspect`), never guessed from the text: a regex
 * knows neither an element's defaults (a bare `udpsink` sends to localhost:5004) nor what sits inside a bin.
 */
import type { ElementInfo } from '../../native';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim, CodecPlugin } from '../sdk';
import { composeContext, ComposeError, type ComposedPipeline, type ComposeSettings } from './context';
import { codecParams } from './codecs';
import { expandMacros, resolveMacros, type ResolvedMacro } from './macros';
import type { PipelineDefinition } from '../pipeline/model';
import { ENCODING_DEFAULTS } from '../pipeline/schema';

function macroLookup(registry: PluginRegistry) {
  const tags = registry.codecs().flatMap((c) => (c.macro ? [c.macro.tag] : []));
  return { lookup: (tag: string) => registry.macroCodec(tag)?.macro, tags };
}

export function resolveAdvancedMacros(text: string, registry: PluginRegistry): { macros: ResolvedMacro[]; errors: string[] } {
  const { lookup, tags } = macroLookup(registry);
  return resolveMacros(text, lookup, tags);
}

/** What only advanced mode checks; messages name the field. */
export function validateAdvanced(def: PipelineDefinition, registry: PluginRegistry): string[] {
  const errors: string[] = [];
  const text = def.raw_pipeline ?? '';
  if (!text.trim()) errors.push('raw_pipeline must not be empty');
  if (text.includes('\0')) errors.push('raw_pipeline must not contain NUL');
  // An advanced pipeline has no output object, so no local RTSP server to wait on.
  if (def.on_demand) errors.push('on_demand is allowed only with a local RTSP output');
  errors.push(...resolveAdvancedMacros(text, registry).errors);
  return errors;
}

/** The macros expanded in order; the licence features are those of every macro's codec. */
export function composeAdvanced(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings): ComposedPipeline {
  const text = def.raw_pipeline ?? '';
  const { macros, errors } = resolveAdvancedMacros(text, registry);
  if (errors.length) throw new ComposeError(errors.join('; '));
  const ctx = composeContext(def.id, settings);
  const features = new Set<string>();
  const description = expandMacros(text, macros, (m) => {
    const codec = registry.macroCodec(m.tag) as CodecPlugin;
    features.add(codec.licenceFeature);
    return codec.macro!.expand(m.values, ctx);
  });
  // Stop always sends EOS first: a filesink's container is finalised, and a pipeline without one ends just as well.
  // Advanced mode: every leaf sink is the output; no frame meter (the description names its own elements).
  return { description, finaliseWithEos: true, features: [...features], meters: { internalSinks: [] } };
}

/**
 * Each codec's encoder element factory, found by composing its encoder once and reading the segment that carries
 * the element name it reports. Lets a raw `x264enc` in advanced mode be licensed like `<svc:h264 />`.
 */
export function encoderFactories(registry: PluginRegistry): Map<string, CodecPlugin> {
  const map = new Map<string, CodecPlugin>();
  for (const codec of registry.codecs()) {
    const ctx = composeContext('probe', { rtspLatencyMs: 0 });
    let encoder: { description: string; element: string };
    try {
      encoder = codec.encoder({ codec: codec.codec, ...ENCODING_DEFAULTS, params: codecParams(codec) }, ctx);
    } catch {
      continue;
    }
    const named = new RegExp(`(^|\\s)name=("?)${encoder.element.replace(/[^a-zA-Z0-9_-]/g, '\\$&')}\\2(\\s|$)`);
    const segment = encoder.description.split('!').map((s) => s.trim()).find((s) => named.test(s));
    const factory = segment?.split(/\s+/)[0];
    if (factory) map.set(factory, codec);
  }
  return map;
}

/**
 * The resources the parsed elements hold: each source and output plugin reads its own elements
 * (SourcePlugin/OutputPlugin.elementClaims), keyed like its claims() so both modes conflict with each other.
 */
export function claimsFromElements(elements: readonly ElementInfo[], registry: PluginRegistry): Claim[] {
  const readers = registry.all().flatMap((p) => ((p.kind === 'source' || p.kind === 'output') && p.elementClaims ? [p.elementClaims] : []));
  return elements.flatMap((el) => readers.flatMap((read) => read(el)));
}

/** What an inspected advanced pipeline holds, and the licence features of the encoders it runs (macro or raw). */
export function inspectFacts(elements: readonly ElementInfo[], registry: PluginRegistry): { claims: Claim[]; features: string[] } {
  const encoders = encoderFactories(registry);
  const features = new Set<string>();
  for (const el of elements) {
    const codec = encoders.get(el.factory);
    if (codec) features.add(codec.licenceFeature);
  }
  return { claims: claimsFromElements(elements, registry), features: [...features] };
}
