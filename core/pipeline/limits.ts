/**
 * A video encoding against what its codec plugin declares it can encode (CodecLimits). Pure: the validator asks it
 * at create, PUT and PATCH (and of a multiview encoding), so a size an encoder cannot do, or one that would take
 * gigabytes, is a 400 naming the field instead of a failed start.
 */
import type { CodecLimits, EncodingSpec } from '../sdk';

/** Messages naming the field (`encoding.width must be ...`); none when the encoding fits. */
export function limitProblems(codec: string, limits: CodecLimits | undefined, e: Pick<EncodingSpec, 'width' | 'height' | 'fps'>): string[] {
  if (!limits) return [];
  const errors: string[] = [];
  const range = (field: 'width' | 'height', min: number, max: number) => {
    const v = e[field];
    if (v < min || v > max) errors.push(`encoding.${field} must be between ${min} and ${max} for ${codec}`);
    else if (limits.evenDimensions && v % 2 !== 0) errors.push(`encoding.${field} must be even for ${codec} (4:2:0 chroma: the encoder cannot open an odd size)`);
  };
  range('width', limits.minWidth ?? 1, limits.maxWidth);
  range('height', limits.minHeight ?? 1, limits.maxHeight);
  if (e.fps > limits.maxFps) errors.push(`encoding.fps must be at most ${limits.maxFps} for ${codec}`);
  if (errors.length) return errors;
  const frame = e.width * e.height;
  if (frame > limits.maxFramePixels) {
    errors.push(`encoding.width × encoding.height (${e.width}×${e.height} = ${frame} pixels) must be at most ${limits.maxFramePixels} pixels for ${codec}`);
  } else if (frame * e.fps > limits.maxPixelRate) {
    errors.push(`encoding.width × encoding.height × encoding.fps (${frame * e.fps} pixels/s) must be at most ${limits.maxPixelRate} pixels/s for ${codec}`);
  }
  return errors;
}
