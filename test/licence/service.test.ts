/** The licence on the real service: codecs per pipeline and per macro, the stream limit, failing closed, GET /svc/licence. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, sleep, startService, type RunningService } from '../helpers/service';
import { licenceFiles, licenceText, vendor } from './sign';

const v = vendor();
const VIDEO = 'videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1';
const advanced = (id: string, raw: string) => ({ id, mode: 'advanced', raw_pipeline: raw });
const started: RunningService[] = [];
async function serviceWith(payload: object | null, opts: { tamper?: boolean } = {}): Promise<RunningService> {
  let args: string[] = [];
  if (payload) {
    let text = licenceText(v, payload);
    if (opts.tamper) {
      const doc = JSON.parse(text);
      doc.signature = Buffer.from(Buffer.from(doc.signature, 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64');
      text = JSON.stringify(doc);
    }
    const files = licenceFiles(v, text);
    args = ['--licence', files.licence, '--licence-key', files.key];
  }
  const svc = await startService({ args });
  started.push(svc);
  return svc;
}
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe('a valid licence: h264 and codec2, one stream', () => {
  let svc: RunningService;
  const payload = { licensee: 'ACME', codecs: ['h264', 'codec2'], max_streams: 1 };
  beforeAll(async () => {
    svc = await serviceWith(payload);
  });

  it('GET /svc/licence shows what is in force, never the signature', async () => {
    const r = await svc.api('GET', '/svc/licence');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'valid', licensee: 'ACME', codecs: ['h264', 'codec2'], max_streams: 1, expires_at: null });
    expect(r.text).not.toMatch(/signature|payload/);
  });

  it('an unlicensed codec answers 402 LICENSE_ERROR, per macro and for a raw encoder element too', async () => {
    const cases = [
      { id: 'h265-simple', mode: 'simple', source: { uri: 'test://' }, encoding: { codec: 'h265' }, output: { uri: `${svc.dataDir}/x.mkv` } },
      advanced('h265-macro', `${VIDEO} ! <svc:h264 /> ! fakesink  ${VIDEO} ! <svc:h265 /> ! fakesink`),
      advanced('h265-raw', `${VIDEO} ! x265enc ! fakesink`),
    ];
    for (const body of cases) {
      const r = await svc.api('POST', '/svc/pipeline', body);
      expect(r.status, `${body.id}: ${r.text}`).toBe(402);
      expect(r.body).toEqual({ code: 'LICENSE_ERROR', message: 'codec not licensed: h265' });
      expect((await svc.api('GET', `/svc/pipeline/${body.id}`)).status).toBe(404);
    }
  });

  it('the stream limit holds at create and at play; an advanced pipeline counts once; one that does not encode not at all', async () => {
    const a = await svc.api('POST', '/svc/pipeline', advanced('adv-two', `${VIDEO} ! <svc:h264 /> ! fakesink  audiotestsrc is-live=true ! <svc:codec2 /> ! fakesink`));
    expect(a.status, a.text).toBe(201);
    expect(a.body.state).toBe('playing');
    const b = await svc.api('POST', '/svc/pipeline', h264Body('second', `${svc.dataDir}/second.mkv`));
    expect(b.status).toBe(402);
    expect(b.body).toEqual({ code: 'LICENSE_LIMIT_EXCEEDED', message: 'the licence allows 1 encoding stream at once' });
    const raw = await svc.api('POST', '/svc/pipeline', advanced('raw-x264', `${VIDEO} ! x264enc ! fakesink`));
    expect(raw.status).toBe(402);
    expect(raw.body.code).toBe('LICENSE_LIMIT_EXCEEDED');
    const plain = await svc.api('POST', '/svc/pipeline', advanced('no-encoder', `${VIDEO} ! fakesink`));
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.state).toBe('playing');
    // Free the stream, take it with another pipeline, then the first cannot play again.
    await svc.api('PUT', '/svc/pipeline/adv-two/stop');
    expect((await svc.api('POST', '/svc/pipeline', h264Body('second', `${svc.dataDir}/second.mkv`))).status).toBe(201);
    const replay = await svc.api('PUT', '/svc/pipeline/adv-two/play');
    expect(replay.status).toBe(402);
    expect(replay.body.code).toBe('LICENSE_LIMIT_EXCEEDED');
    for (const id of ['adv-two', 'second', 'no-encoder']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      await svc.api('DELETE', `/svc/pipeline/${id}`);
    }
  });
});

describe('failing closed', () => {
  it('a licence whose signature does not verify: the service serves, nothing encodes, GET /svc/licence says why', async () => {
    const svc = await serviceWith({ licensee: 'ACME', codecs: ['h264'], max_streams: 10 }, { tamper: true });
    expect((await svc.api('GET', '/svc/health')).status).toBe(200);
    const l = await svc.api('GET', '/svc/licence');
    expect(l.body).toEqual({
      status: 'invalid', reason: 'licence invalid: the licence signature does not verify', licensee: null, codecs: [], max_streams: 0, expires_at: null,
    });
    const r = await svc.api('POST', '/svc/pipeline', h264Body('enc', `${svc.dataDir}/enc.mkv`));
    expect(r.status).toBe(402);
    expect(r.body).toEqual({ code: 'LICENSE_ERROR', message: 'codec not licensed: h264 (licence invalid: the licence signature does not verify)' });
    // What does not encode still runs.
    const plain = await svc.api('POST', '/svc/pipeline', advanced('plain', `${VIDEO} ! fakesink`));
    expect(plain.status).toBe(201);
    await svc.api('PUT', '/svc/pipeline/plain/stop');
    expect(svc.logs()).toContain('licence invalid: the licence signature does not verify: nothing will encode');
  });

  it('an expired licence: nothing encodes; a patch that restarts the encoder answers 402 LICENSE_ERROR', async () => {
    // Long enough for a service start and a create on a loaded machine (6 s once ran out before the create).
    const expiresAt = new Date(Date.now() + 15000).toISOString();
    const svc = await serviceWith({ licensee: 'ACME', codecs: ['h264'], max_streams: 5, expires_at: expiresAt });
    const r = await svc.api('POST', '/svc/pipeline', h264Body('p', `${svc.dataDir}/p.mkv`));
    expect(r.status, r.text).toBe(201);
    expect((await svc.api('GET', '/svc/licence')).body.status).toBe('valid');
    await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()) + 200);
    expect((await svc.api('GET', '/svc/licence')).body).toMatchObject({ status: 'expired', reason: `licence expired at ${expiresAt}` });
    // Resolution changes rebuild the pipeline: spec patch rule, LICENSE_ERROR for any licence refusal.
    const p = await svc.api('PATCH', '/svc/pipeline/p', { encoding: { width: 640 } });
    expect(p.status).toBe(402);
    expect(p.body.code).toBe('LICENSE_ERROR');
    const c = await svc.api('POST', '/svc/pipeline', h264Body('q', `${svc.dataDir}/q.mkv`));
    expect(c.status).toBe(402);
    expect(c.body.message).toBe(`codec not licensed: h264 (licence expired at ${expiresAt})`);
  });

  it('no --licence at all is the unrestricted default', async () => {
    const svc = await serviceWith(null);
    expect((await svc.api('GET', '/svc/licence')).body).toEqual({ status: 'unrestricted', licensee: null, codecs: null, max_streams: null, expires_at: null });
  });
});
