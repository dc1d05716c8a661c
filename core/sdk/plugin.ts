/**
 * The plugin contract. A plugin is a value made with definePlugin: no side effects on import; everything it
 * contributes is declared here and read by the core's registry. Misuse fails at startup with the plugin's
 * name in the message.
 */
import type {
  AudioSpec, Claim, CodecInfo, CodecParamValue, ComposeContext, EncodingSpec, LiveChange, OutputFragment, OutputSpec, OutputStream,
  RawAudioFormat, SourceFragment, SourceSpec,
} from './types';

interface PluginBase {
  name: string;
  version: string;
  description?: string;
}

/** Everything a validator can see of the pipeline being checked. */
export interface PipelineView {
  id: string;
  mode: string;
  on_demand: boolean;
  source?: SourceSpec;
  encoding?: EncodingSpec;
  output?: OutputSpec;
  audio?: AudioSpec;
  /** With `audio`, the codec that will encode it, so an output can tell whether it carries it. */
  audioCodec?: CodecInfo;
}

/**
 * Sample URIs the plugin compliance suite drives the plugin with (test/plugins/compliance.test.ts): every `valid`
 * URI is accepted, validates without messages and composes into a description GStreamer parses; every `invalid`
 * one is accepted but refused by validate with at least one message. Sources and outputs must declare them.
 */
export interface PluginExamples {
  valid: readonly string[];
  invalid: readonly string[];
}

/** An element of a parsed pipeline (the engine host's inspect): its readable properties as text. */
export interface ParsedElement {
  name: string;
  factory: string;
  properties: Record<string, string>;
}

export interface SourcePlugin extends PluginBase {
  kind: 'source';
  examples?: PluginExamples;
  /** Whether this plugin handles the URI. The registry asks plugins in order; the first to accept wins. */
  accepts(uri: string): boolean;
  /** Messages naming the field, e.g. `source.uri must ...`. */
  validate(source: SourceSpec, pipeline: PipelineView): string[];
  /** Raw sources (test patterns, cameras) always need an encoding; others may pass through. */
  producesRawOnly: boolean;
  /** Whether the stream carries audio that `audio.source = stream` can take. */
  mayCarryAudio: boolean;
  /**
   * Names for the coded formats a device of this kind offers, by caps media type (`image/jpeg` → `MJPEG`): the
   * `format` of GET /svc/cameras for what is not raw video. Absent: none.
   */
  deviceFormats?: Readonly<Record<string, string>>;
  claims(source: SourceSpec): Claim[];
  /**
   * Advanced mode: the resources an element of a parsed raw pipeline holds, when it is one of this plugin's kind
   * (a UDP output reads `udpsink` and `multiudpsink`): keyed like claims(), so an advanced pipeline and a simple one
   * conflict with each other. Asked for every element, recursing into bins; [] for an element it does not know.
   * Absent: advanced pipelines hold nothing of this plugin's.
   */
  elementClaims?(element: ParsedElement): Claim[];
  /**
   * The secrets inside a URI this plugin accepts (a transport's passphrase, a push output's stream key): each returned substring of
   * uri is sealed at rest, shown as "***" in every response and never written to a log. Absent: none.
   */
  secrets?(uri: string): string[];
  /**
   * What must exist on this machine for the source to start (a camera's device node): messages naming `source.*`.
   * Asked at create and PUT, not when a stored pipeline is restored (a camera may be plugged in later; its start
   * fails and is retried like any lost source). Absent: nothing to check.
   */
  present?(source: SourceSpec): string[];
  /**
   * decode = true asks for raw video; false asks for the stream as it is (passthrough). audio = true (only with
   * decode, only when mayCarryAudio) asks for the stream's own audio as well: SourceFragment.audio. With it,
   * audioFormat is the raw audio the pipeline's audio codec takes (its `rawAudio`): a source that must fix its
   * audio's caps, such as a hand-over between pipelines, fixes them to this, so nothing narrower than the codec's
   * format stands in the way (rawAudioCaps). A decoder's pad needs nothing: the core's chain converts.
   */
  fragment(source: SourceSpec, ctx: ComposeContext, opts: { decode: boolean; audio?: boolean; audioFormat?: RawAudioFormat }): SourceFragment;
}

export interface MacroAttribute {
  /** Integer attribute bounds, or an explicit list of allowed values. */
  min?: number;
  max?: number;
  oneOf?: readonly number[];
  default: number;
}

/**
 * What a video codec can really encode (docs/plugins.md, "Limits"). The core refuses anything beyond them with
 * 400 VALIDATION_ERROR at create, PUT and PATCH, before an encoder is asked: an encoder given a size it cannot do
 * fails only at start, and one given a huge size takes gigabytes first.
 */
export interface CodecLimits {
  /** The encoder's own smallest picture (x265enc takes 16, av1enc 4). Default 1. */
  minWidth?: number;
  minHeight?: number;
  maxWidth: number;
  maxHeight: number;
  /** The largest picture, width × height: what bounds an encoder's memory. */
  maxFramePixels: number;
  maxFps: number;
  /** The largest width × height × fps: what bounds its CPU. */
  maxPixelRate: number;
  /** Width and height must be even (4:2:0 chroma in encoders that do not pad: x264, x265). */
  evenDimensions?: boolean;
}

/**
 * One encoding parameter a codec adds to the API: a field of `encoding` (video codec) or `audio` (audio codec),
 * described by a JSON-schema fragment of one value. The API's schema and its OpenAPI document include it; a bad value
 * is refused with the schema's message (`audio.codec2_mode must be one of 3200, 2400, …`); `default` fills it in when
 * this codec is the one chosen. Name it after the codec (`codec2_mode`): the names of every codec of a medium share
 * one object.
 */
export interface CodecParameter {
  type: 'integer' | 'number' | 'string' | 'boolean';
  description?: string;
  enum?: readonly (number | string)[];
  minimum?: number;
  maximum?: number;
  default?: CodecParamValue;
}

export interface CodecPlugin extends PluginBase, CodecInfo {
  kind: 'codec';
  /** The codec's own encoding parameters, by field name (docs/plugins.md, "Encoding parameters"); they reach encoder() in `encoding.params`. */
  parameters?: Readonly<Record<string, CodecParameter>>;
  /**
   * This video codec is the one multiview mode encodes with (the spec fixes multiview's codec and quality), at this
   * quality. At most one codec plugin declares it; without one, multiview bodies are refused.
   */
  multiview?: { quality: number };
  /**
   * What a video codec can encode. Absent: only the schema's ranges and validate() bound a request, so declare it
   * (a vendor plugin of before it was added still loads).
   */
  limits?: CodecLimits;
  /** The licence feature that must be granted to encode with this codec. */
  licenceFeature: string;
  /** Encoding parameters that can change on a running encoder without a rebuild. */
  liveParams: readonly string[];
  /**
   * The shortest time (ms) between two live changes reaching a running encoder, for an encoder whose every change
   * is costly (x265enc re-opens libx265: a keyframe, a burst, memory libx265 keeps). The first change applies at
   * once; changes inside the interval are held and the latest value applied when it ends (docs/plugins.md).
   * Absent: every change applies at once.
   */
  liveChangeIntervalMs?: number;
  /** Extra validation of encoding (video) beyond the core's field rules. */
  validate?(encoding: EncodingSpec): string[];
  /**
   * An audio codec's input: the raw audio its encoder takes. Required of every audio codec (definePlugin checks it):
   * the core's audio chain converts to it and runs its filters at a rate near it (docs/audio.md), so a wide-band codec
   * gets wide-band audio and a speech codec is not handed more than it codes.
   */
  rawAudio?: RawAudioFormat;
  /**
   * Raw I420 (video), or raw audio in exactly the codec's `rawAudio` format (audio), in; a parsed encoded stream out.
   * `element` is the encoder's name.
   */
  encoder(encoding: EncodingSpec, ctx: ComposeContext): { description: string; element: string };
  /** The property changes that apply param=value to the running encoder named element. */
  liveChange(param: string, value: number, element: string): LiveChange[];
  /** The macro `<svc:NAME attr=.. />` this codec answers to in advanced mode. */
  macro?: {
    tag: string;
    attributes: Record<string, MacroAttribute>;
    expand(attrs: Record<string, number>, ctx: ComposeContext): string;
  };
}

export interface OutputPlugin extends PluginBase {
  kind: 'output';
  examples?: PluginExamples;
  accepts(uri: string): boolean;
  /** `pipeline.audio` set means a second stream (audio of `pipeline.audioCodec`) will arrive: refuse it here if the output cannot carry it. */
  validate(output: OutputSpec, pipeline: PipelineView, codec: CodecInfo | null): string[];
  claims(output: OutputSpec): Claim[];
  /**
   * Advanced mode: the resources an element of a parsed raw pipeline holds, when it is one of this plugin's kind
   * (a UDP output reads `udpsink` and `multiudpsink`): keyed like claims(), so an advanced pipeline and a simple one
   * conflict with each other. Asked for every element, recursing into bins; [] for an element it does not know.
   * Absent: advanced pipelines hold nothing of this plugin's.
   */
  elementClaims?(element: ParsedElement): Claim[];
  /**
   * The secrets inside a URI this plugin accepts (a transport's passphrase, a push output's stream key): each returned substring of
   * uri is sealed at rest, shown as "***" in every response and never written to a log. Absent: none.
   */
  secrets?(uri: string): string[];
  /** Whether `on_demand: true` is allowed with this output. */
  supportsOnDemand: boolean;
  /**
   * Whether this output can carry a KLV stream (an OutputStream of media 'klv', the last stream) beside video of
   * this codec; absent means it cannot. The engine host keeps that stream fed (core/klv/pacer.ts, docs/klv.md).
   */
  carriesKlv?(output: OutputSpec, video?: CodecInfo | null): boolean;
  fragment(output: OutputSpec, streams: OutputStream[], ctx: ComposeContext, opts: { onDemand: boolean }): OutputFragment;
  /**
   * A problem the data plane cannot see, asked once a second while the pipeline plays (a recording's file deleted or
   * its directory removed: the filesink keeps writing into a file nobody can reach). A message means the output is
   * lost: the pipeline reports it and recovers as from a lost source (docs/api.md, "Health"). Absent: never.
   * `outputDir` is the pipeline's own output directory (ComposeContext.outputDir) when it has one: an output whose
   * element never deletes what it writes there (a segmenter without a file limit) trims it here.
   */
  check?(output: OutputSpec, outputDir?: string): string | null;
  /**
   * Files this output writes into its pipeline's `ctx.outputDir` that the service serves, under the API's
   * authentication, at `GET /svc/pipeline/{id}/{path}/{file}` (docs/plugins.md, "Serving files"). Absent: none.
   */
  serves?: ServedFiles;
}

/** What an output plugin lets the service serve from its pipeline's output directory. */
export interface ServedFiles {
  /** The route segment after the pipeline id (`/svc/pipeline/{id}/<path>/<file>`): lower-case letters, digits and `-`. */
  path: string;
  /**
   * The file names served: the whole name must match (no `g` or `y` flag). Whatever it says, only plain names are
   * served (letters, digits, `.`, `_`, `-`, not starting with `.`): never a path, never another pipeline's file.
   */
  files: RegExp;
  /** The Content-Type of a served file. */
  contentType(file: string): string;
}

export type Plugin = SourcePlugin | CodecPlugin | OutputPlugin;
export type PluginKind = Plugin['kind'];

const REQUIRED: Record<PluginKind, string[]> = {
  source: ['accepts', 'validate', 'claims', 'fragment'],
  codec: ['codec', 'caps', 'parser', 'encoder', 'liveChange', 'licenceFeature'],
  output: ['accepts', 'validate', 'claims', 'fragment'],
};

/** Checks a plugin's shape and freezes it. Throws with the plugin's name when something is missing. */
export function definePlugin<T extends Plugin>(plugin: T): Readonly<T> {
  const name = typeof plugin?.name === 'string' && plugin.name ? plugin.name : '(unnamed)';
  const fail = (why: string): never => {
    throw new Error(`plugin "${name}": ${why}`);
  };
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) fail('name must be lower-case letters, digits, ".", "_" or "-"');
  if (!plugin.kind || !(plugin.kind in REQUIRED)) fail(`kind must be one of ${Object.keys(REQUIRED).join(', ')}`);
  if (typeof plugin.version !== 'string' || !plugin.version) fail('version is required');
  for (const key of REQUIRED[plugin.kind]) {
    if ((plugin as unknown as Record<string, unknown>)[key] === undefined) fail(`${plugin.kind} plugins must provide "${key}"`);
  }
  if (plugin.kind === 'codec' && plugin.limits !== undefined) checkLimits(plugin.limits, fail);
  if (plugin.kind === 'codec' && plugin.liveChangeIntervalMs !== undefined
    && (!Number.isInteger(plugin.liveChangeIntervalMs) || plugin.liveChangeIntervalMs < 1)) {
    fail('liveChangeIntervalMs must be a positive integer (milliseconds)');
  }
  if (plugin.kind === 'codec' && plugin.parameters !== undefined) checkParameters(plugin.parameters, fail);
  if (plugin.kind === 'codec' && plugin.media === 'audio') checkRawAudio(plugin.rawAudio, fail);
  if (plugin.kind === 'codec' && plugin.multiview !== undefined && !Number.isInteger(plugin.multiview?.quality)) fail('multiview.quality must be an integer');
  if (plugin.kind !== 'codec' && plugin.secrets !== undefined && typeof plugin.secrets !== 'function') fail('secrets must be a function');
  if (plugin.kind === 'output' && plugin.serves !== undefined) checkServes(plugin.serves, fail);
  return Object.freeze(plugin);
}

const PARAMETER_TYPES = ['integer', 'number', 'string', 'boolean'];

function checkParameters(parameters: Readonly<Record<string, CodecParameter>>, fail: (why: string) => never): void {
  if (!parameters || typeof parameters !== 'object') fail('parameters must be an object (docs/plugins.md, "Encoding parameters")');
  for (const [name, p] of Object.entries(parameters)) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) fail(`parameter "${name}": its name must be lower-case letters, digits or "_"`);
    if (!p || !PARAMETER_TYPES.includes(p.type)) fail(`parameter "${name}": type must be one of ${PARAMETER_TYPES.join(', ')}`);
    if (p.enum !== undefined && (!Array.isArray(p.enum) || p.enum.length === 0)) fail(`parameter "${name}": enum must be a non-empty array`);
    if (p.default !== undefined && p.enum !== undefined && !p.enum.includes(p.default as number | string)) fail(`parameter "${name}": default must be one of its enum`);
  }
}

function checkRawAudio(raw: RawAudioFormat | undefined, fail: (why: string) => never): void {
  if (!raw || typeof raw !== 'object') fail('audio codec plugins must provide "rawAudio": the raw audio their encoder takes, {rate, channels, format} (docs/plugins.md, "Audio codecs")');
  if (!Number.isInteger(raw.rate) || raw.rate < 1) fail('rawAudio.rate must be a positive integer (samples per second)');
  if (!Number.isInteger(raw.channels) || raw.channels < 1) fail('rawAudio.channels must be a positive integer');
  if (typeof raw.format !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(raw.format)) fail('rawAudio.format must be a GStreamer raw audio format, e.g. S16LE');
}

function checkLimits(limits: CodecLimits, fail: (why: string) => never): void {
  if (!limits || typeof limits !== 'object') fail('limits must be an object (docs/plugins.md, "Limits")');
  for (const key of ['maxWidth', 'maxHeight', 'maxFramePixels', 'maxFps', 'maxPixelRate', 'minWidth', 'minHeight'] as const) {
    const v = limits[key];
    if (v === undefined && (key === 'minWidth' || key === 'minHeight')) continue;
    if (!Number.isInteger(v) || (v as number) < 1) fail(`limits.${key} must be a positive integer`);
  }
}

function checkServes(serves: ServedFiles, fail: (why: string) => never): void {
  if (typeof serves?.path !== 'string' || !/^[a-z][a-z0-9-]{0,31}$/.test(serves.path)) fail('serves.path must be lower-case letters, digits or "-"');
  // A g or y flag makes test() remember where it stopped: the same name would be served, then refused.
  if (!(serves.files instanceof RegExp) || /[gy]/.test(serves.files.flags)) fail('serves.files must be a RegExp without the g or y flag');
  if (typeof serves.contentType !== 'function') fail('serves.contentType must be a function');
}
