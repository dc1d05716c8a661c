/**
 * The core never names a protocol a plugin provides (issue 13): every SRT, RTMP, HLS and DASH behaviour lives under
 * plugins/, reached through the SDK's generic extension points. A word in a comment counts too: a core that needs
 * the name to explain itself has not been made generic.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(__dirname, '../..');
const NAMES = /\b(srt|rtmps?|hls|dash|srtsink|srtsrc|rtmp2sink|flvmux|hlssink2|dashsink)\b/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

it('core/ names none of srt, rtmp, hls, dash or their elements', () => {
  const found = files(join(ROOT, 'core')).flatMap((file) => readFileSync(file, 'utf8').split('\n')
    .map((line, i) => ({ where: `${relative(ROOT, file)}:${i + 1}`, line }))
    .filter(({ line }) => NAMES.test(line)));
  expect(found).toEqual([]);
});
