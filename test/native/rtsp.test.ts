// The RtspServer binding (native/src/rtsp.c, rtsp-feed.c) with real RTSP clients (gst-launch-1.0 rtspsrc,
// ffprobe) on loopback. Ports 18500-18599 are this file's.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as Native from '../../native';
import { RtspClient } from '../helpers/rtsp-client';

const nativeDir = join(__dirname, '../../native');
const native: typeof Native = createRequire(__filename)(nativeDir);

// GOP of 300 frames (10 s): a client that decodes within a second or two got a keyframe on request.
const PRODUCER = 'videotestsrc is-live=true ! video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! ' +
  'x264enc tune=zerolatency speed-preset=ultrafast key-int-max=300 ! h264parse ! appsink name=v0';
const FEED = { appsink: 'v0', launch: 'h264parse ! rtph264pay name=pay0 pt=96 config-interval=-1' };
const ON_DEMAND = 'videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! ' +
  'x264enc tune=zerolatency speed-preset=ultrafast ! rtph264pay name=pay0 pt=96';

const cleanup: (() => void)[] = [];
beforeAll(() => native.init());
afterEach(() => { for (const f of cleanup.splice(0).reverse()) f(); });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = (fn: () => unknown) => {
  try { fn(); } catch (e) { return (e as { code?: string }).code; }
  return 'no error';
};

function server(port: number) {
  const events: Native.RtspEvent[] = [];
  const s = new native.RtspServer('127.0.0.1', port, (e) => events.push(e));
  cleanup.push(() => s.close());
  return { s, events };
}

async function producer(description = PRODUCER) {
  const p = new native.Pipeline(description, () => {});
  cleanup.push(() => p.destroy());
  await p.setState('playing', 10_000);
  return p;
}

/** Runs an rtspsrc client for ms, then ends it with EOS (-e, so it sends TEARDOWN); resolves with decoded frames. */
function client(url: string, ms: number, protocols = 'udp') {
  return new Promise<{ frames: number; code: number | null; stderr: string }>((resolve) => {
    const c = spawn('gst-launch-1.0', ['-e', '-v', 'rtspsrc', `location=${url}`, `protocols=${protocols}`, '!',
      'rtph264depay', 'wait-for-keyframe=true', '!', 'h264parse', '!', 'avdec_h264', '!', 'fakesink', 'silent=false']);
    let out = '';
    let stderr = '';
    c.stdout.on('data', (d) => { out += d; });
    c.stderr.on('data', (d) => { stderr += d; });
    const t = setTimeout(() => c.kill('SIGINT'), ms);
    c.on('exit', (code) => {
      clearTimeout(t);
      resolve({ frames: (out.match(/last-message = chain/g) ?? []).length, code, stderr });
    });
  });
}

function ffprobe(url: string) {
  const r = spawnSync('ffprobe', ['-v', 'error', '-rtsp_transport', 'tcp', '-show_entries', 'stream=codec_name,width,height',
    '-of', 'csv=p=0', url], { encoding: 'utf8', timeout: 20_000 });
  return r.stdout.trim().split('\n').filter(Boolean);
}

const waitFor = async (cond: () => boolean, ms = 10_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (cond()) return;
  throw new Error('condition not met in time');
};

describe('binding', () => {
  it('binds host:port, reports the bound port, and refuses a port in use with NG_ERR_RTSP', () => {
    const { s } = server(18510);
    expect(s.port).toBe(18510);
    expect(codeOf(() => new native.RtspServer('127.0.0.1', 18510, () => {}))).toBe('NG_ERR_RTSP');
    expect(() => new native.RtspServer('127.0.0.1', 18510, () => {})).toThrow(/Address already in use/);
    const { s: any } = server(0);
    expect(any.port).toBeGreaterThan(0);
    expect(any.port).not.toBe(18510);
  });

  it('really listens: a TCP connection is a client-connected event with the address', async () => {
    const { s, events } = server(18511);
    const { Socket } = await import('node:net');
    const sock = new Socket();
    await new Promise<void>((r) => sock.connect(18511, '127.0.0.1', r));
    await waitFor(() => events.length > 0);
    expect(events[0]).toEqual({ type: 'client-connected', clients: 1, address: '127.0.0.1' });
    expect(s.clientCount()).toBe(1);
    sock.destroy();
    await waitFor(() => events.length === 2); // events arrive after the count changed, on the JS thread
    expect(s.clientCount()).toBe(0);
    expect(events[1]).toEqual({ type: 'client-closed', clients: 0 });
  });

  it('close is idempotent, frees the port, and later calls throw NG_ERR_DESTROYED', async () => {
    const { s } = server(18512);
    s.mountLaunch('/od', ON_DEMAND);
    s.close();
    s.close();
    expect(codeOf(() => s.clientCount())).toBe('NG_ERR_DESTROYED');
    expect(codeOf(() => s.port)).toBe('NG_ERR_DESTROYED');
    expect(codeOf(() => s.mountLaunch('/x', ON_DEMAND))).toBe('NG_ERR_DESTROYED');
    // The listening socket is gone: Node can take the port.
    const probe = createServer();
    await new Promise<void>((resolve, reject) => { probe.once('error', reject); probe.listen(18512, '127.0.0.1', resolve); });
    probe.close();
  });
});

describe('mountFeed (always-running producer)', () => {
  it('serves two clients from one media; the late joiner decodes at once; counts and events follow', async () => {
    const p = await producer();
    const { s, events } = server(18520);
    s.mountFeed('/live', p, [FEED]);
    const url = 'rtsp://127.0.0.1:18520/live';
    const first = client(url, 5000, 'udp');
    await sleep(1500);
    const second = client(url, 2500, 'tcp');
    await waitFor(() => s.clientCount() === 2);
    const [a, b] = await Promise.all([first, second]);
    // ~150 and ~75 frames at 30 fps on an idle machine; without a keyframe on join the second would see none for
    // up to 10 s. The bounds leave room for a loaded CI machine (clients decode in real time beside other suites).
    expect(a.frames).toBeGreaterThan(50);
    expect(b.frames).toBeGreaterThan(10);
    await waitFor(() => events.some((e) => e.type === 'media-unprepared'));
    await waitFor(() => s.clientCount() === 0); // the server sees the client's socket close after its process ended
    const counts = events.filter((e) => e.type === 'client-connected' || e.type === 'client-closed')
      .map((e) => `${e.type}:${'clients' in e ? e.clients : ''}`);
    expect(counts).toEqual(['client-connected:1', 'client-connected:2', 'client-closed:1', 'client-closed:0']);
    expect(events.filter((e) => e.type === 'media-prepared')).toEqual([{ type: 'media-prepared', path: '/live' }]);
    expect(events.filter((e) => e.type === 'play-request')).toEqual([
      { type: 'play-request', path: '/live' }, { type: 'play-request', path: '/live' }]);
    expect(events.find((e) => e.type === 'client-connected')).toMatchObject({ address: '127.0.0.1' });
  });

  it('plays smoothly: a clock-synced client renders 30 fps without drops (retimed timestamps)', async () => {
    const p = await producer();
    await sleep(1500); // the producer's running time is well past zero when the media starts
    const { s } = server(18526);
    s.mountFeed('/live', p, [FEED]);
    const c = spawn('gst-launch-1.0', ['-e', '-v', 'rtspsrc', 'location=rtsp://127.0.0.1:18526/live', 'latency=200', '!',
      'rtph264depay', '!', 'h264parse', '!', 'avdec_h264', '!', 'fpsdisplaysink', 'video-sink=fakesink', 'text-overlay=false', 'sync=true']);
    let out = '';
    const stats = () => [...out.matchAll(/rendered: (\d+), dropped: (\d+), current: ([\d.]+)/g)].pop();
    c.stdout.on('data', (d) => { out += d; });
    const exited = new Promise((r) => c.on('exit', r));
    // Until it has rendered 110 frames (about 4 s at 30 fps once it plays), not a fixed time: a client that starts
    // slowly beside a loaded machine's other suites rendered 79 in a fixed 5 s.
    await waitFor(() => Number(stats()?.[1] ?? 0) > 110, 20000).finally(() => c.kill('SIGINT'));
    await exited;
    const last = stats();
    expect(last).toBeDefined();
    const [, rendered, dropped, current] = last!.map(Number);
    expect(dropped).toBe(0);
    expect(rendered).toBeGreaterThan(100);
    expect(current).toBeGreaterThan(27);
  });

  it('ffprobe sees H.264 at the producer\'s size, and a new media after the previous one was torn down', async () => {
    const p = await producer();
    const { s, events } = server(18521);
    s.mountFeed('/live', p, [FEED]);
    expect(ffprobe('rtsp://127.0.0.1:18521/live')).toEqual(['h264,320,240']);
    await waitFor(() => events.filter((e) => e.type === 'media-unprepared').length === 1);
    expect(ffprobe('rtsp://127.0.0.1:18521/live')).toEqual(['h264,320,240']);
    await waitFor(() => events.filter((e) => e.type === 'media-unprepared').length === 2);
    expect(events.filter((e) => e.type === 'media-prepared')).toHaveLength(2);
  });

  it('carries several feeds in one mount (H.264 + Opus)', async () => {
    const p = await producer(`${PRODUCER} audiotestsrc is-live=true ! audioconvert ! opusenc ! appsink name=a0`);
    const { s } = server(18522);
    s.mountFeed('/av', p, [FEED, { appsink: 'a0', launch: 'rtpopuspay name=pay1 pt=97' }]);
    expect(ffprobe('rtsp://127.0.0.1:18522/av').sort()).toEqual(['h264,320,240', 'opus']);
  });

  // docs/dataplane.md, "Receiver matrix", item 4. gst-rtsp-server adds a client's sinks at its PLAY, async. One added
  // while the media is out of PLAYING (another sink not prerolled yet) waits in its preroll, inside the stream's tee
  // push; a sink of the other kind (UDP beside TCP) added then is linked only once that push ends, and holds the
  // media out of PLAYING until it prerolls: nothing moves again. The window is held open here: a slow track (a frame
  // a second) plays over UDP, then a TCP client's PLAY of it adds a sink that prerolls only at the next frame; right
  // behind it a TCP client and then a UDP client play a dense track (1000 buffers a second). Each round, a new media.
  it('delivers every track to clients over TCP and UDP that join a media together', async () => {
    const p = await producer('audiotestsrc is-live=true samplesperbuffer=8 ! audio/x-raw,rate=8000,channels=1 ! appsink name=dense ' +
      'videotestsrc is-live=true ! video/x-raw,format=I420,width=16,height=16,framerate=1/1 ! appsink name=slow');
    const { s, events } = server(18527);
    s.mountFeed('/two', p, [{ appsink: 'dense', launch: 'rtpgstpay name=pay0 pt=96' }, { appsink: 'slow', launch: 'rtpgstpay name=pay1 pt=97' }]);
    const url = 'rtsp://127.0.0.1:18527/two';
    const rounds: Array<{ ok: boolean; packets: string }> = [];
    for (let round = 0; round < 4; round++) {
      const slowUdp = await RtspClient.connect(url);
      const slowTcp = await RtspClient.connect(url);
      const denseTcp = await RtspClient.connect(url);
      const denseUdp = await RtspClient.connect(url);
      const clients = [slowUdp, slowTcp, denseTcp, denseUdp];
      try {
        for (const c of clients) expect((await c.send('DESCRIBE', url, { Accept: 'application/sdp' })).status).toBe(200);
        await slowUdp.openUdp(1);
        expect((await slowUdp.setupUdp(1)).status).toBe(200);
        expect((await slowUdp.send('PLAY', `${url}/`)).status).toBe(200);
        await waitFor(() => (slowUdp.packets.get(1) ?? 0) > 0);
        expect((await slowTcp.setupTcp(1)).status).toBe(200);
        expect((await denseTcp.setupTcp(0)).status).toBe(200);
        await denseUdp.openUdp(0);
        expect((await denseUdp.setupUdp(0)).status).toBe(200);
        const held = slowTcp.send('PLAY', `${url}/`);
        expect((await denseTcp.send('PLAY', `${url}/`)).status).toBe(200);
        expect((await denseUdp.send('PLAY', `${url}/`)).status).toBe(200);
        expect((await held).status).toBe(200);
        // Every client gets the track it set up (the slow one within a second).
        const got = () => [denseTcp.packets.get(0), denseUdp.packets.get(0), slowTcp.packets.get(2)].map((n) => n ?? 0);
        const ok = await waitFor(() => got().every((n) => n > 0), 5000).then(() => true, () => false);
        rounds.push({ ok, packets: `dense tcp ${got()[0]} udp ${got()[1]}, slow tcp ${got()[2]}` });
        await Promise.all(clients.map((c) => c.send('TEARDOWN', `${url}/`)));
      } finally {
        for (const c of clients) c.close();
      }
      await waitFor(() => events.filter((e) => e.type === 'media-unprepared').length === round + 1);
    }
    expect(rounds.filter((r) => !r.ok).length, rounds.map((r) => r.packets).join('; ')).toBe(0);
  });

  it('keeps JS sample delivery and feeds apart', async () => {
    const p = await producer(`${PRODUCER} videotestsrc is-live=true ! video/x-raw,width=64,height=48 ! appsink name=watched`);
    const { s } = server(18523);
    p.watchSink('watched');
    expect(codeOf(() => s.mountFeed('/a', p, [{ appsink: 'watched', launch: FEED.launch }]))).toBe('NG_ERR_ARG');
    s.mountFeed('/b', p, [FEED]);
    expect(codeOf(() => p.watchSink('v0'))).toBe('NG_ERR_ARG');
    expect(codeOf(() => s.mountFeed('/c', p, [FEED]))).toBe('NG_ERR_ARG'); // v0 is taken by /b
    s.unmount('/b');
    expect(() => p.watchSink('v0')).not.toThrow(); // given back
  });

  it('rejects bad feeds', async () => {
    const p = await producer();
    const { s } = server(18524);
    expect(codeOf(() => s.mountFeed('/x', p, [{ appsink: 'nope', launch: FEED.launch }]))).toBe('NG_ERR_ARG');
    expect(codeOf(() => s.mountFeed('/x', p, [{ appsink: 'h264parse0', launch: FEED.launch }]))).toBe('NG_ERR_ARG');
    expect(codeOf(() => s.mountFeed('/x', p, []))).toBe('NG_ERR_ARG');
    expect(codeOf(() => s.mountFeed('/x', {} as Native.Pipeline, [FEED]))).toBe('NG_ERR_ARG');
    expect(codeOf(() => s.mountFeed('/x', p, [{ appsink: 'v0', launch: 'nosuchelement name=pay0' }]))).toBe('NG_ERR_PARSE');
    const gone = new native.Pipeline('fakesink', () => {});
    gone.destroy();
    expect(codeOf(() => s.mountFeed('/x', gone, [FEED]))).toBe('NG_ERR_DESTROYED');
    // None of the failures took the appsink.
    s.mountFeed('/x', p, [FEED]);
  });

  it('survives the producer being destroyed while a client watches', async () => {
    const p = new native.Pipeline(PRODUCER, () => {});
    await p.setState('playing', 10_000);
    const { s, events } = server(18525);
    s.mountFeed('/live', p, [FEED]);
    const watching = client('rtsp://127.0.0.1:18525/live', 3000);
    await waitFor(() => events.some((e) => e.type === 'play-request'));
    await sleep(500);
    p.destroy();
    const r = await watching;
    expect(r.frames).toBeGreaterThan(5);
    await waitFor(() => s.clientCount() === 0); // the server sees the client's socket close after its process ended
  });
});

describe('mountLaunch (on demand)', () => {
  it('builds the media at the first client and tears it down after the last', async () => {
    const { s, events } = server(18530);
    s.mountLaunch('/od', ON_DEMAND);
    await sleep(500);
    expect(events).toEqual([]); // nothing runs without a client
    const url = 'rtsp://127.0.0.1:18530/od';
    const a = client(url, 3000);
    await waitFor(() => events.some((e) => e.type === 'media-prepared'));
    const b = client(url, 1500, 'tcp');
    await waitFor(() => s.clientCount() === 2);
    expect(events.some((e) => e.type === 'media-unprepared')).toBe(false);
    expect((await b).frames).toBeGreaterThan(10);
    await sleep(200);
    expect(events.some((e) => e.type === 'media-unprepared')).toBe(false); // one client still watching
    expect((await a).frames).toBeGreaterThan(40);
    await waitFor(() => events.some((e) => e.type === 'media-unprepared'));
    expect(events.filter((e) => e.type === 'media-prepared' || e.type === 'media-unprepared')).toEqual([
      { type: 'media-prepared', path: '/od' }, { type: 'media-unprepared', path: '/od' }]);
    await waitFor(() => s.clientCount() === 0); // the server sees the client's socket close after its process ended
  });

  it('rejects bad launch lines, duplicate and malformed paths', () => {
    const { s } = server(18531);
    expect(codeOf(() => s.mountLaunch('/bad', 'nosuchelement ! rtph264pay name=pay0'))).toBe('NG_ERR_PARSE');
    expect(codeOf(() => s.mountLaunch('no-slash', ON_DEMAND))).toBe('NG_ERR_ARG');
    s.mountLaunch('/od', ON_DEMAND);
    expect(codeOf(() => s.mountLaunch('/od', ON_DEMAND))).toBe('NG_ERR_RTSP');
  });

  it('unmount: new clients get nothing, the path can be mounted again', async () => {
    const { s } = server(18532);
    s.mountLaunch('/od', ON_DEMAND);
    s.unmount('/od');
    s.unmount('/od'); // unknown paths are ignored
    expect(ffprobe('rtsp://127.0.0.1:18532/od')).toEqual([]);
    s.mountLaunch('/od', ON_DEMAND);
    expect(ffprobe('rtsp://127.0.0.1:18532/od')).toEqual(['h264,320,240']);
  });
});

describe('sessions and lifetime', () => {
  it('cleanupSessions removes nothing while no session has expired', () => {
    const { s } = server(18540);
    expect(s.cleanupSessions()).toBe(0);
  });

  it('close with a client playing ends that client', async () => {
    const p = await producer();
    const { s, events } = server(18541);
    s.mountFeed('/live', p, [FEED]);
    const started = Date.now();
    const watching = client('rtsp://127.0.0.1:18541/live', 20_000);
    await waitFor(() => events.some((e) => e.type === 'play-request'));
    await sleep(300);
    s.close();
    await watching;
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('GC of an unclosed server is safe, and a server alone does not keep Node running', () => {
    const r = spawnSync(process.execPath, ['--expose-gc', '-e', `
      const n = require(${JSON.stringify(nativeDir)}); n.init();
      let collected = 0;
      const reg = new FinalizationRegistry(() => collected++);
      function make() {
        const s = new n.RtspServer('127.0.0.1', 18550, () => {});
        s.mountLaunch('/od', 'videotestsrc ! fakesink');
        reg.register(s, 1);
      }
      make();
      (async () => {
        for (let i = 0; i < 30 && !collected; i++) { await new Promise((r) => setTimeout(r, 100)); globalThis.gc(); }
        // The finalizer closed it: the port is free again.
        const again = new n.RtspServer('127.0.0.1', 18550, () => {});
        console.log('collected', collected, 'port', again.port);
      })();
    `], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('collected 1 port 18550');
  });
});
