/**
 * The pipeline body's schema, built from the spec's Pipeline, Encoding, Audio and Geolocation tables with
 * the design's defaults. The codecs come from the plugin registry, each with the encoding parameters it adds
 * (CodecPlugin.parameters), so the core names no codec.
 */
import type { CodecPlugin } from '../sdk';
import { PLAIN_TEXT } from '../validation/validator';
import { ALSA_DEVICE_PATTERN } from '../compose/audio';

/** What the schema takes of a codec plugin. */
export type SchemaCodec = Pick<CodecPlugin, 'codec' | 'name' | 'parameters'>;

/** The registered codecs by medium, in registry order (the first audio codec is the one an `audio` without `codec` gets). */
export interface SchemaCodecs {
  video: readonly SchemaCodec[];
  audio: readonly SchemaCodec[];
}

export const ID_PATTERN = '^[a-zA-Z0-9_-]+$';

const uriSchema = { type: 'string', minLength: 1, maxLength: 2048, pattern: PLAIN_TEXT, 'x-pattern-message': 'must not contain control characters' };

export const sourceSchema = {
  type: 'object',
  required: ['uri'],
  additionalProperties: false,
  properties: {
    uri: uriSchema,
    latency_ms: { type: 'integer', minimum: 0, maximum: 60000 },
  },
};

export const outputSchema = {
  type: 'object',
  required: ['uri'],
  additionalProperties: false,
  properties: {
    uri: uriSchema,
    network_interface: { type: 'string', minLength: 1, maxLength: 15, pattern: '^[a-zA-Z0-9_.:-]+$', 'x-pattern-message': 'must be a network interface name' },
  },
};

export const encodingRanges = {
  bitrate: { type: 'integer', minimum: 5, maximum: 5000 },
  width: { type: 'integer', minimum: 1, maximum: 16384 },
  height: { type: 'integer', minimum: 1, maximum: 16384 },
  fps: { type: 'integer', minimum: 1, maximum: 120 },
};

export const ENCODING_DEFAULTS = { bitrate: 1000, width: 1280, height: 720, fps: 30, quality: 5 };

const encodingFields = {
  bitrate: { ...encodingRanges.bitrate, default: ENCODING_DEFAULTS.bitrate },
  width: { ...encodingRanges.width, default: ENCODING_DEFAULTS.width },
  height: { ...encodingRanges.height, default: ENCODING_DEFAULTS.height },
  fps: { ...encodingRanges.fps, default: ENCODING_DEFAULTS.fps },
  quality: { type: 'integer', minimum: 1, maximum: 10, default: ENCODING_DEFAULTS.quality },
};

const audioFields = {
  source: { type: 'string', enum: ['stream', 'local', 'test'], default: 'stream' },
  // The grammar bounds the length; any other string is the spec's one message, not a length or character one.
  device: { type: 'string', pattern: ALSA_DEVICE_PATTERN, 'x-pattern-message': 'must be a valid ALSA device path' },
  test_wave: { type: 'integer', minimum: 0, maximum: 12, default: 0 },
  volume: { type: 'number', minimum: 0, maximum: 2, 'x-decimal': true },
  noise_filter: { type: 'boolean', default: true },
  noise_suppression: { type: 'boolean', default: true },
  noise_suppression_level: { type: 'integer', minimum: 1, maximum: 4, default: 2 },
  auto_gain_control: { type: 'boolean', default: true },
};

/**
 * An object's schema with its codecs' parameters: every parameter is a property (so `additionalProperties: false`
 * still refuses a typo), and its default applies only when its codec is the one chosen: one `if`/`then` per codec
 * with parameters. `defaultCodec` is the codec an object without `codec` gets. A parameter named like one of the
 * core's fields is a plugin's mistake, refused at startup.
 */
function withCodecs(object: string, fields: Record<string, object>, codecs: readonly SchemaCodec[], defaultCodec?: string) {
  const properties: Record<string, object> = {
    codec: codecs.length ? { type: 'string', enum: codecs.map((c) => c.codec) } : { type: 'string' },
    ...fields,
  };
  const rules: object[] = [];
  for (const c of codecs) {
    const params = Object.entries(c.parameters ?? {});
    if (!params.length) continue;
    for (const [name, { default: _default, ...schema }] of params) {
      if (name in properties) throw new Error(`plugin "${c.name}": parameter "${name}" is a field of ${object} already`);
      properties[name] = schema;
    }
    const defaults = Object.fromEntries(params.filter(([, p]) => p.default !== undefined).map(([name, p]) => [name, { default: p.default }]));
    if (!Object.keys(defaults).length) continue;
    const chosen = { properties: { codec: { const: c.codec } } };
    rules.push({ if: c.codec === defaultCodec ? chosen : { ...chosen, required: ['codec'] }, then: { properties: defaults } });
  }
  return { type: 'object', additionalProperties: false, properties, ...(rules.length ? { allOf: rules } : {}) };
}

export function encodingSchema(codecs: readonly SchemaCodec[]) {
  return withCodecs('encoding', encodingFields, codecs);
}

/** The spec's Audio object, with the audio codecs' parameters (the first audio codec is an `audio` without `codec`'s). */
export function audioSchema(codecs: readonly SchemaCodec[]) {
  return withCodecs('audio', audioFields, codecs, codecs[0]?.codec);
}

export const geolocationSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    latitude: { type: 'number', minimum: -90, maximum: 90 },
    longitude: { type: 'number', minimum: -180, maximum: 180 },
    mgrs: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[0-9A-Za-z ]+$', 'x-pattern-message': 'must be an MGRS grid reference' },
    altitude: { type: 'number', minimum: -900, maximum: 19000 },
    heading: { type: 'number', minimum: 0, maximum: 360 },
  },
};

const inputSchema = {
  type: 'object',
  required: ['source'],
  additionalProperties: false,
  properties: {
    source: sourceSchema,
    label: { type: 'string', maxLength: 256, pattern: PLAIN_TEXT, 'x-pattern-message': 'must not contain control characters' },
    transform: {
      type: 'object',
      additionalProperties: false,
      properties: {
        mirror: { type: 'boolean' },
        rotate: { type: 'integer', enum: [0, 90, 180, 270] },
        grayscale: { type: 'boolean' },
      },
    },
    crop: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(['top', 'right', 'bottom', 'left'].map((k) => [k, { type: 'integer', minimum: 0, maximum: 16384 }])),
    },
    overlay: {
      type: 'object',
      additionalProperties: false,
      properties: {
        text: { type: 'string', maxLength: 256, pattern: PLAIN_TEXT, 'x-pattern-message': 'must not contain control characters' },
        timestamp: { type: 'boolean' },
      },
    },
  },
};

/** Response-only fields a client may echo back from a GET; accepted and ignored. */
const RESPONSE_ONLY = ['state', 'started_by', 'persisted', 'klv', 'framegrab', 'last_error', 'auto_start', 'description', 'health', 'health_reason', 'stats'];

export function pipelineSchema(codecs: SchemaCodecs) {
  return {
    type: 'object',
    required: ['id', 'mode'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 64, pattern: ID_PATTERN, 'x-pattern-message': "must contain only letters, digits, '_' and '-'" },
      mode: { type: 'string', enum: ['simple', 'multiview', 'advanced'] },
      on_demand: { type: 'boolean', default: false },
      source: sourceSchema,
      inputs: { type: 'array', minItems: 1, maxItems: 4, items: inputSchema },
      encoding: encodingSchema(codecs.video),
      output: outputSchema,
      audio: audioSchema(codecs.audio),
      raw_pipeline: { type: 'string', minLength: 1, maxLength: 65536 },
      geolocation: geolocationSchema,
      ...Object.fromEntries(RESPONSE_ONLY.map((k) => [k, {}])),
    },
    // Multiview's codec is fixed by the spec (CodecPlugin.multiview), so only there may encoding leave it out.
    if: { properties: { mode: { const: 'multiview' } }, required: ['mode'] },
    else: { properties: { encoding: { required: ['codec'] } } },
  };
}

export function patchSchema() {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      geolocation: geolocationSchema,
      encoding: { type: 'object', additionalProperties: false, properties: { ...encodingRanges } },
    },
  };
}

export { RESPONSE_ONLY };
