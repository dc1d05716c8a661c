// dtsguard (native/src/elements/dtsguard.c), the relay's timing guard for passed-through streams: through the addon,
// appsrc buffers with crafted DTS/PTS → dtsguard → appsink. A DTS at or before the previous one moves to 1 ms after
// it, a PTS moves with it only when it would fall below the new DTS, and a stream already increasing passes untouched.
// docs/dataplane.md, passthrough, "Timing".
import { describe, expect, it } from 'vitest';
import { livePipelines, native, sleep } from '../helpers/native';

const live = livePipelines();
const MS = 1_000_000;

interface Stamp { pts: number; dts: number }

/** Pushes the stamps through dtsguard and returns what the appsink got, with the element's count of corrections. */
async function guard(stamps: Array<{ pts: number; dts?: number }>, props = ''): Promise<{ out: Stamp[]; corrected: number }> {
  const out: Stamp[] = [];
  const p = new native.Pipeline(
    `appsrc name=in format=time caps=application/x-test ! dtsguard name=guard ${props} ! appsink name=out sync=false`,
    (m) => { if (m.type === 'sample') out.push({ pts: m.pts, dts: m.dts ?? Number.NaN }); },
  );
  live.push(p);
  p.watchSink('out');
  // Not live: the pipeline prerolls on the first buffer, so the buffers go in before PLAYING is awaited.
  const playing = p.setState('playing', 5000);
  for (const s of stamps) p.pushBuffer('in', Buffer.from('x'), s.pts, s.dts ?? -1);
  await playing;
  for (let i = 0; i < 200 && out.length < stamps.length; i++) await sleep(10);
  return { out, corrected: p.getProperty('guard', 'corrected') as number };
}

function expectIncreasing(out: Stamp[], stepNs = MS): void {
  for (let i = 1; i < out.length; i++) expect(out[i].dts - out[i - 1].dts, `step ${i}`).toBeGreaterThanOrEqual(stepNs);
  for (const s of out) expect(s.pts).toBeGreaterThanOrEqual(s.dts);
}

describe('dtsguard', () => {
  it('passes a stream whose DTS already increase untouched, B-frame reordering included', async () => {
    const period = 66_666_667;
    // Decode order I P B B P with PTS ahead of DTS by two periods, and a step of exactly 1 ms between the last two.
    const stamps = [
      { dts: 0, pts: 2 * period }, { dts: period, pts: 5 * period }, { dts: 2 * period, pts: 3 * period },
      { dts: 3 * period, pts: 4 * period }, { dts: 4 * period, pts: 8 * period }, { dts: 4 * period + MS, pts: 9 * period },
    ];
    const { out, corrected } = await guard(stamps);
    expect(out).toEqual(stamps);
    expect(corrected).toBe(0);
  });

  it('moves a repeated or backward DTS to 1 ms after the previous one, and the PTS only where it would fall below it', async () => {
    const { out, corrected } = await guard([
      { dts: 100 * MS, pts: 100 * MS },
      { dts: 100 * MS, pts: 100 * MS }, // repeated: both move to 101 ms
      { dts: 90 * MS, pts: 200 * MS }, // backward, but its PTS is still ahead of the new DTS: the PTS stays
      { dts: 80 * MS, pts: 80 * MS }, // backward by 22 ms: both move by 23 ms
      { dts: 102.5 * MS, pts: 102.5 * MS }, // less than 1 ms after the moved one: moved too
      { dts: 300 * MS, pts: 300 * MS }, // ahead again: untouched
    ]);
    expect(out).toEqual([
      { dts: 100 * MS, pts: 100 * MS },
      { dts: 101 * MS, pts: 101 * MS },
      { dts: 102 * MS, pts: 200 * MS },
      { dts: 103 * MS, pts: 103 * MS },
      { dts: 104 * MS, pts: 104 * MS },
      { dts: 300 * MS, pts: 300 * MS },
    ]);
    expectIncreasing(out);
    expect(corrected).toBe(4);
  });

  it('keeps a tsdemux-like collapse (a jump forward, then a run of backward steps) strictly increasing', async () => {
    // The shape a UDP MPEG-TS source gave after a 1.5 s stall: steps of 66.7 ms, one of 1569 ms, then shrinking and
    // negative ones (ms) until the stamps are back on the sender's clock.
    const steps = [66.7, 66.7, 1569.1, 66.6, 51.3, 20.5, 8.5, -3.6, -19.5, -37, 66.7, -79.3, -41.9, -0.6, 35.2, 66.4, 66.7];
    let t = 1000;
    const stamps = [{ dts: t * MS, pts: t * MS }, ...steps.map((d) => { t += d; return { dts: Math.round(t * MS), pts: Math.round(t * MS) }; })];
    const { out, corrected } = await guard(stamps);
    expect(out.length).toBe(stamps.length);
    expectIncreasing(out);
    expect(corrected).toBeGreaterThan(0);
    // What came before the damage is untouched.
    expect(out.slice(0, 4)).toEqual(stamps.slice(0, 4));
  });

  it('passes a buffer without a DTS as it is, and a larger min-step is kept', async () => {
    const { out, corrected } = await guard([
      { dts: 10 * MS, pts: 10 * MS }, { pts: 5 * MS }, { dts: 12 * MS, pts: 12 * MS },
    ], 'min-step=5000000');
    expect(out).toEqual([{ dts: 10 * MS, pts: 10 * MS }, { dts: -1, pts: 5 * MS }, { dts: 15 * MS, pts: 15 * MS }]);
    expect(corrected).toBe(1);
  });
});
