/**
 * What every mode's composer shares: the settings it composes with, the context it hands plugins (unique element
 * names), the composed pipeline it returns and the pads the engine host measures. Pure, no I/O.
 */
import { join } from 'node:path';
import type { ComposeContext, HostService, OutputFragment, SourceFragment } from '../sdk';
import type { FramegrabElements } from '../framegrabs/branch';
import type { SideTransport } from '../engine/transports';

export interface ComposeSettings {
  rtspLatencyMs: number;
  /** Where each pipeline's own output directory lives (`<data dir>/outputs`; ComposeContext.outputDir). */
  outputsDir?: string;
}

/** A pipeline's own output directory (ComposeContext.outputDir): pipeline ids are plain names, so never a path. */
export function outputDirOf(outputsDir: string, pipelineId: string): string {
  return join(outputsDir, pipelineId);
}

export interface ComposedPipeline {
  description: string;
  services?: HostService[];
  finaliseWithEos: boolean;
  /** The element of the video encoder, for live changes. */
  encoderElement?: string;
  /** Licence features this pipeline uses when it encodes. */
  features: string[];
  /** The output's session description, when it is RTP (served at GET /svc/pipeline/{id}/sdp). */
  sdp?: string;
  /** Pipelines the engine host runs beside the main one, each rebuilt at its end-of-stream (a looped file). */
  companions?: string[];
  /** Element messages that mean the source went silent (see SourceFragment.lossMessages). */
  lossMessages?: string[];
  /** End-of-stream is the stream's natural end, not a lost source. */
  finite?: boolean;
  /** The framegrab branch's elements (core/framegrabs/branch.ts), closed until framegrabs start. */
  framegrab?: FramegrabElements;
  /** The appsrc that takes ST 0601 packets for the output's KLV stream, when the output carries KLV. */
  klvInjector?: string;
  /** How the output wants its KLV stamped (OutputFragment.klvStamp; absent: ahead). */
  klvStamp?: 'ahead' | 'due';
  /** The appsink that receives the source's KLV, when the source may carry it (in the companion when companionSinks has it). */
  klvSink?: string;
  /** For each companion, the appsinks in it the engine host watches (the source's KLV of a file read by one). */
  companionSinks?: string[][];
  /**
   * A valve the manager closes (`drop` true) just before it sends the end-of-stream that finalises a file, so only
   * whole frames reach the muxer: set when a passed-through stream is recorded (docs/dataplane.md, passthrough).
   */
  eosGate?: string;
  /**
   * Set when the pipeline passes a stream through and its codec is not known yet: `description` is then empty, and
   * this pipeline (the source's fragment ending in the appsink `sink`) runs until its first sample, whose caps name
   * the codec to compose again with (composeSimple's passthroughCodec; docs/dataplane.md).
   */
  probe?: { description: string; sink: string; transports?: SideTransport[] };
  /** Where the engine host measures the pipeline's statistics (core/pipeline/stats.ts). */
  meters?: Meters;
}

/** A pad of a named element: `sink`, `src` or a request pad made by the description (`sink_0`). */
export interface PadRef {
  element: string;
  pad: string;
}

/**
 * The pads the engine host counts buffers on, named by the composer (it names every element it measures). Every leaf
 * sink of the pipeline but internalSinks is the output: the bytes that reached the output are counted there.
 */
export interface Meters {
  /** Encoded video frames on their way to the output: the encoder's src pad (or the passed-through stream's). */
  frames?: PadRef;
  /** Frames the source delivered: the first pad after the source's fragment (or the compositor's output). */
  source?: PadRef;
  /** Multiview: each input's compositor pad, in input order. */
  inputs?: PadRef[];
  /** The videorate whose drop and duplicate counts are reported. */
  rate?: string;
  /** Sinks that are not the output (framegrabs, KLV extraction). */
  internalSinks: string[];
  /** The source's and the output's network elements (core/sdk/transport.ts): their figures, and context for their errors. */
  transports?: SideTransport[];
}

/** `{transports}` with the source's and output's declared transports, each with its side; `{}` when neither declares one. */
export function transportsOf(source: SourceFragment, output?: Pick<OutputFragment, 'transport'>): { transports?: SideTransport[] } {
  const all: SideTransport[] = [];
  if (source.transport) all.push({ ...source.transport, side: 'source' });
  if (output?.transport) all.push({ ...output.transport, side: 'output' });
  return all.length ? { transports: all } : {};
}

/** The sinks of a pipeline's side branches, which the output's byte count leaves out. */
export function internalSinks(c: Pick<ComposedPipeline, 'framegrab' | 'klvSink'>): string[] {
  return [c.framegrab?.sink, c.klvSink].filter((s): s is string => Boolean(s));
}

export function composeContext(pipelineId: string, settings: ComposeSettings, encodedVideoCaps: readonly string[] = []): ComposeContext {
  const used = new Map<string, number>();
  return {
    pipelineId,
    settings,
    encodedVideoCaps,
    outputDir: settings.outputsDir === undefined ? undefined : outputDirOf(settings.outputsDir, pipelineId),
    name(role: string) {
      const n = (used.get(role) ?? 0) + 1;
      used.set(role, n);
      return n === 1 ? role : `${role}${n}`;
    },
  };
}

export class ComposeError extends Error {}

/**
 * The output's own validation refused the codec a probe found in a passed-through source: `errors` are the output's
 * messages, each naming its field (e.g. `output.uri`). A mistake in the definition, known only once the source is
 * opened (the manager answers it as one: docs/api.md, passthrough).
 */
export class CodecRefusedError extends ComposeError {
  constructor(readonly codec: string, readonly errors: string[]) {
    super(`the source's video is ${codec}: ${errors.join('; ')}`);
  }
}

