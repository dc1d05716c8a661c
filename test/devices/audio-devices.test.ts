/**
 * ALSA capture device discovery. No sound card can be attached to a test machine (and this one has no
 * /proc/asound at all), so the service reads fixture trees in the kernel's own format through
 * --proc-asound-root. The parsing and the endpoint are the production code.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureDevices, parseCards, parsePcm } from '../../core/devices/asound';
import { ROOT, startService, type RunningService } from '../helpers/service';

const FIXTURES = join(ROOT, 'test/fixtures/asound');

describe('parsing /proc/asound', () => {
  it('reads pcm lines with either stream count missing and names containing " : "', () => {
    expect(parsePcm([
      '00-00: ALC892 Analog : ALC892 Analog : playback 1 : capture 1',
      '00-01: ALC892 Digital : ALC892 Digital : playback 1',
      '03-00: HiFiBerry multicodec-0 : HiFiBerry DAC+ADC : Mic : playback 1 : capture 4',
      'garbage line',
      '',
    ].join('\n'))).toEqual([
      { card: 0, device: 0, id: 'ALC892 Analog', name: 'ALC892 Analog', playback: 1, capture: 1 },
      { card: 0, device: 1, id: 'ALC892 Digital', name: 'ALC892 Digital', playback: 1, capture: 0 },
      { card: 3, device: 0, id: 'HiFiBerry multicodec-0', name: 'HiFiBerry DAC+ADC : Mic', playback: 1, capture: 4 },
    ]);
  });

  it('reads card names from the first line of each card, skipping the long-name lines', () => {
    const cards = parseCards(' 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n                      HDA Intel PCH at 0xf7f10000 irq 32\n'
      + ' 7 [Snowball       ]: USB-Audio - Blue Snowball\n                      BLUE MICROPHONE Blue Snowball at usb-1\n');
    expect([...cards]).toEqual([[0, 'HDA Intel PCH'], [7, 'Blue Snowball']]);
  });

  it('lists one device per capture subdevice; hw:C,D when there is one, hw:C,D,S when there are several', () => {
    const devices = captureDevices(
      [
        { card: 1, device: 0, id: 'x', name: 'One', playback: 0, capture: 1 },
        { card: 0, device: 2, id: 'y', name: 'Two', playback: 1, capture: 2 },
        { card: 0, device: 3, id: 'z', name: 'Play only', playback: 1, capture: 0 },
      ],
      new Map([[0, 'Card Zero']]),
    );
    expect(devices).toEqual([
      { device: 'hw:0,2,0', name: 'Two', card_name: 'Card Zero', card: 0, subdevice: 0 },
      { device: 'hw:0,2,1', name: 'Two', card_name: 'Card Zero', card: 0, subdevice: 1 },
      // A card missing from `cards` falls back to the PCM id rather than an empty name.
      { device: 'hw:1,0', name: 'One', card_name: 'x', card: 1, subdevice: 0 },
    ]);
  });
});

describe('GET /svc/audio-devices on the real service', () => {
  const services: RunningService[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
  });
  const start = async (root?: string) => {
    const s = await startService({ args: root ? ['--proc-asound-root', root] : [] });
    services.push(s);
    return s;
  };

  let twoCards: RunningService;
  beforeAll(async () => {
    twoCards = await start(join(FIXTURES, 'two-cards'));
  });

  it('lists the capture devices of an onboard card and a USB microphone', async () => {
    const r = await twoCards.api('GET', '/svc/audio-devices');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      devices: [
        { device: 'hw:0,0', name: 'ALC892 Analog', card_name: 'HDA Intel PCH', card: 0, subdevice: 0 },
        { device: 'hw:0,2', name: 'ALC892 Alt Analog', card_name: 'HDA Intel PCH', card: 0, subdevice: 0 },
        { device: 'hw:1,0', name: 'USB Audio', card_name: 'USB Audio Device', card: 1, subdevice: 0 },
      ],
    });
  });

  it('reads the tree on every request: a USB microphone plugged in later shows up without a restart', async () => {
    const root = mkdtempSync(join(tmpdir(), 'asound-'));
    cpSync(join(FIXTURES, 'two-cards'), root, { recursive: true });
    const s = await start(root);
    expect((await s.api('GET', '/svc/audio-devices')).body.devices).toHaveLength(3);
    appendFileSync(join(root, 'cards'), ' 2 [Snowball       ]: USB-Audio - Blue Snowball\n                      BLUE MICROPHONE at usb-1\n');
    appendFileSync(join(root, 'pcm'), '02-00: USB Audio : USB Audio : capture 1\n');
    const after = (await s.api('GET', '/svc/audio-devices')).body.devices;
    expect(after).toHaveLength(4);
    expect(after[3]).toEqual({ device: 'hw:2,0', name: 'USB Audio', card_name: 'Blue Snowball', card: 2, subdevice: 0 });
  });

  it('lists several capture subdevices one by one, on cards that do not start at 0', async () => {
    const s = await start(join(FIXTURES, 'usb-multi'));
    const r = await s.api('GET', '/svc/audio-devices');
    expect(r.status).toBe(200);
    expect(r.body.devices.map((d: { device: string }) => d.device)).toEqual(['hw:2,0', 'hw:3,0,0', 'hw:3,0,1', 'hw:3,0,2', 'hw:3,0,3']);
    expect(r.body.devices[1]).toEqual({ device: 'hw:3,0,0', name: 'HiFiBerry DAC+ADC : Mic', card_name: 'snd_rpi_hifiberry_dacplusadc', card: 3, subdevice: 0 });
  });

  it('answers an empty list for playback-only cards, a missing tree, and this machine', async () => {
    const none = await start(join(FIXTURES, 'no-capture'));
    expect((await none.api('GET', '/svc/audio-devices')).body).toEqual({ devices: [] });
    const missing = await start(join(FIXTURES, 'does-not-exist'));
    expect(await missing.api('GET', '/svc/audio-devices')).toMatchObject({ status: 200, body: { devices: [] } });
    if (!existsSync('/proc/asound')) {
      // The default root on a machine without ALSA: an empty list, not an error.
      const dflt = await start();
      expect(await dflt.api('GET', '/svc/audio-devices')).toMatchObject({ status: 200, body: { devices: [] } });
    }
  });
});
