/**
 * The VP8 example's own test: loaded the way encoderd loads it (through the loader, SDK injected), its fragments
 * run in real GStreamer, and the bitrate it declares live really changes on a running vp8enc.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadNative } from '../../../../core/engine/native';
import { composeContext } from '../../../../core/compose';
import { loadPluginFolder } from '../../../../core/plugins/loader';
import type { CodecPlugin } from '../../../../core/sdk';

const plugin = loadPluginFolder(join(__dirname, '..')) as CodecPlugin;
const native = loadNative();
const ctx = () => composeContext('vp8-example', { rtspLatencyMs: 0 });

it('is the vp8 codec, licence feature vp8, macro svc:vp8', () => {
  expect(plugin).toMatchObject({ kind: 'codec', name: 'vp8', codec: 'vp8', licenceFeature: 'vp8', caps: 'video/x-vp8' });
  expect(plugin.macro?.tag).toBe('vp8');
  expect(plugin.macro?.expand({ bitrate: 800 }, ctx())).toContain('target-bitrate=800000');
});

it('encodes, and takes a new bitrate while playing', async () => {
  const enc = plugin.encoder({ codec: 'vp8', bitrate: 300, width: 320, height: 240, fps: 30, quality: 5 }, ctx());
  const buffers: number[] = [];
  const p = new native.Pipeline(`videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! ${enc.description} ! appsink name=out`, (m) => {
    if (m.type === 'sample') buffers.push(m.data.length);
  });
  try {
    p.watchSink('out');
    expect(await p.setState('playing', 10000)).toBe('playing');
    const [change] = plugin.liveChange('bitrate', 1200, enc.element);
    p.setProperty(change.element, change.property, change.value);
    expect(p.getProperty(enc.element, 'target-bitrate')).toBe(1_200_000);
    await new Promise((r) => setTimeout(r, 700));
    expect(buffers.length).toBeGreaterThan(5);
  } finally {
    p.destroy();
  }
});

it('refuses frames larger than VP8 can carry, naming the field', () => {
  expect(plugin.validate!({ codec: 'vp8', bitrate: 500, width: 20000, height: 240, fps: 30, quality: 5 })).toEqual(['encoding.width must be at most 16383 for vp8']);
});
