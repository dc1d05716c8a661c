/**
 * The DASH output's segment retention (plugins/outputs/dash/retention.ts, pure) and its check hook, which deletes the
 * expired segments from the output directory it is handed (dashsink on 1.22 deletes none).
 */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import dash from '../../plugins/outputs/dash';
import { expiredSegments, keptSegments } from '../../plugins/outputs/dash/retention';

const seg = (n: number) => `video_0_${n}.ts`;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => seg(from + i));

describe('keptSegments', () => {
  it('keeps 30 s of segments, and at least 5', () => {
    expect([1, 2, 3, 4, 6, 7, 10].map(keptSegments)).toEqual([30, 15, 10, 8, 5, 5, 5]);
  });
});

describe('expiredSegments', () => {
  it('keeps the newest (being written) and `keep` behind it, by number, not by name order', () => {
    // Newest 14: 4..13 are the ten behind it; 1, 2 and 3 go.
    expect(expiredSegments(['index.mpd', ...range(1, 14)], 10)).toEqual([seg(1), seg(2), seg(3)]);
    expect(expiredSegments([seg(9), seg(10), seg(100)], 10)).toEqual([seg(9), seg(10)]);
  });

  it('deletes nothing while there are few, and never a name that is not a segment', () => {
    expect(expiredSegments([], 5)).toEqual([]);
    expect(expiredSegments(['index.mpd', seg(1), seg(6)], 5)).toEqual([]);
    expect(expiredSegments(['index.mpd', 'video_1_1.ts', 'video_0_1.mp4', 'x_video_0_1.ts', '.video_0_1.ts', 'video_0_1.ts.tmp', seg(50)], 5)).toEqual([]);
  });
});

describe('dash check', () => {
  it('deletes the expired segments from the directory it is handed, by the URI\'s segment duration, and reports no problem', () => {
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-dash-retention-'));
    for (const name of ['index.mpd', ...range(1, 40)]) writeFileSync(join(dir, name), '');
    // 2 s segments: 15 kept behind segment 40.
    expect(dash.check!({ uri: 'dash://?segment=2' }, dir)).toBeNull();
    expect(readdirSync(dir).sort()).toEqual(['index.mpd', ...range(25, 40)].sort());
    // 1 s segments: 30 kept, so nothing more goes.
    expect(dash.check!({ uri: 'dash://' }, dir)).toBeNull();
    expect(readdirSync(dir)).toHaveLength(17);
  });

  it('without a directory, with one that is gone, or with a URI it refuses, does nothing and reports no problem', () => {
    expect(dash.check!({ uri: 'dash://' })).toBeNull();
    expect(dash.check!({ uri: 'dash://' }, join(tmpdir(), 'encoderd-dash-no-such-dir'))).toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'encoderd-dash-retention-'));
    for (const name of range(1, 40)) writeFileSync(join(dir, name), '');
    expect(dash.check!({ uri: 'dash://?segment=0' }, dir)).toBeNull();
    expect(readdirSync(dir)).toHaveLength(40);
  });
});
