/**
 * Advanced mode: the client's description, taken as written, with encoder macros expanded from the codec plugins.
 * What the pipeline holds (ports, files, cameras) and which encoders it runs are read from the elements GStreamer
 * parsed out of the expanded description (the engine host's `inspect`), never guessed from the text: a regex
 * knows neither an element's defaults (a bare `udpsink` sends to localhost:5004) nor what sits inside a bin.
 */
import { resolve as resolvePath } from 'node:path';
import type { ElementInfo } from '../../native';
import type { PluginRegistry } from '../plugins/registry';
import { isMulticast, resolvedFilePath, type Claim, type CodecPlugin } from '../sdk';
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

const num = (text: string | undefined): number | null => (text !== undefined && /^\d+$/.test(text) ? Number(text) : null);

function udpClaim(host: string, port: number, iface: string | undefined): Claim {
  // The same keys as the udp output plugin, so a simple and an advanced pipeline conflict with each other.
  return isMulticast(host)
    ? { resource: 'udp-multicast', key: `${host}:${port}@${iface ?? ''}`, label: `UDP multicast group ${host}:${port}${iface ? ` on ${iface}` : ''}` }
    : { resource: 'udp-destination', key: `${host.toLowerCase()}:${port}`, label: `UDP destination ${host}:${port}` };
}

/** host:port pairs of multiudpsink's `clients` ("h1:p1,h2:p2", IPv6 as [h]:p). */
function clientList(text: string): Array<{ host: string; port: number }> {
  return text.split(',').map((s) => s.trim()).filter(Boolean).flatMap((c) => {
    const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(c);
    return m ? [{ host: m[1], port: Number(m[2]) }] : [];
  });
}

/** The resources the parsed elements hold, keyed like the built-in plugins' claims. */
export function claimsFromElements(elements: readonly ElementInfo[]): Claim[] {
  const claims: Claim[] = [];
  for (const el of elements) {
    const p = el.properties;
    const iface = p['multicast-iface'] || undefined;
    switch (el.factory) {
      case 'udpsink': {
        const port = num(p.port);
        if (p.host && port) claims.push(udpClaim(p.host, port, iface));
        break;
      }
      case 'multiudpsink':
        for (const c of clientList(p.clients ?? '')) if (c.port) claims.push(udpClaim(c.host, c.port, iface));
        break;
      case 'filesink':
      case 'multifilesink':
      case 'splitmuxsink':
        if (p.location) {
          const path = resolvePath(p.location);
          claims.push({ resource: 'file', key: resolvedFilePath(path), label: `output file ${path}` });
        }
        break;
      case 'v4l2src':
        if (p.device) claims.push({ resource: 'camera', key: p.device, label: `camera ${p.device}`, exclusiveWithinPipeline: true });
        break;
      case 'tcpserversink': {
        const port = num(p.port);
        // Port 0 asks the kernel for any free port: nothing to conflict on.
        if (port) claims.push({ resource: 'port', key: `tcp:${port}`, label: `TCP port ${port}` });
        break;
      }
      default:
        break;
    }
  }
  return claims;
}

/** What an inspected advanced pipeline holds, and the licence features of the encoders it runs (macro or raw). */
export function inspectFacts(elements: readonly ElementInfo[], registry: PluginRegistry): { claims: Claim[]; features: string[] } {
  const encoders = encoderFactories(registry);
  const features = new Set<string>();
  for (const el of elements) {
    const codec = encoders.get(el.factory);
    if (codec) features.add(codec.licenceFeature);
  }
  return { claims: claimsFromElements(elements), features: [...features] };
}
