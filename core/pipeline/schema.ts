/**
 * The pipeline body's schema, built from the spec's Pipeline, Encoding, Audio and Geolocation tables with
 * the design's defaults. The codec list comes from the plugin registry, so the core names no codec.
 */
import { PLAIN_TEXT } from '../validation/validator';
import { ALSA_DEVICE_PATTERN } from '../compose/audio';

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

export function encodingSchema(codecs: string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      codec: { type: 'string', enum: codecs },
      bitrate: { ...encodingRanges.bitrate, default: ENCODING_DEFAULTS.bitrate },
      width: { ...encodingRanges.width, default: ENCODING_DEFAULTS.width },
      height: { ...encodingRanges.height, default: ENCODING_DEFAULTS.height },
      fps: { ...encodingRanges.fps, default: ENCODING_DEFAULTS.fps },
      quality: { type: 'integer', minimum: 1, maximum: 10, default: ENCODING_DEFAULTS.quality },
    },
  };
}

export const CODEC2_MODES = [3200, 2400, 1600, 1400, 1300, 1200];

export const audioSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    source: { type: 'string', enum: ['stream', 'local', 'test'], default: 'stream' },
    // The grammar bounds the length; any other string is the spec's one message, not a length or character one.
    device: { type: 'string', pattern: ALSA_DEVICE_PATTERN, 'x-pattern-message': 'must be a valid ALSA device path' },
    test_wave: { type: 'integer', minimum: 0, maximum: 12, default: 0 },
    codec2_mode: { type: 'integer', enum: CODEC2_MODES, default: 2400 },
    volume: { type: 'number', minimum: 0, maximum: 2, 'x-decimal': true },
    noise_filter: { type: 'boolean', default: true },
    noise_suppression: { type: 'boolean', default: true },
    noise_suppression_level: { type: 'integer', minimum: 1, maximum: 4, default: 2 },
    auto_gain_control: { type: 'boolean', default: true },
  },
};

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

export function pipelineSchema(codecs: string[]) {
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
      encoding: encodingSchema(codecs),
      output: outputSchema,
      audio: audioSchema,
      raw_pipeline: { type: 'string', minLength: 1, maxLength: 65536 },
      geolocation: geolocationSchema,
      ...Object.fromEntries(RESPONSE_ONLY.map((k) => [k, {}])),
    },
    // Multiview's codec is fixed by the spec (AV1), so only there may encoding leave it out (core/compose/multiview.ts).
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
