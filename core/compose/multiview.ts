/**
 * Multiview mode (spec: Multiview input object; design §4): up to four inputs composed into one picture by a
 * compositor and encoded with the codec the spec fixes, which its plugin declares (CodecPlugin.multiview). Pure: definition → description, golden-tested in
 * test/multiview/compose.test.ts. Decisions (layout, letterboxing, the order of the per-input stages, how rotate and
 * mirror combine) are written down in docs/multiview.md.
 */
import { caps, element, gstInt, type CodecPlugin, type ComposeContext, type EncodingSpec, type SourceFragment } from '../sdk';
import type { PluginRegistry } from '../plugins/registry';
import type { MultiviewInput, PipelineDefinition } from '../pipeline/model';
import { composeContext, ComposeError, internalSinks, type ComposedPipeline, type ComposeSettings } from './context';
import { framegrabBranch } from '../framegrabs/branch';
import { videoEncoding } from './codecs';
import { outputTail } from './tail';

export interface Cell {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The spec's automatic layout: 1 input full frame, 2 side by side, 3 or 4 a 2×2 grid (a missing 4th cell stays
 * the compositor's black background). Cells tile the frame exactly; an odd size gives the right or lower cell the
 * extra pixel.
 */
export function multiviewLayout(inputs: number, width: number, height: number): Cell[] {
  const left = Math.floor(width / 2);
  const top = Math.floor(height / 2);
  if (inputs === 1) return [{ x: 0, y: 0, width, height }];
  if (inputs === 2) return [{ x: 0, y: 0, width: left, height }, { x: left, y: 0, width: width - left, height }];
  const grid = [
    { x: 0, y: 0, width: left, height: top },
    { x: left, y: 0, width: width - left, height: top },
    { x: 0, y: top, width: left, height: height - top },
    { x: left, y: top, width: width - left, height: height - top },
  ];
  return grid.slice(0, inputs);
}

/** Why a layout cannot be drawn at this size, or null when every cell has at least one pixel. */
export function layoutProblem(inputs: number, width: number, height: number): string | null {
  const columns = inputs === 1 ? 1 : 2;
  const rows = inputs <= 2 ? 1 : 2;
  if (width < columns) return `encoding.width must be at least ${columns} for ${inputs} inputs`;
  if (height < rows) return `encoding.height must be at least ${rows} for ${inputs} inputs`;
  return null;
}

/**
 * videoflip's video-direction for rotate (clockwise degrees) then mirror (left↔right of the rotated picture):
 * mirroring after a quarter turn is a flip across a diagonal. (1.22's deprecated `method` property is not applied
 * when set from a description, so video-direction it is; docs/multiview.md.)
 */
export function flipDirection(rotate = 0, mirror = false): string | undefined {
  const plain: Record<number, string | undefined> = { 0: undefined, 90: '90r', 180: '180', 270: '90l' };
  const mirrored: Record<number, string> = { 0: 'horiz', 90: 'ul-lr', 180: 'vert', 270: 'ur-ll' };
  return mirror ? mirrored[rotate] : plain[rotate];
}

/** Text size for a cell: readable in a 120-pixel cell, not overwhelming in a full 720p frame. */
export function fontSize(cellHeight: number): number {
  return Math.max(6, Math.round(cellHeight / 16));
}

/** textoverlay's own padding (25 pixels) would push a label halfway down a small cell: a margin in proportion instead. */
export function textMargin(cellHeight: number): number {
  return Math.max(2, Math.round(cellHeight / 40));
}

function textProps(cell: Cell) {
  const margin = textMargin(cell.height);
  return {
    'font-desc': `Sans ${fontSize(cell.height)}`, 'auto-resize': false, 'shaded-background': true,
    halignment: 'left', 'line-alignment': 'left', xpad: margin, ypad: margin,
  };
}

/**
 * One input's chain from its decoded source to the compositor pad: crop the source's own edges, turn it, take
 * the colour out, fit it into the cell keeping its aspect ratio (videoscale adds the borders because the cell caps
 * fix a square pixel aspect), then draw the texts at the cell's size so they stay readable.
 */
function inputChain(input: MultiviewInput, sf: SourceFragment, cell: Cell, pad: string, ctx: ComposeContext): string {
  const stages = [sf.description, 'queue', 'videoconvert'];
  const crop = input.crop;
  if (crop && (crop.top || crop.right || crop.bottom || crop.left)) {
    stages.push(element('videocrop', { name: ctx.name('crop'), top: crop.top ?? 0, right: crop.right ?? 0, bottom: crop.bottom ?? 0, left: crop.left ?? 0 }));
  }
  const direction = flipDirection(input.transform?.rotate, input.transform?.mirror);
  if (direction) stages.push(element('videoflip', { name: ctx.name('flip'), 'video-direction': direction }));
  if (input.transform?.grayscale) stages.push(element('videobalance', { name: ctx.name('gray'), saturation: 0 }));
  stages.push('videoscale', caps('video/x-raw', { width: cell.width, height: cell.height, 'pixel-aspect-ratio': '1/1' }));
  if (input.label) stages.push(element('textoverlay', { name: ctx.name('label'), text: input.label, valignment: 'top', ...textProps(cell) }));
  const text = input.overlay?.text;
  if (input.overlay?.timestamp) {
    // clockoverlay draws its `text` before the time, so one element carries both (wall clock of the service's zone).
    stages.push(element('clockoverlay', { name: ctx.name('clock'), text, 'time-format': '%Y-%m-%d %H:%M:%S', valignment: 'bottom', ...textProps(cell) }));
  } else if (text) {
    stages.push(element('textoverlay', { name: ctx.name('text'), text, valignment: 'bottom', ...textProps(cell) }));
  }
  return `${stages.join(' ! ')} ! ${pad}`;
}

/** The compositor with each sink pad's position as a pad property (`sink_N::xpos=…`, read by the description parser). */
function compositor(name: string, cells: Cell[]): string {
  const pads = cells.map((c, i) => `sink_${i}::xpos=${gstInt(c.x)} sink_${i}::ypos=${gstInt(c.y)}`);
  return [element('compositor', { name, background: 'black' }), ...pads].join(' ');
}

/** The encoding multiview runs with: the definition's size, rate and bitrate, the spec's codec and quality. */
export function multiviewEncoding(encoding: EncodingSpec | undefined, codec: CodecPlugin): EncodingSpec {
  if (!encoding) throw new ComposeError('multiview needs an encoding');
  return videoEncoding({ ...encoding, codec: codec.codec, quality: codec.multiview!.quality }, codec);
}

/** Multiview: every input decoded and fitted into its cell → compositor → the output size → the encoder → output. */
export function composeMultiview(def: PipelineDefinition, registry: PluginRegistry, settings: ComposeSettings): ComposedPipeline {
  const ctx = composeContext(def.id, settings, registry.codecs('video').map((c) => c.caps));
  const inputs = def.inputs ?? [];
  if (inputs.length < 1 || inputs.length > 4) throw new ComposeError('multiview takes 1 to 4 inputs');
  const output = def.output && registry.output(def.output.uri);
  if (!def.output || !output) throw new ComposeError('no output plugin accepts output.uri');
  const codec = registry.multiviewCodec();
  if (!codec) throw new ComposeError('multiview needs a video codec plugin that declares multiview, and none is installed');
  const enc = multiviewEncoding(def.encoding, codec);
  const problem = layoutProblem(inputs.length, enc.width, enc.height);
  if (problem) throw new ComposeError(problem);

  const cells = multiviewLayout(inputs.length, enc.width, enc.height);
  const mix = ctx.name('mix');
  const fragments = inputs.map((input, i) => {
    const source = registry.source(input.source.uri);
    if (!source) throw new ComposeError(`no source plugin accepts inputs[${i}].source.uri`);
    return source.fragment(input.source, ctx, { decode: true });
  });
  const chains = inputs.map((input, i) => inputChain(input, fragments[i], cells[i], `${mix}.sink_${i}`, ctx));

  const encoder = codec.encoder(enc, ctx);
  let chain = `${compositor(mix, cells)} ! ${caps('video/x-raw', { width: enc.width, height: enc.height, framerate: `${enc.fps}/1`, 'pixel-aspect-ratio': '1/1' })}`;
  // Framegrabs take the composed frames before the encoder; an on-demand pipeline runs inside the RTSP server, out of reach.
  const framegrab = def.on_demand ? undefined : framegrabBranch(ctx);
  if (framegrab) chain += ` ! ${framegrab.tee}`;
  chain += ` ! queue ! ${encoder.description}`;

  const { composed } = outputTail({
    output, spec: def.output, ctx, onDemand: def.on_demand, video: { chain, codec }, feeds: chains, framegrab,
  });
  const companions = fragments.flatMap((f) => (f.companion ? [f.companion] : []));
  const lossMessages = [...new Set(fragments.flatMap((f) => f.lossMessages ?? []))];
  return {
    ...composed, encoderElement: encoder.element, features: [codec.licenceFeature],
    ...(companions.length ? { companions } : {}),
    ...(lossMessages.length ? { lossMessages } : {}),
    // The compositor ends only when every input has ended.
    finite: fragments.every((f) => f.finite),
    framegrab: framegrab?.elements,
    meters: {
      frames: { element: encoder.element, pad: 'src' },
      source: { element: mix, pad: 'src' },
      inputs: inputs.map((_, i) => ({ element: mix, pad: `sink_${i}` })),
      internalSinks: internalSinks({ framegrab: framegrab?.elements }),
    },
  };
}
