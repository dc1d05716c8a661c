/**
 * The pipeline bodies as the OpenAPI document shows them: the same field schemas as the validator's (schema.ts),
 * arranged so a client can see the rules the validator applies after the schema: one shape per mode (oneOf on
 * `mode`), latitude/longitude or MGRS, at least one field in a PATCH. The validator keeps its own arrangement, whose
 * messages name the field; the conformance test holds the two together.
 */
import { audioSchema, encodingRanges, encodingSchema, geolocationSchema, ID_PATTERN, outputSchema, pipelineSchema, RESPONSE_ONLY, sourceSchema, type SchemaCodecs } from './schema';

const { type: _nullable, ...geoObject } = geolocationSchema;

/** Either latitude and longitude, or mgrs; altitude and heading optional; null removes it (PATCH). */
export const geolocationDocSchema = {
  oneOf: [
    { type: 'null' },
    { ...geoObject, type: 'object', required: ['latitude', 'longitude'], not: { required: ['mgrs'] } },
    { ...geoObject, type: 'object', required: ['mgrs'], not: { anyOf: [{ required: ['latitude'] }, { required: ['longitude'] }] } },
  ],
};

/**
 * `multiview` is the codec multiview encodes with and its quality (CodecPlugin.multiview), `macro` a codec's macro
 * tag for the advanced mode's example, when there are such codecs.
 */
export function pipelineDocSchema(codecs: SchemaCodecs, multiview?: { codec: string; quality: number }, macro?: string) {
  const all = pipelineSchema(codecs).properties as Record<string, object>;
  const responseOnly = Object.fromEntries(RESPONSE_ONLY.map((k) => [k, { description: 'Response only: accepted and ignored' }]));
  const common = {
    id: all.id,
    on_demand: all.on_demand,
    geolocation: geolocationDocSchema,
    ...responseOnly,
  };
  const variant = (mode: string, required: string[], fields: Record<string, object>, description: string) => ({
    type: 'object',
    title: mode,
    description,
    required: ['id', 'mode', ...required],
    additionalProperties: false,
    properties: { ...common, mode: { type: 'string', const: mode }, ...fields },
  });
  const encoding = encodingSchema(codecs.video);
  return {
    oneOf: [
      variant('simple', ['source', 'output'], { source: sourceSchema, encoding: { ...encoding, required: ['codec'] }, output: outputSchema, audio: audioSchema(codecs.audio) },
        'One source. `encoding` is required for raw sources (test patterns, cameras); without it the stream passes through. `audio` only here.'),
      variant('multiview', ['inputs', 'output'], { inputs: all.inputs, encoding, output: outputSchema },
        multiview
          ? `1 to 4 inputs composed into one picture, always ${multiview.codec} at quality ${multiview.quality}: \`encoding.codec\` may be left out or be ${multiview.codec}.`
          : '1 to 4 inputs composed into one picture; no codec plugin encodes multiview here.'),
      variant('advanced', ['raw_pipeline'], { raw_pipeline: all.raw_pipeline },
        `A pipeline description with encoder macros${macro ? ` (\`<svc:${macro} bitrate=800 />\`)` : ''}.`),
    ],
    discriminator: { propertyName: 'mode' },
  };
}

export const patchDocSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'At least one of geolocation and encoding.',
  properties: {
    geolocation: geolocationDocSchema,
    encoding: { type: 'object', additionalProperties: false, minProperties: 1, properties: { ...encodingRanges } },
  },
};

const nullable = (schema: object) => ({ oneOf: [{ type: 'null' }, schema] });

/** The pipeline object every pipeline operation answers (docs/api.md). */
export const pipelineViewSchema = {
  type: 'object',
  required: ['id', 'mode', 'on_demand', 'state', 'started_by', 'persisted', 'geolocation', 'klv', 'framegrab', 'last_error', 'health', 'health_reason', 'stats'],
  properties: {
    id: { type: 'string', pattern: ID_PATTERN },
    mode: { type: 'string', enum: ['simple', 'multiview', 'advanced'] },
    on_demand: { type: 'boolean' },
    source: { type: 'object' },
    inputs: { type: 'array', items: { type: 'object' } },
    encoding: { type: 'object' },
    output: { type: 'object' },
    audio: { type: 'object' },
    raw_pipeline: { type: 'string' },
    state: { type: 'string', enum: ['ready', 'playing'] },
    started_by: { type: ['string', 'null'], enum: ['api', 'auto_start', 'on_demand', null] },
    persisted: { type: 'boolean' },
    geolocation: nullable({ type: 'object' }),
    klv: { type: 'object', required: ['available'], properties: { available: { type: 'boolean' }, state: { type: 'string', enum: ['running', 'stopped'] } } },
    framegrab: { type: 'object', required: ['state'], properties: { state: { type: 'string', enum: ['running', 'stopped'] }, interval_seconds: { type: 'integer' }, quality: { type: 'integer' } } },
    last_error: { type: ['string', 'null'] },
    health: { type: 'string', enum: ['ok', 'degraded', 'failing'] },
    health_reason: { type: ['string', 'null'] },
    stats: nullable({ type: 'object' }),
    auto_start: { type: 'boolean' },
    description: { type: 'string' },
  },
};
