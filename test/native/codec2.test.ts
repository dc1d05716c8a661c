// codec2enc / codec2dec / rtpcodec2pay / rtpcodec2depay (native/src/elements/codec2*.c, rtpcodec2*.c), through
// real gst-launch-1.0 child processes using the standalone plugin (GST_PLUGIN_PATH=native/build/gst-plugins),
// checked against libcodec2's own c2enc/c2dec CLI tools. Speech comes from espeak-ng (Codec2 is a speech vocoder:
// sines are not a fidelity test, see /work/shared/notes/dataplane-findings.md §2).
import { execFileSync, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '../..');
const pluginDir = join(root, 'native/build/gst-plugins');
const env = { ...process.env, GST_PLUGIN_PATH: pluginDir };

// bytes/frame and samples/frame per mode, from libcodec2 1.0.5 (findings §2.1)
const MODES: Record<number, { bytes: number; samples: number; cli: string }> = {
  3200: { bytes: 8, samples: 160, cli: '3200' },
  2400: { bytes: 6, samples: 160, cli: '2400' },
  1600: { bytes: 8, samples: 320, cli: '1600' },
  1400: { bytes: 7, samples: 320, cli: '1400' },
  1300: { bytes: 7, samples: 320, cli: '1300' },
  1200: { bytes: 6, samples: 320, cli: '1200' },
};
const SERVICE_MODES = [3200, 2400, 1600, 1400, 1300, 1200];

let dir: string;
let speech: string; // 8 kHz mono S16LE raw
let speechSamples: number;

const RAW_IN = (file: string) =>
  `filesrc location=${file} ! rawaudioparse format=pcm pcm-format=s16le sample-rate=8000 num-channels=1`;

/** Runs gst-launch-1.0 on a pipeline description (tokens split on spaces; no spaces inside tokens). */
function gst(pipeline: string, extra: string[] = ['-q']): string {
  return execFileSync('gst-launch-1.0', [...extra, ...pipeline.split(/\s+/).filter(Boolean)], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
}

function samplesOf(file: string): Int16Array {
  const b = readFileSync(file);
  return new Int16Array(b.buffer, b.byteOffset, b.length >> 1);
}

function rmsDb(s: Int16Array): number {
  let acc = 0;
  for (const v of s) acc += v * v;
  return 10 * Math.log10(acc / s.length / (32768 * 32768));
}

/** Frame-energy envelope (20 ms) correlation, best over lags 0..4 frames: is it the same speech? */
function envelopeCorrelation(a: Int16Array, b: Int16Array): number {
  const env = (s: Int16Array) => {
    const out: number[] = [];
    for (let i = 0; i + 160 <= s.length; i += 160) {
      let e = 0;
      for (let j = i; j < i + 160; j++) e += s[j] * s[j];
      out.push(Math.sqrt(e / 160));
    }
    return out;
  };
  const ea = env(a);
  const eb = env(b);
  let best = -1;
  for (let lag = 0; lag <= 4; lag++) {
    const n = Math.min(ea.length, eb.length - lag);
    const x = ea.slice(0, n);
    const y = eb.slice(lag, lag + n);
    const mx = x.reduce((p, c) => p + c, 0) / n;
    const my = y.reduce((p, c) => p + c, 0) / n;
    let sxy = 0, sxx = 0, syy = 0;
    for (let i = 0; i < n; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) ** 2;
      syy += (y[i] - my) ** 2;
    }
    best = Math.max(best, sxy / Math.sqrt(sxx * syy));
  }
  return best;
}

function encode(mode: number, out: string, extra = ''): Buffer {
  gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ${extra} ! filesink location=${out}`);
  return readFileSync(out);
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((res) => s.bind(0, '127.0.0.1', () => res()));
  const port = s.address().port;
  await new Promise<void>((res) => s.close(() => res()));
  return port;
}

/** Starts a gst-launch receiver; resolves once its pipeline is PLAYING (udpsrc bound). stop() sends EOS (-e + SIGINT). */
function startReceiver(pipeline: string): Promise<{ stop: () => Promise<number | null> }> {
  const child = spawn('gst-launch-1.0', ['-e', ...pipeline.split(/\s+/).filter(Boolean)], { env });
  let out = '';
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`receiver did not start: ${out}`)), 10_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/Setting pipeline to PLAYING/.test(out)) {
        clearTimeout(timer);
        resolve({
          stop: async () => {
            child.kill('SIGINT');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`receiver exited (${code}): ${out}`)));
  });
}

beforeAll(() => {
  // Incremental; serialised with everyone else's builds of the same tree.
  execFileSync('flock', ['/tmp/encoderd-native-build.lock', process.execPath, join(root, 'scripts/build-native.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
  dir = mkdtempSync(join(tmpdir(), 'codec2-test-'));
  const wav = join(dir, 'speech.wav');
  speech = join(dir, 'speech8k.s16');
  execFileSync('espeak-ng', ['-w', wav, 'The quick brown fox jumps over the lazy dog. Codec two carries speech.']);
  execFileSync('sox', [wav, '-r', '8000', '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', speech]);
  speechSamples = statSync(speech).size / 2;
  expect(speechSamples / 8000).toBeGreaterThan(2); // a few seconds of speech
  expect(speechSamples / 8000).toBeLessThan(8);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('codec2enc', () => {
  it.each(SERVICE_MODES)('mode %i: bitstream is byte-identical to c2enc, bytes_per_frame × whole frames', (mode) => {
    const m = MODES[mode];
    const ours = encode(mode, join(dir, `gst${mode}.bit`));
    // .bit, not .c2: c2enc writes a 7-byte header into *.c2 files
    const cliFile = join(dir, `cli${mode}.bit`);
    execFileSync('c2enc', [m.cli, speech, cliFile]);
    const cli = readFileSync(cliFile);

    const frames = Math.floor(speechSamples / m.samples);
    expect(ours.length).toBe(frames * m.bytes);
    // c2enc also drops the trailing partial frame; the common whole-frame prefix must be all of both files.
    const common = Math.floor(Math.min(ours.length, cli.length) / m.bytes) * m.bytes;
    expect(common).toBeGreaterThanOrEqual(ours.length - m.bytes);
    expect(cli.length - common).toBeLessThanOrEqual(m.bytes);
    expect(ours.subarray(0, common).equals(cli.subarray(0, common))).toBe(true);
    expect(ours.equals(cli)).toBe(true);
  });

  it('rejects an unsupported mode and keeps the default 2400', () => {
    const out = join(dir, 'badmode.bit');
    gst(`${RAW_IN(speech)} ! codec2enc mode=1234 ! filesink location=${out}`);
    expect(readFileSync(out).length).toBe(Math.floor(speechSamples / 160) * 6);
  });
});

describe('codec2dec', () => {
  it.each(SERVICE_MODES)('mode %i: enc→dec round trip keeps speech level and duration; equals c2dec', (mode) => {
    const m = MODES[mode];
    const bits = encode(mode, join(dir, `rt${mode}.bit`));
    const decoded = join(dir, `rt${mode}.s16`);
    gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ! codec2dec ! filesink location=${decoded}`);
    const input = samplesOf(speech);
    const output = samplesOf(decoded);

    const frames = bits.length / m.bytes;
    expect(output.length).toBe(frames * m.samples); // durations match (only the partial last frame is lost)
    expect(input.length - output.length).toBeLessThan(m.samples);

    const inDb = rmsDb(input);
    const outDb = rmsDb(output);
    expect(outDb).toBeGreaterThan(-40); // clearly not silence
    expect(Math.abs(outDb - inDb)).toBeLessThan(6);
    expect(envelopeCorrelation(input, output)).toBeGreaterThan(0.6); // the same speech, not noise at that level

    // libcodec2's own decoder on our bitstream gives the same samples
    const cliOut = join(dir, `rt${mode}.cli.s16`);
    execFileSync('c2dec', [m.cli, join(dir, `rt${mode}.bit`), cliOut]);
    expect(readFileSync(decoded).equals(readFileSync(cliOut))).toBe(true);
  });

  it('decodes a raw Codec2 file from filesrc in arbitrary chunks; mode defaults to 2400 when the caps lack it', () => {
    const bits = join(dir, 'file2400.bit');
    encode(2400, bits);
    const cliOut = join(dir, 'file2400.cli.s16');
    execFileSync('c2dec', ['2400', bits, cliOut]);
    const withMode = join(dir, 'file2400.mode.s16');
    const noMode = join(dir, 'file2400.nomode.s16');
    gst(`filesrc location=${bits} blocksize=1000 ! audio/x-codec2,mode=2400 ! codec2dec ! filesink location=${withMode}`);
    gst(`filesrc location=${bits} blocksize=777 ! audio/x-codec2 ! codec2dec ! filesink location=${noMode}`);
    expect(readFileSync(withMode).equals(readFileSync(cliOut))).toBe(true);
    expect(readFileSync(noMode).equals(readFileSync(cliOut))).toBe(true);
  });
});

describe('rtpcodec2pay / rtpcodec2depay', () => {
  it.each([
    [2400, ''],
    [1300, ''],
    [1300, 'frames-per-packet=3'],
    [3200, 'frames-per-packet=1'],
    [1200, 'frames-per-packet=5'],
  ])('mode %i %s: enc!pay!depay!dec is bit-identical to enc!dec', (mode, payOpts) => {
    const direct = join(dir, `direct${mode}.s16`);
    const viaRtp = join(dir, `rtp${mode}.s16`);
    gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ! codec2dec ! filesink location=${direct}`);
    gst(
      `${RAW_IN(speech)} ! codec2enc mode=${mode} ! rtpcodec2pay ${payOpts} ! rtpcodec2depay ! codec2dec ! filesink location=${viaRtp}`,
    );
    const a = readFileSync(direct);
    expect(a.length).toBeGreaterThan(16000 * 2); // > 2 s
    expect(readFileSync(viaRtp).equals(a)).toBe(true);
  });

  it.each([
    [2400, 6, 20],
    [1300, 7, 40],
  ])('mode %i: one frame per buffer with frame-accurate timestamps after codec2enc and after depayloading', (mode, bytes, ms) => {
    const out = gst(
      `${RAW_IN(speech)} ! codec2enc mode=${mode} ! identity name=enc silent=false ! rtpcodec2pay frames-per-packet=3 ! rtpcodec2depay ! identity name=dep silent=false ! fakesink`,
      ['-v'],
    );
    const frames = Math.floor(speechSamples / MODES[mode].samples);
    const ns = (t: string) => {
      const [h, m, sec] = t.split(':');
      return Math.round((Number(h) * 3600 + Number(m) * 60 + Number(sec)) * 1e9);
    };
    for (const name of ['enc', 'dep']) {
      const bufs = [...out.matchAll(new RegExp(`${name}: last-message = chain .*?\\((\\d+) bytes, dts: [^,]*, pts: ([0-9:.]+), duration: ([0-9:.]+)`, 'g'))];
      expect(bufs.length).toBe(frames);
      bufs.forEach((b, i) => {
        expect(Number(b[1])).toBe(bytes);
        expect(ns(b[2])).toBe(i * ms * 1e6);
        expect(ns(b[3])).toBe(ms * 1e6);
      });
    }
  });

  it.each([2400, 1300])('mode %i over real UDP on 127.0.0.1 decodes bit-identically', async (mode) => {
    const port = await freeUdpPort();
    const direct = join(dir, `udpref${mode}.s16`);
    const received = join(dir, `udp${mode}.s16`);
    gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ! codec2dec ! filesink location=${direct}`);
    const caps = `application/x-rtp,media=audio,clock-rate=8000,encoding-name=CODEC2,payload=97,mode=(string)${mode}`;
    const rx = await startReceiver(
      `udpsrc address=127.0.0.1 port=${port} caps=${caps} ! rtpcodec2depay ! codec2dec ! filesink buffer-mode=unbuffered location=${received}`,
    );
    const a = readFileSync(direct);
    try {
      gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ! rtpcodec2pay ! udpsink host=127.0.0.1 port=${port} sync=false`);
      // let the receiver drain its socket: wait until everything is decoded (or 5 s), then EOS it
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && (!existsSync(received) || statSync(received).size < a.length))
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      expect(await rx.stop()).toBe(0);
    }
    const b = readFileSync(received);
    expect(b.length).toBe(a.length);
    expect(b.equals(a)).toBe(true);
  });

  it.each([
    // mode, payloader options, frames per packet, bytes per frame, samples per frame
    [2400, '', 2, 6, 160], // default: 40 ms per packet
    [1300, '', 1, 7, 320],
    [1300, 'frames-per-packet=3', 3, 7, 320],
    [3200, 'pt=101 frames-per-packet=4', 4, 8, 160],
  ])('mode %i %s: packet shape on the wire', async (mode, payOpts, k, bytes, samples) => {
    const sock = createSocket('udp4');
    const packets: Buffer[] = [];
    sock.on('message', (msg) => packets.push(msg));
    await new Promise<void>((res) => sock.bind(0, '127.0.0.1', () => res()));
    const port = sock.address().port;
    try {
      gst(`${RAW_IN(speech)} ! codec2enc mode=${mode} ! rtpcodec2pay ${payOpts} ! udpsink host=127.0.0.1 port=${port} sync=false`);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      sock.close();
    }
    const frames = Math.floor(speechSamples / samples);
    expect(packets.length).toBe(Math.ceil(frames / k));
    const pt = /pt=(\d+)/.exec(payOpts)?.[1] ?? '97';
    let total = 0;
    packets.forEach((p, i) => {
      expect(p[0] >> 6).toBe(2); // RTP version 2, no padding/extension/CSRC
      expect(p[0] & 0x3f).toBe(0);
      expect(p[1] & 0x7f).toBe(Number(pt));
      expect(p[1] >> 7).toBe(0); // no marker
      const len = p.length - 12;
      total += len;
      if (i < packets.length - 1) expect(len).toBe(k * bytes);
      else expect(len % bytes).toBe(0);
      if (i > 0) {
        const q = packets[i - 1];
        expect((p.readUInt16BE(2) - q.readUInt16BE(2) + 65536) % 65536).toBe(1);
        // RTP timestamp in 8 kHz units: k frames × samples per frame per packet
        expect((p.readUInt32BE(4) - q.readUInt32BE(4) + 2 ** 32) % 2 ** 32).toBe(k * samples);
      }
    });
    expect(total).toBe(frames * bytes);
  });

  it('caps carry CODEC2/8000 and the mode; GStreamer SDP generation turns the mode into fmtp', () => {
    const out = gst(`${RAW_IN(speech)} ! codec2enc mode=1300 ! rtpcodec2pay name=pay ! fakesink`, ['-v']);
    const line = out.split('\n').find((l) => /pay\.GstPad:src: caps = /.test(l));
    expect(line).toBeDefined();
    const caps = line!.replace(/^.*caps = /, '').trim();
    expect(caps).toMatch(/^application\/x-rtp, /);
    expect(caps).toContain('media=(string)audio');
    expect(caps).toContain('clock-rate=(int)8000');
    expect(caps).toContain('encoding-name=(string)CODEC2');
    expect(caps).toContain('payload=(int)97');
    expect(caps).toContain('mode=(string)1300');
    expect(caps).not.toContain('encoding-params');

    // gst_sdp_media_set_media_from_caps is what GstRTSPServer and webrtcbin use to describe a payloader's caps;
    // gst_sdp_media_get_caps_from_media is what rtspsrc/sdpdemux use on the receiving side.
    const src = join(dir, 'sdp.c');
    const bin = join(dir, 'sdp');
    writeFileSync(
      src,
      `#include <gst/gst.h>
#include <gst/sdp/sdp.h>
int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  GstCaps *caps = gst_caps_from_string(argv[1]);
  GstSDPMedia *media;
  gst_sdp_media_new(&media);
  if (!caps || gst_sdp_media_set_media_from_caps(caps, media) != GST_SDP_OK) return 1;
  gchar *text = gst_sdp_media_as_text(media);
  g_print("%s", text);
  GstCaps *back = gst_sdp_media_get_caps_from_media(media, 97);
  gst_sdp_media_attributes_to_caps(media, back);
  gst_structure_set_name(gst_caps_get_structure(back, 0), "application/x-rtp"); /* as rtspsrc and sdpdemux do */
  gchar *s = gst_caps_to_string(back);
  g_print("CAPS %s\\n", s);
  return 0;
}
`,
    );
    const flags = execFileSync('pkg-config', ['--cflags', '--libs', 'gstreamer-1.0', 'gstreamer-sdp-1.0'], {
      encoding: 'utf8',
    })
      .trim()
      .split(/\s+/);
    execFileSync('gcc', ['-o', bin, src, ...flags]);
    const sdp = execFileSync(bin, [caps], { encoding: 'utf8' });
    expect(sdp).toMatch(/^m=audio .* 97$/m);
    expect(sdp).toContain('a=rtpmap:97 CODEC2/8000\r\n');
    expect(sdp).toContain('a=fmtp:97 mode=1300\r\n');
    // and back: the receiver's caps from that SDP are accepted by rtpcodec2depay
    const back = /^CAPS (.*)$/m.exec(sdp)![1];
    expect(back).toMatch(/^application\/x-rtp, /);
    expect(back).toContain('encoding-name=(string)CODEC2');
    expect(back).toContain('clock-rate=(int)8000');
    expect(back).toContain('mode=(string)1300');
    const direct = join(dir, 'sdpref.s16');
    const viaSdpCaps = join(dir, 'sdpcaps.s16');
    gst(`${RAW_IN(speech)} ! codec2enc mode=1300 ! codec2dec ! filesink location=${direct}`);
    // Re-stamp the payloader's output with the SDP-derived caps (capssetter replaces, no negotiation with the payloader).
    gst(
      `${RAW_IN(speech)} ! codec2enc mode=1300 ! rtpcodec2pay ! capssetter join=false replace=true caps=${back.replace(/\s+/g, '')} ! rtpcodec2depay ! codec2dec ! filesink location=${viaSdpCaps}`,
    );
    expect(readFileSync(viaSdpCaps).equals(readFileSync(direct))).toBe(true);
  });
});

describe('inside the addon', () => {
  type Msg = { type: string; data?: Buffer };
  type Native = {
    init(): void;
    hasElement(f: string): boolean;
    Pipeline: new (desc: string, onMessage: (m: Msg) => void) => {
      setState(s: string, timeoutMs: number): Promise<string>;
      watchSink(sink: string): void;
      destroy(): void;
    };
  };
  const load = () => createRequire(__filename)(join(root, 'native')) as Native;

  it('registers the four elements statically', () => {
    const n = load();
    n.init();
    for (const f of ['codec2enc', 'codec2dec', 'rtpcodec2pay', 'rtpcodec2depay']) expect(n.hasElement(f)).toBe(true);
    expect(n.hasElement('codec2-no-such-element')).toBe(false);
  });

  it('runs enc!pay!depay!dec in-process and decodes the same samples as gst-launch with the plugin file', async () => {
    const n = load();
    n.init();
    const reference = join(dir, 'addonref.s16');
    gst(`${RAW_IN(speech)} ! codec2enc mode=1300 ! codec2dec ! filesink location=${reference}`);
    const chunks: Buffer[] = [];
    let pipeline: ReturnType<typeof makePipeline> | undefined;
    function makePipeline(onMessage: (m: Msg) => void) {
      return new n.Pipeline(
        // sync=true: the samples come at the speech's own pace. Unsynced, the whole file arrives in a burst, and the
        // bounded queue to the JS thread (32 samples, docs: ipcDropped) drops what a busy machine cannot take in time.
        `${RAW_IN(speech)} ! codec2enc mode=1300 ! rtpcodec2pay ! rtpcodec2depay ! codec2dec ! appsink name=out sync=true`,
        onMessage,
      );
    }
    const done = new Promise<void>((resolve, reject) => {
      pipeline = makePipeline((m) => {
        if (m.type === 'sample' && m.data) chunks.push(Buffer.from(m.data));
        else if (m.type === 'eos') resolve();
        else if (m.type === 'error') reject(new Error(JSON.stringify(m)));
      });
    });
    try {
      pipeline!.watchSink('out');
      await pipeline!.setState('playing', 5000);
      await done;
    } finally {
      pipeline?.destroy();
    }
    expect(Buffer.concat(chunks).equals(readFileSync(reference))).toBe(true);
  });
});
