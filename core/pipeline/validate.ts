/**
 * Turns a request body into a PipelineDefinition, or a 400 whose details name every bad field. The schema
 * checks shapes and ranges; the plugins that will carry the pipeline check what only they know.
 */
import { ApiError, validationError } from '../errors/catalogue';
import { mgrsValid } from '../klv/geolocation';
import type { PluginRegistry } from '../plugins/registry';
import type { Claim, CodecInfo, SourcePlugin } from '../sdk';
import { SchemaValidator } from '../validation/validator';
import { validateAdvanced } from '../compose/advanced';
import { audioCodecOf, audioEncoding, foreignParams, pipelineView, videoEncoding } from '../compose/codecs';
import type { PipelineDefinition } from './model';
import { limitProblems } from './limits';
import { layoutProblem } from '../compose/multiview';
import { pipelineDocSchema, patchDocSchema } from './doc-schema';
import { ENCODING_DEFAULTS, patchSchema, pipelineSchema, type SchemaCodecs } from './schema';

export class PipelineValidator {
  private readonly body: SchemaValidator<Record<string, unknown>>;
  private readonly patch = new SchemaValidator<Record<string, unknown>>(patchSchema());

  /** The schemas of a pipeline body and of a patch body, for the OpenAPI document. */
  readonly schemas: { body: object; patch: object };

  constructor(private readonly registry: PluginRegistry) {
    const codecs: SchemaCodecs = { video: registry.codecs('video'), audio: registry.codecs('audio') };
    this.body = new SchemaValidator(pipelineSchema(codecs));
    // The document shows the per-mode rules the validator applies after its schema (doc-schema.ts).
    const mv = registry.multiviewCodec();
    const macro = registry.codecs('video').find((c) => c.macro?.attributes.bitrate)?.macro?.tag;
    this.schemas = { body: pipelineDocSchema(codecs, mv && { codec: mv.codec, quality: mv.multiview!.quality }, macro), patch: patchDocSchema };
  }



  /** A create or update body: every error is VALIDATION_ERROR (spec: POST and PUT list only that). */
  definition(input: unknown): PipelineDefinition {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw validationError(['body must be an object']);
    const r = this.body.validate(input);
    if (r.errors.length) throw validationError(r.errors);
    // An object literal of the definition's own fields: response-only fields drop out, and V8 keeps it a fast
    // object (deleting keys, or Object.fromEntries, leaves a slow dictionary that every GET then copies).
    const v = r.value as Record<string, unknown>;
    const def = {
      id: v.id, mode: v.mode, on_demand: v.on_demand, source: v.source, inputs: v.inputs, encoding: v.encoding,
      output: v.output, audio: v.audio, raw_pipeline: v.raw_pipeline, geolocation: v.geolocation,
    } as PipelineDefinition;
    const errors = this.semantic(def);
    if (errors.length) throw validationError(errors);
    return def;
  }

  private semantic(def: PipelineDefinition): string[] {
    const errors: string[] = [];
    const fieldsOf: Record<string, string[]> = {
      simple: ['source', 'output'],
      multiview: ['inputs', 'output'],
      advanced: ['raw_pipeline'],
    };
    const forbidden: Record<string, string[]> = {
      simple: ['inputs', 'raw_pipeline'],
      multiview: ['source', 'raw_pipeline', 'audio'],
      advanced: ['source', 'inputs', 'encoding', 'output', 'audio'],
    };
    for (const f of fieldsOf[def.mode]) if ((def as unknown as Record<string, unknown>)[f] === undefined) errors.push(`${f} is required in ${def.mode} mode`);
    for (const f of forbidden[def.mode]) {
      if ((def as unknown as Record<string, unknown>)[f] !== undefined) {
        errors.push(f === 'audio' ? 'audio requires simple mode' : `${f} is not allowed in ${def.mode} mode`);
      }
    }
    if (errors.length) return errors;
    errors.push(...this.geolocation(def));
    if (def.mode === 'simple') errors.push(...this.simple(def));
    else if (def.mode === 'multiview') errors.push(...this.multiview(def));
    else errors.push(...validateAdvanced(def, this.registry));
    return errors;
  }

  /**
   * What a valid definition's sources need on this machine now (SourcePlugin.present: a camera's device node, a
   * readable media file), asked at create and PUT after the claims (a camera named twice is a conflict first), not
   * at restore: a camera plugged in later starts then.
   */
  presenceProblems(def: PipelineDefinition): string[] {
    if (def.mode === 'simple') return this.registry.source(def.source!.uri)?.present?.(def.source!) ?? [];
    if (def.mode !== 'multiview') return [];
    return def.inputs!.flatMap((input, i) => (this.registry.source(input.source.uri)?.present?.(input.source) ?? [])
      .map((m) => (m.startsWith('source.') ? `inputs[${i}].${m}` : `inputs[${i}].source: ${m}`)));
  }

  /** A video encoding against its codec's declared limits and its own checks (create, PUT, PATCH). */
  encodingProblems(encoding: PipelineDefinition['encoding']): string[] {
    const plugin = encoding && this.registry.codec(encoding.codec);
    if (!encoding || !plugin) return [];
    return [...limitProblems(plugin.codec, plugin.limits, encoding), ...(plugin.validate?.(videoEncoding(encoding, plugin)) ?? [])];
  }

  private geolocation(def: PipelineDefinition): string[] {
    const g = def.geolocation;
    if (!g) return [];
    const hasLatLon = g.latitude !== undefined || g.longitude !== undefined;
    if (hasLatLon && g.mgrs !== undefined) return ['geolocation takes either latitude/longitude or mgrs, not both'];
    if (!hasLatLon && g.mgrs === undefined) return ['geolocation requires latitude and longitude, or mgrs'];
    if (hasLatLon && (g.latitude === undefined || g.longitude === undefined)) return ['geolocation requires both latitude and longitude'];
    if (g.mgrs !== undefined && !mgrsValid(g.mgrs)) return ['geolocation.mgrs must be a valid MGRS grid reference'];
    return [];
  }

  private simple(def: PipelineDefinition): string[] {
    const errors: string[] = [];
    const source = this.registry.source(def.source!.uri);
    const output = this.registry.output(def.output!.uri);
    if (!source) errors.push('source.uri scheme is not supported');
    if (!output) errors.push('output.uri scheme is not supported');
    let codec: CodecInfo | null = null;
    if (def.encoding) {
      codec = this.registry.codec(def.encoding.codec) ?? null;
      errors.push(...foreignParams(this.registry, 'video', def.encoding.codec, def.encoding as unknown as Record<string, unknown>, 'encoding'));
      errors.push(...this.encodingProblems(def.encoding));
    }
    if (source) {
      errors.push(...source.validate(def.source!, def));
      if (source.producesRawOnly && !def.encoding) errors.push('encoding is required for this source');
    }
    if (def.audio) errors.push(...this.audio(def, source));
    if (output) {
      errors.push(...output.validate(def.output!, pipelineView(def, this.registry), codec));
      if (def.on_demand && !output.supportsOnDemand) errors.push('on_demand is allowed only with a local RTSP output');
    }
    return errors;
  }

  /**
   * Multiview: every input's source through its plugin (messages name the input), the output against the codec
   * multiview encodes with (CodecPlugin.multiview). The spec fixes the codec and quality, so another value is refused
   * rather than silently replaced (docs/multiview.md); once valid, the definition carries the full encoding
   * (defaults, the codec, its quality).
   */
  private multiview(def: PipelineDefinition): string[] {
    const errors: string[] = [];
    const codec = this.registry.multiviewCodec();
    if (!codec) return ['multiview needs a video codec plugin that declares multiview, and none is installed'];
    const quality = codec.multiview!.quality;
    const given = def.encoding as Partial<PipelineDefinition['encoding']> | undefined;
    if (given?.codec !== undefined && given.codec !== codec.codec) {
      errors.push(`encoding.codec must be ${codec.codec} in multiview mode (multiview always encodes ${codec.codec}), or left out`);
    }
    if (given?.quality !== undefined && given.quality !== quality) {
      errors.push(`encoding.quality is fixed at ${quality} in multiview mode, or left out`);
    }
    const encoding = { ...ENCODING_DEFAULTS, ...given, codec: codec.codec, quality };
    const problem = layoutProblem(def.inputs!.length, encoding.width, encoding.height);
    if (problem) errors.push(problem);
    errors.push(...this.encodingProblems(encoding));
    def.inputs!.forEach((input, i) => {
      const source = this.registry.source(input.source.uri);
      if (!source) {
        errors.push(`inputs[${i}].source.uri scheme is not supported`);
        return;
      }
      const view = { ...def, source: input.source, encoding };
      // Plugins name their field `source.…`; here it is this input's source.
      errors.push(...source.validate(input.source, view).map((m) => (m.startsWith('source.') ? `inputs[${i}].${m}` : `inputs[${i}].source: ${m}`)));
    });
    const output = this.registry.output(def.output!.uri);
    if (!output) errors.push('output.uri scheme is not supported');
    else {
      errors.push(...output.validate(def.output!, { ...def, encoding }, codec));
      if (def.on_demand && !output.supportsOnDemand) errors.push('on_demand is allowed only with a local RTSP output');
    }
    if (!errors.length) def.encoding = encoding;
    return errors;
  }

  /**
   * Create rules 4–6 beyond the schema's ranges (spec Audio validation table, word for word), then the audio codec's:
   * its parameters only (not another codec's), and its own validate().
   */
  private audio(def: PipelineDefinition, source: SourcePlugin | undefined): string[] {
    const audio = def.audio!;
    const errors: string[] = [];
    if (audio.source === 'local' && audio.device === undefined) errors.push('audio.device is required when audio.source is local');
    if (audio.source === 'stream' && source && !source.mayCarryAudio) {
      errors.push(`audio.source cannot be stream when the video source is a ${source.name} source`);
    }
    const codec = audioCodecOf(this.registry, audio);
    if (!codec) return [...errors, 'audio needs an audio codec plugin, and none is installed'];
    errors.push(...foreignParams(this.registry, 'audio', codec.codec, audio, 'audio'));
    errors.push(...(codec.validate?.(audioEncoding(audio, codec)) ?? []));
    return errors;
  }

  /** The resources the pipeline holds while active. */
  claims(def: PipelineDefinition): Claim[] {
    if (def.mode === 'multiview') return this.multiviewClaims(def);
    if (def.mode !== 'simple') return [];
    const source = this.registry.source(def.source!.uri);
    const output = this.registry.output(def.output!.uri);
    return [...(source?.claims(def.source!) ?? []), ...(output?.claims(def.output!) ?? [])];
  }

  /** Every input's claims (a camera is exclusive within the pipeline too: spec create rule 3) and the output's. */
  private multiviewClaims(def: PipelineDefinition): Claim[] {
    const inputs = (def.inputs ?? []).flatMap((input) => this.registry.source(input.source.uri)?.claims(input.source) ?? []);
    const output = this.registry.output(def.output!.uri);
    return [...inputs, ...(output?.claims(def.output!) ?? [])];
  }

  /**
   * A PATCH body. Shape errors (unknown field, wrong type) are FORMAT_ERROR, range errors VALIDATION_ERROR
   * (spec patch rule 5); an empty patch is a VALIDATION_ERROR (rule 1).
   */
  patchBody(input: unknown): { geolocation?: PipelineDefinition['geolocation']; encoding?: Record<string, number> } {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw validationError(['body must be an object'], 'FORMAT_ERROR');
    const r = this.patch.validate(input);
    if (r.errors.length) throw validationError(r.errors, r.onlyRangeErrors ? 'VALIDATION_ERROR' : 'FORMAT_ERROR');
    const body = r.value as { geolocation?: PipelineDefinition['geolocation']; encoding?: Record<string, number> };
    if (body.geolocation === undefined && body.encoding === undefined) {
      throw validationError(['patch must contain geolocation and/or encoding']);
    }
    if (body.encoding && Object.keys(body.encoding).length === 0) throw validationError(['encoding must name at least one of bitrate, width, height, fps']);
    if (body.geolocation) {
      const errors = this.geolocation({ geolocation: body.geolocation } as PipelineDefinition);
      if (errors.length) throw validationError(errors);
    }
    return body;
  }
}

export function notFound(id: string): ApiError {
  return new ApiError('NOT_FOUND', `pipeline "${id}" not found`);
}
