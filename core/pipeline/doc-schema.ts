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
    'x-examples': pipelineExamples(codecs, multiview, macro),
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

/**
 * One named example per mode (and the common variants of simple), each valid against the schema and accepted by the
 * validator: the conformance test creates those of test sources on a real service. The codecs are the registry's
 * (the first video codec, multiview's, the first macro's), so the core names none.
 */
function pipelineExamples(codecs: SchemaCodecs, multiview?: { codec: string; quality: number }, macro?: string): Record<string, { summary: string; value: object }> {
  const codec = codecs.video[0]?.codec;
  const examples: Record<string, { summary: string; value: object }> = {};
  if (codec) {
    examples.simple = {
      summary: `simple: a test pattern in ${codec}, served by the local RTSP server`,
      value: {
        id: 'test-pattern', mode: 'simple', source: { uri: 'test://ball' },
        encoding: { codec, bitrate: 1000, width: 1280, height: 720, fps: 30 }, output: { uri: 'rtsp://0.0.0.0:8554/test-pattern' },
      },
    };
  }
  examples.passthrough = {
    summary: 'simple without encoding: an RTSP camera passed through into a recording',
    value: { id: 'gate-recording', mode: 'simple', source: { uri: 'rtsp://192.0.2.10:554/stream1', latency_ms: 200 }, output: { uri: '/tmp/gate-recording.mkv' } },
  };
  if (codec && codecs.audio.length) {
    examples.audio = {
      summary: 'simple with audio: a camera and a microphone, served by the local RTSP server (video and audio as two streams)',
      value: {
        id: 'camera-1', mode: 'simple', source: { uri: 'file:///dev/video0' },
        encoding: { codec, bitrate: 800, width: 640, height: 480, fps: 25 },
        output: { uri: 'rtsp://0.0.0.0:8554/camera-1' },
        audio: { source: 'local', device: 'dsnoop:0,0' },
        geolocation: { latitude: 48.137, longitude: 11.575, altitude: 520, heading: 90 },
      },
    };
  }
  if (multiview) {
    examples.multiview = {
      summary: `multiview: two inputs side by side (${multiview.codec} at quality ${multiview.quality})`,
      value: {
        id: 'wall', mode: 'multiview',
        inputs: [
          { source: { uri: 'test://smpte' }, label: 'left', overlay: { text: 'Gate', timestamp: true } },
          { source: { uri: 'test://ball' }, label: 'right', transform: { mirror: true } },
        ],
        encoding: { bitrate: 1500, width: 1280, height: 720, fps: 25 }, output: { uri: 'udp://127.0.0.1:5006' },
      },
    };
  }
  examples.advanced = {
    summary: macro ? 'advanced: a test pattern through an encoder macro (put your own muxer and sink after it)' : 'advanced: a description of your own',
    value: {
      id: 'custom', mode: 'advanced',
      raw_pipeline: `videotestsrc is-live=true ! video/x-raw,width=640,height=360,framerate=25/1 ! ${macro ? `<svc:${macro} bitrate=800 /> ! ` : ''}fakesink`,
    },
  };
  return examples;
}

export const patchDocSchema = {
  'x-examples': {
    bitrate: { summary: 'Bitrate, applied live (no restart)', value: { encoding: { bitrate: 1500 } } },
    size: { summary: 'Size and rate: the pipeline restarts with them', value: { encoding: { width: 640, height: 360, fps: 25 } } },
    position: { summary: 'Geolocation, latitude and longitude', value: { geolocation: { latitude: 48.137, longitude: 11.575, altitude: 520 } } },
    mgrs: { summary: 'Geolocation as an MGRS grid reference', value: { geolocation: { mgrs: '32UPU8000080000', heading: 10 } } },
    remove: { summary: 'Remove the geolocation', value: { geolocation: null } },
  },
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
