/**
 * The JS face of the native addon. Thin: no policy lives in C. Every error thrown (or rejected) from C is an
 * Error with a string `code` from NativeErrorCode. Callbacks are delivered on the JS thread through
 * thread-safe functions; N-API is never touched off the main thread.
 */
export type NativeErrorCode =
  | 'NG_ERR_ARG'          // a bad argument from JS (type, range)
  | 'NG_ERR_INIT'         // GStreamer could not be initialised
  | 'NG_ERR_PARSE'        // gst_parse_launch failed; message is GStreamer's
  | 'NG_ERR_STATE'        // a state change failed
  | 'NG_ERR_TIMEOUT'      // a state change did not complete in time
  | 'NG_ERR_NO_ELEMENT'   // no element of that name in the pipeline
  | 'NG_ERR_NO_PROPERTY'  // the element has no such property
  | 'NG_ERR_VALUE'        // the value cannot be converted to the property's type
  | 'NG_ERR_DESTROYED'    // the object was destroyed
  | 'NG_ERR_RTSP';        // the RTSP server could not bind or mount

export type GstState = 'void-pending' | 'null' | 'ready' | 'paused' | 'playing';

export type BusMessage =
  | { type: 'state-changed'; old: GstState; current: GstState; pending: GstState } // the pipeline's own only
  | { type: 'error'; source: string; message: string; debug: string }
  | { type: 'warning'; source: string; message: string; debug: string }
  | { type: 'eos' }
  | { type: 'element'; source: string; name: string; fields: Record<string, string | number | boolean> }
  | {
    type: 'sample'; sink: string; data: Buffer; pts: number /* ns, -1 when none */; dts?: number /* ns, -1 when none; the addon's only */;
    keyframe?: boolean /* no DELTA_UNIT flag */;
    /** The sample's negotiated caps as text (gst_caps_to_string), '' when it has none. */
    caps: string;
  };

export interface ElementInfo {
  name: string;
  factory: string;
  /** Readable properties of string, boolean, numeric and enum types, as strings. */
  properties: Record<string, string>;
}

export declare class Pipeline {
  /**
   * Parses description (gst_parse_launch). Throws NG_ERR_PARSE. onMessage gets every bus message, on the JS thread,
   * until destroy(): none arrives after it. A live Pipeline does not keep the Node process running by itself
   * (its thread-safe function is unref'd); a pending setState does, until it settles.
   */
  constructor(description: string, onMessage: (msg: BusMessage) => void);
  /**
   * Resolves with the state reached; rejects NG_ERR_STATE (with the first bus error since the call, if any),
   * NG_ERR_TIMEOUT, or NG_ERR_DESTROYED when destroy() comes first. Runs off the JS thread. A live pipeline
   * reaches 'playing' only when data reaches its sinks.
   */
  setState(state: 'null' | 'ready' | 'paused' | 'playing', timeoutMs: number): Promise<GstState>;
  /** The current state, queried from GStreamer without waiting. */
  getState(): GstState;
  /**
   * Sets a property from a JS value, converted to the property's GType: strings are parsed as gst-launch would
   * (enum nicks, flags "a+b", caps), numbers must fit (integral, in range) and are never clamped. Throws
   * NG_ERR_NO_ELEMENT, NG_ERR_NO_PROPERTY (also when not writable) or NG_ERR_VALUE.
   */
  setProperty(element: string, property: string, value: string | number | boolean): void;
  /** Numbers and booleans as such; strings, enum nicks, flags, fractions and caps as text; other types as null. */
  getProperty(element: string, property: string): string | number | boolean | null;
  /** Sends EOS into the pipeline (file outputs finalise); an 'eos' bus message follows. */
  sendEos(): void;
  /** Every element of the pipeline, recursing into bins. */
  elements(): ElementInfo[];
  /**
   * Pushes one buffer into the appsrc named appsrc; pts in ns, or -1 to let the appsrc timestamp it; dts in ns, none
   * when absent or -1. Throws NG_ERR_STATE when the appsrc refuses it (flushing, eos).
   */
  pushBuffer(appsrc: string, data: Buffer, ptsNs: number, dtsNs?: number): void;
  /**
   * The pipeline's running time now (clock time minus base time), in ns, as buffer timestamps count it; -1 while it
   * has no clock or is not going to PLAYING. With pushBuffer it stamps data ahead of now (the KLV pacer, docs/klv.md).
   */
  runningTime(): number;
  /** Delivers each sample of the appsink named sink as a 'sample' bus message. NG_ERR_ARG if an RtspServer feed uses that appsink. */
  watchSink(sink: string): void;
  /**
   * The appsink `sink` stops counting as a sink for the pipeline's end-of-stream, when another sink is beside it (a tap,
   * not an output). Call it once the pipeline plays: state changes go sinks first.
   */
  exemptFromEos(sink: string): void;
  /**
   * Sends an upstream force-key-unit event into the element: into its src pad, so an encoder acts on it and any
   * other element passes it upstream; a sink (no src pad) sends it upstream out of its sink pad. Naming the
   * encoder or anything downstream of it works.
   */
  forceKeyUnit(element: string): void;
  /**
   * Counts the buffers (and their bytes) that pass the pad of the element: a static pad or a request pad already
   * made. A pad probe, nothing added to the pipeline; idempotent. Call before PLAYING to count from the first buffer.
   * Throws NG_ERR_NO_ELEMENT, or NG_ERR_ARG when there is no such pad.
   */
  countBuffers(element: string, pad: string): void;
  /** The totals so far of a pad counted by countBuffers (NG_ERR_ARG when it is not counted). */
  counted(element: string, pad: string): { buffers: number; bytes: number };
  /** The names of the leaf sink elements (not bins), recursing into bins. */
  sinks(): string[];
  /** Buffers dropped for QoS: the sum over elements of the latest running total each posted in a QoS message. */
  qosDropped(): number;
  /**
   * GStreamer's latency query asked upstream of the sink named sink (source to that sink, ns); null when unanswered.
   * minNs/maxNs are -1 when unbounded.
   */
  latency(sink: string): { live: boolean; minNs: number; maxNs: number } | null;
  /**
   * What the bounded queue to the JS thread dropped since the pipeline was created: element messages and warnings
   * past 960 waiting (64 places stay for state changes, errors and EOS, of 1024), samples past 32 waiting; and how
   * many items wait now. Never blocks a streaming thread.
   */
  ipcDropped(): { messages: number; samples: number; queued: number };
  /** Sets NULL synchronously and frees everything. Safe while playing and safe to call twice. */
  destroy(): void;
}

export type RtspEvent =
  | { type: 'client-connected'; clients: number; address: string }
  | { type: 'client-closed'; clients: number }
  | { type: 'media-prepared'; path: string }
  | { type: 'media-unprepared'; path: string }
  | { type: 'play-request'; path: string };

export interface RtspFeed {
  /** Name of an appsink in the producer pipeline whose samples feed this stream. */
  appsink: string;
  /** What follows the appsrc inside the mount, ending in a payloader named payN, e.g. "h264parse ! rtph264pay name=pay0 pt=96". */
  launch: string;
}

export declare class RtspServer {
  /**
   * One GstRTSPServer bound to host:port, attached to the addon's main loop. Throws NG_ERR_RTSP if it cannot bind.
   * Events arrive on the JS thread until close(); none after it. A server alone does not keep Node running.
   */
  constructor(host: string, port: number, onEvent: (ev: RtspEvent) => void);
  /** The actual bound port (useful with port 0). */
  readonly port: number;
  /**
   * On-demand: a shared launch factory; the media is built at the first client and torn down after the last.
   * A keyframe is requested upstream of each payloader when a client plays. Throws NG_ERR_PARSE for a bad launch
   * line, NG_ERR_RTSP when path is mounted already, NG_ERR_ARG when path does not start with '/'.
   */
  mountLaunch(path: string, launch: string): void;
  /**
   * Always running: the producer pipeline runs on its own; each feed's appsink pushes into the mount's appsrc
   * (feed0, feed1, ...). A keyframe is requested upstream of each appsink when a media starts and when a client
   * plays. The appsinks become the feed's (max-buffers=2 drop=true sync=false) until unmount/close: NG_ERR_ARG
   * if one is missing, not an appsink, watched by watchSink or used by another feed. The mount does not keep the
   * producer alive: a Pipeline that nothing refers to is destroyed by its GC finalizer, and the mount's new media
   * then never preroll.
   */
  mountFeed(path: string, producer: Pipeline, feeds: RtspFeed[]): void;
  /** New clients get 404; sessions already playing keep their media, but a feed stops delivering to it. */
  unmount(path: string): void;
  clientCount(): number;
  /** Session-pool cleanup runs every few seconds on its own; this runs it now and returns how many were removed. */
  cleanupSessions(): number;
  /** Events dropped because the queue to the JS thread (1024) was full. */
  droppedEvents(): number;
  /** Closes every client and session, stops listening, frees the mounts. Idempotent; later calls throw NG_ERR_DESTROYED. */
  close(): void;
}

export interface DeviceCaps {
  media: string; // e.g. video/x-raw, image/jpeg
  format?: string;
  width?: number;
  height?: number;
  framerates: string[]; // e.g. ["30/1", "15/1"]
}

export interface DeviceInfo {
  name: string;
  deviceClass: string;
  path: string | null;  // device.path (V4L2) when present
  driver: string | null;
  caps: DeviceCaps[];
  properties: Record<string, string>;
}

export type DeviceEvent = { type: 'added'; device: DeviceInfo } | { type: 'removed'; device: DeviceInfo };

export declare class DeviceMonitor {
  /** classes e.g. ["Video/Source"]. Events for devices present at start arrive as 'added' too. */
  constructor(classes: string[], onEvent: (ev: DeviceEvent) => void);
  start(): DeviceInfo[];
  stop(): void;
  /** Events dropped because the queue to the JS thread (256) was full. */
  droppedEvents(): number;
}

/** gst_init, static registration of the encoderd elements, and the main-loop thread. Idempotent. */
export declare function init(): void;
/** GStreamer's version string, e.g. "GStreamer 1.22.0". */
export declare function gstVersion(): string;
/** Whether an element factory of that name is available. */
export declare function hasElement(factory: string): boolean;
/**
 * malloc_trim(0): hands the free pages of every glibc arena back to the system; true when some were. The pages a
 * pipeline's teardown frees otherwise stay in the process (docs/operations.md, "Memory over weeks").
 */
export declare function mallocTrim(): boolean;
/** glibc's mallinfo2() over every arena, in bytes: what the process has allocated, and what glibc holds for it. */
export declare function mallocStats(): { inUse: number; held: number };
/** mallopt(M_ARENA_MAX, n): at most n glibc arenas for threads that have none yet; true when glibc took it. */
export declare function mallocArenaMax(arenas: number): boolean;
/**
 * V8's LowMemoryNotification on the calling thread: collects all that can go, compacts, and releases the freed
 * pages of the JavaScript heap (N-API has no such call; native/src/v8-memory.cc). True when there was an isolate.
 */
export declare function v8LowMemory(): boolean;
/**
 * execv(path, args) with the process's environment as it is now: the process starts again, same pid. Returns only
 * on failure, throwing NG_ERR_EXEC with the errno's text (core/process-arenas.ts).
 */
export declare function execSelf(path: string, args: string[]): never;
