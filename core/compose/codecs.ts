/**
 * What the core reads off the codec plugins beyond their fragments: which codec encodes a pipeline's audio, which
 * one multiview encodes with, and each codec's own encoding parameters gathered from the API's fields. Pure.
 */
import type { AudioSpec, CodecParamValue, CodecPlugin, EncodingSpec, PipelineView } from '../sdk';
import type { PluginRegistry } from '../plugins/registry';
import type { PipelineDefinition } from '../pipeline/model';

/** The codec of `audio`: the one it names, else the first audio codec registered (the built-ins come first). */
export function audioCodecOf(registry: PluginRegistry, audio: Pick<AudioSpec, 'codec'>): CodecPlugin | undefined {
  if (audio.codec !== undefined) return registry.codec(audio.codec);
  return registry.codecs('audio')[0];
}

/**
 * What an output's validate sees of a definition: the definition, and with audio the codec that will encode it
 * (PipelineView.audioCodec), so the output can tell whether it carries it.
 */
export function pipelineView(def: PipelineDefinition, registry: PluginRegistry): PipelineView {
  const audioCodec = def.audio && audioCodecOf(registry, def.audio);
  return audioCodec ? { ...def, audioCodec } : def;
}

/** A codec's parameters as its plugin receives them (EncodingSpec.params): its declared fields of `fields`, defaults filled in. */
export function codecParams(codec: Pick<CodecPlugin, 'parameters'>, fields: Readonly<Record<string, unknown>> = {}): Record<string, CodecParamValue> {
  const params: Record<string, CodecParamValue> = {};
  for (const [name, p] of Object.entries(codec.parameters ?? {})) {
    const value = fields[name] ?? p.default;
    if (value !== undefined) params[name] = value as CodecParamValue;
  }
  return params;
}

/** A video encoding as its codec's encoder takes it: the definition's `encoding`, its codec's parameters in `params`. */
export function videoEncoding(encoding: EncodingSpec, codec: Pick<CodecPlugin, 'parameters'>): EncodingSpec {
  return codec.parameters ? { ...encoding, params: codecParams(codec, encoding as unknown as Record<string, unknown>) } : encoding;
}

/** The encoding an audio codec's encoder reads: its parameters from the `audio` object; the video fields are 0. */
export function audioEncoding(audio: AudioSpec, codec: Pick<CodecPlugin, 'codec' | 'parameters'>): EncodingSpec {
  return { codec: codec.codec, bitrate: 0, width: 0, height: 0, fps: 0, quality: 0, params: codecParams(codec, audio) };
}

/** The codec fields of `fields` that belong to another codec of the same medium than `chosen` (`encoding` or `audio`). */
export function foreignParams(registry: PluginRegistry, media: 'video' | 'audio', chosen: string | undefined, fields: Readonly<Record<string, unknown>>, object: string): string[] {
  return registry.codecs(media).filter((c) => c.codec !== chosen).flatMap((c) => Object.keys(c.parameters ?? {})
    .filter((name) => fields[name] !== undefined && !(registry.codec(chosen ?? '')?.parameters?.[name]))
    .map((name) => `${object}.${name} applies only to ${object}.codec ${c.codec}`));
}
