/** The shapes a plugin sees. Plugins import only from core/sdk; nothing here reaches into the core. */
import type { PropValue } from './quote';
import type { Transport } from './transport';

export interface SourceSpec {
  uri: string;
  latency_ms?: number;
}

export interface EncodingSpec {
  codec: string;
  bitrate: number;
  width: number;
  height: number;
  fps: number;
  quality: number;
  /**
   * The codec's own encoding parameters (CodecPlugin.parameters) by name, defaults filled in, when it declares any. In
   * the API they are fields of `encoding` (a video codec) or `audio` (an audio codec); the core gathers them here.
   */
  params?: Readonly<Record<string, CodecParamValue>>;
}

/** The value of a codec's own encoding parameter. */
export type CodecParamValue = number | string | boolean;

export interface OutputSpec {
  uri: string;
  network_interface?: string;
}

export interface AudioSpec {
  /** The audio codec plugin's `codec`; absent: the first audio codec registered (the built-ins come first). */
  codec?: string;
  source: 'stream' | 'local' | 'test';
  device?: string;
  test_wave: number;
  volume?: number;
  noise_filter: boolean;
  noise_suppression: boolean;
  noise_suppression_level: number;
  auto_gain_control: boolean;
  /** The audio codec's own encoding parameters (CodecPlugin.parameters), each a field of its own. */
  readonly [param: string]: unknown;
}

/**
 * Raw audio as an audio codec's encoder takes it (CodecPlugin.rawAudio), always interleaved. The core's audio chain
 * converts whatever the source gives to exactly this, so a codec is never handed a rate or layout it did not ask for,
 * and the chain's filters run at a rate near it (docs/audio.md).
 */
export interface RawAudioFormat {
  /** Samples per second (Codec2 8000, Opus 48000). */
  rate: number;
  channels: number;
  /** A GStreamer raw audio format: S16LE, F32LE, … */
  format: string;
}

/** A resource a pipeline holds while it is active; two active pipelines may not hold the same key. */
export interface Claim {
  /** The namespace of the key, e.g. "port", "udp-destination", "file", "camera". */
  resource: string;
  key: string;
  /** Names the resource for people, e.g. `UDP destination 127.0.0.1:5000`. */
  label: string;
  /** Also exclusive between the inputs of one pipeline (cameras). */
  exclusiveWithinPipeline?: boolean;
}

export interface ComposeContext {
  readonly pipelineId: string;
  /** A unique element name for a role inside this pipeline: name('enc') → "enc", then "enc2". */
  name(role: string): string;
  readonly settings: { readonly rtspLatencyMs: number };
  /**
   * The encoded caps media types of every registered video codec (e.g. video/x-h264). A source that passes a
   * stream through uses it to pick the video stream out of a demuxer that may also carry audio or KLV.
   */
  readonly encodedVideoCaps?: readonly string[];
  /**
   * This pipeline's own directory (`<data dir>/outputs/<pipeline id>`), for an output that writes files the service
   * serves (OutputPlugin.serves). The core makes it empty before each start and removes it on stop and delete; two
   * pipelines never share one. Absent only where nothing will run (a composition checked without a service).
   */
  readonly outputDir?: string;
}

/** What a source hands on: raw video (needs an encoder) or an encoded stream (can pass through). */
export type VideoStreamKind = 'raw' | 'encoded';

export interface SourceFragment {
  /** A chain whose last element's src pad yields the stream. */
  description: string;
  kind: VideoStreamKind;
  /** For an encoded stream of a known codec, the codec name; unknown passthrough is null. */
  codec?: string | null;
  /**
   * A separate pipeline the engine host runs beside the main one and builds again from scratch at each of its
   * end-of-streams, e.g. a looped media file handing decoded frames to the main pipeline through
   * intervideosink/intervideosrc (same process). The main pipeline never stops for it.
   */
  companion?: string;
  /**
   * Element messages (structure names) that mean the source has gone silent, e.g. a receive timeout. The core
   * treats them like a lost connection: it tells watchers and reconnects with backoff.
   */
  lossMessages?: string[];
  /** The stream ends by itself (a file played once): its end-of-stream is a normal end, not a lost source. */
  finite?: boolean;
  /**
   * When the source may carry KLV metadata: a pad reference (e.g. `dec.` for a demuxer's meta/x-klv pad) or a chain
   * starting from one and ending in KLV (`src. ! <RTP KLV caps> ! rtpklvdepay`). The core links it through a
   * meta/x-klv capsfilter, so no other pad of that element ever matches. A stream without KLV never links it.
   */
  klv?: string;
  /** The same as `klv`, but inside `companion`: a source read by its companion pipeline has its KLV there. */
  companionKlv?: string;
  /**
   * Only when fragment() was asked for audio: a chain yielding the source's own audio, decoded (audio/x-raw). It
   * either starts from an element of `description` by reference (`dec. ! …`, a demuxer's or decodebin's audio pad)
   * or is a source of its own (e.g. interaudiosrc fed by the companion). A stream without audio leaves it silent.
   */
  audio?: string;
  /** The network element that receives the stream (a transport's socket): its figures and errors (core/sdk/transport.ts). */
  transport?: Transport;
}

/** One stream arriving at an output: its codec plugin (null for an unknown passthrough) and media type. */
export interface OutputStream {
  media: 'video' | 'audio' | 'klv';
  codec: CodecInfo | null;
  /** The SDP format parameters of this stream (`a=fmtp:<pt> …`), from its codec's `rtp.fmtp`. */
  fmtp?: string;
}

/** What an output needs to know about a codec without naming it. */
export interface CodecInfo {
  readonly codec: string;
  readonly media: 'video' | 'audio' | 'klv';
  /** The encoded caps media type, e.g. video/x-h264. */
  readonly caps: string;
  /** Containers the codec can be muxed into: mpegts, matroska, mp4. */
  readonly containers: readonly string[];
  /** The RTP mapping: payloader description (ending in a payloader), depayloader, SDP name and clock rate. */
  readonly rtp: {
    readonly encodingName: string;
    readonly clockRate: number;
    /** The channels an audio stream's `a=rtpmap` names (`opus/48000/2`), when its payload format asks for them. */
    readonly channels?: number;
    payloader(ctx: ComposeContext, name: string, pt: number): string;
    depayloader(ctx: ComposeContext): string;
    /** The SDP format parameters for an encoding (`a=fmtp:<pt> <this>`), when the codec has any. */
    fmtp?(encoding: EncodingSpec): string | undefined;
  };
  /**
   * An audio codec's own words for the outputs that cannot carry it beside the video (core/sdk/stream-output.ts):
   * `muxedVideo` when the video goes as MPEG-TS and this codec has no MPEG-TS mapping; `muxOnly` over an output
   * that carries MPEG-TS only, `{output}` standing for the output's name; `recorded` by a file output whose container
   * has no mapping for it, `{ext}` standing for the file's extension. Absent: messages naming the codec.
   */
  readonly refusals?: { readonly muxedVideo?: string; readonly muxOnly?: string; readonly recorded?: string };
  /** The parser in front of a payloader or muxer (e.g. h264parse). */
  readonly parser: string;
  /**
   * What follows a passed-through stream of this codec, in front of the output (default: parser). It converts the
   * source's stream format to what the output's muxer or payloader takes, e.g. `h264parse config-interval=-1`, which
   * also repeats the parameter sets at each keyframe for receivers that join late.
   */
  readonly passthroughParser?: string;
}

export interface OutputFragment {
  /** Elements every stream links into (a muxer and sink), or '' when each stream ends on its own. */
  shared: string;
  /** For each stream in order, the chain appended after it (`queue ! mux.` or `... ! appsink name=x`). */
  streams: string[];
  /**
   * What the engine host must serve besides the pipeline (a local RTSP mount), each by its kind (docs/plugins.md,
   * "Host services"). At most one may build the media itself when a client arrives (`launch`, on demand).
   */
  services?: HostService[];
  /** The stream has a container that must be finalised with EOS on stop (files). */
  finaliseWithEos?: boolean;
  /** An SDP that describes the output, when it is RTP. */
  sdp?: string;
  /** The network element that sends the stream (a transport's socket): its figures and errors (core/sdk/transport.ts). */
  transport?: Transport;
  /**
   * With a KLV stream, how the engine host stamps it (docs/klv.md). `ahead` (the default): the output releases its
   * other streams only up to the KLV stream's latest time (a muxer that waits for every input, as 1.22's mpegtsmux
   * does), so KLV is kept a few hundred ms ahead at a steady rate. `due`: each stream goes out on its own (RTP
   * payloaders) and KLV is stamped with the time it is sent for; ahead, a syncing sink would hold the video behind it.
   */
  klvStamp?: 'ahead' | 'due';
}

/**
 * A service the engine host runs beside the pipeline, chosen by `kind` among the host's services
 * (core/engine/services/): the core passes it through without reading it, except `launch`. A service with `launch`
 * serves on demand: nothing runs until a client arrives, and it builds the media then from `launch`, which the core
 * fills with the whole pipeline description (the plugin leaves it ''). Its events reach the core as
 * `media-prepared` / `media-unprepared` (a client's media started, the last one ended), which drive an on-demand
 * pipeline's state.
 */
export interface HostService {
  kind: string;
  launch?: string;
  [field: string]: unknown;
}

/**
 * The `rtsp` host service: a local RTSP server on host:port serving path. `feed`: the running pipeline's appsinks
 * feed each client's media (`launch` of each feed: what follows its appsrc, ending in payloader payN); on demand
 * (`launch`): the whole description, built per client session.
 */
export type RtspService =
  | { kind: 'rtsp'; mode: 'feed'; host: string; port: number; path: string; feeds: Array<{ appsink: string; launch: string }> }
  | { kind: 'rtsp'; mode: 'launch'; host: string; port: number; path: string; launch: string };

/** A property change applied to a running element. */
export interface LiveChange {
  element: string;
  property: string;
  value: PropValue;
}
