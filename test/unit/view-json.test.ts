/**
 * The pipeline object's JSON kept between changes (core/pipeline/view-json.ts) must always be the text a fresh
 * JSON.stringify(viewOf(e)) gives: after every kind of change the manager makes, and with a playing pipeline's
 * statistics, which change between two requests.
 */
import { describe, expect, it } from 'vitest';
import { newEntry, viewOf, type Entry } from '../../core/pipeline/entry';
import type { Lifecycle } from '../../core/pipeline/lifecycle';
import type { PipelineDefinition } from '../../core/pipeline/model';
import type { StatsWindow } from '../../core/pipeline/stats';
import { ViewJson } from '../../core/pipeline/view-json';

const def: PipelineDefinition = {
  id: 'cam-1', mode: 'simple', on_demand: false,
  source: { uri: 'test://smpte' }, encoding: { codec: 'h264', width: 320, height: 240, bitrate: 800 },
  output: { uri: 'udp://127.0.0.1:5000' }, geolocation: null,
};

/** The lifecycle is the supervisor's to write; the test plays its part. */
const life = (e: Entry): Lifecycle => e.life as Lifecycle;

/** A stand-in for the statistics window: a playing pipeline whose figures differ at every call. */
function ticking(): StatsWindow {
  let n = 0;
  return { figures: () => ({ fps: 15 + (n++), bitrate_kbps: 800 }) } as unknown as StatsWindow;
}

describe('ViewJson', () => {
  it('is the view as JSON after every change the manager makes to an entry', () => {
    const cache = new ViewJson();
    const e = newEntry(def, null);
    expect(cache.of(e)).toBe(JSON.stringify(viewOf(e)));
    const changes: Array<(x: Entry) => void> = [
      (x) => { x.def = { ...x.def, encoding: { ...x.def.encoding!, bitrate: 1200 } }; },
      (x) => { x.def = { ...x.def, geolocation: { latitude: 1, longitude: 2 } }; },
      (x) => { life(x).state = 'playing'; life(x).startedBy = 'api'; },
      (x) => { x.lastError = 'the source is gone "really"'; },
      (x) => { x.health = { health: 'degraded', reason: 'frames dropped' }; },
      (x) => { x.framegrab = { interval_seconds: 5, quality: 80 }; },
      (x) => { x.klvSeen = true; },
      (x) => { x.klvWanted = true; },
      (x) => { x.store = { auto_start: true, description: 'roof "stats":null camera' }; },
      (x) => { x.store = { ...x.store!, description: 'mast' }; },
      (x) => { life(x).state = 'ready'; life(x).startedBy = null; },
    ];
    for (const change of changes) {
      change(e);
      expect(cache.of(e)).toBe(JSON.stringify(viewOf(e)));
    }
  });

  it('serialises a playing pipeline\'s statistics at each request', () => {
    const cache = new ViewJson();
    const e = newEntry(def, { auto_start: false, description: 'x' });
    life(e).state = 'playing';
    life(e).startedBy = 'api';
    life(e).stats = ticking();
    const first = JSON.parse(cache.of(e));
    const second = JSON.parse(cache.of(e));
    expect(first.stats.fps).toBe(15);
    expect(second.stats.fps).toBe(16);
    expect(second.description).toBe('x');
    expect({ ...second, stats: null }).toEqual(JSON.parse(JSON.stringify({ ...viewOf(e), stats: null })));
  });

  it('lists entries as one JSON array', () => {
    const cache = new ViewJson();
    const a = newEntry(def, null);
    const b = newEntry({ ...def, id: 'cam-2' }, null);
    expect(JSON.parse(cache.list([a, b]))).toEqual([viewOf(a), viewOf(b)].map((v) => JSON.parse(JSON.stringify(v))));
    expect(cache.list([])).toBe('[]');
  });
});
