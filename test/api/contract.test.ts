/**
 * Issue 14, "Spec and API defects", over real HTTPS: the licence counts on-demand pipelines, a listening on-demand
 * pipeline is not replaced, a GET body PUTs back, error bodies in the spec's shape (parser failures, HTTP parser
 * rejections, 405 with Allow), framegrab start bodies, `persisted` after re-creation, file conflicts on resolved paths.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, h264Body, startService, type RunningService } from '../helpers/service';
import { licenceFiles, licenceText, vendor } from '../licence/sign';

/** One raw request over TLS; the whole answer as text (status line, headers, body). With end, the client half-closes after it. */
function raw(port: number, text: string, end = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.write(text);
      if (end) socket.end();
    });
    let out = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => { out += d; });
    socket.on('end', () => resolve(out));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
const errorShape = { message: expect.any(String), code: 'VALIDATION_ERROR', details: { errors: [expect.any(String)] } };

const started: RunningService[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

describe('one service', () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService();
    started.push(svc);
  });

  it('an on-demand pipeline whose RTSP server listens is not replaced: PUT 409 CONFLICT, encoding PATCH 409 PIPELINE_CONFLICT', async () => {
    const port = await freePort();
    const body = h264Body('od-listen', `rtsp://0.0.0.0:${port}/od`, { on_demand: true });
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    const put = await svc.api('PUT', '/svc/pipeline/od-listen', { ...body, encoding: { ...body.encoding, bitrate: 900 } });
    expect(put.status).toBe(409);
    expect(put.body).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/listening; stop it first/) });
    const patch = await svc.api('PATCH', '/svc/pipeline/od-listen', { encoding: { width: 640 } });
    expect(patch.status).toBe(409);
    expect(patch.body.code).toBe('PIPELINE_CONFLICT');
    // Geolocation still applies live.
    expect((await svc.api('PATCH', '/svc/pipeline/od-listen', { geolocation: { latitude: 1, longitude: 2 } })).status).toBe(200);
    expect((await svc.api('PUT', '/svc/pipeline/od-listen/stop')).status).toBe(200);
    const replaced = await svc.api('PUT', '/svc/pipeline/od-listen', { ...body, encoding: { ...body.encoding, bitrate: 900 } });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.encoding.bitrate).toBe(900);
    expect((await svc.api('DELETE', '/svc/pipeline/od-listen')).status).toBe(204);
  });

  it('a GET body, every response-only field included (framegrab, health, stats, …), PUTs back', async () => {
    const body = h264Body('round', `${svc.dataDir}/round.mkv`);
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/round/stop')).status).toBe(200);
    expect((await svc.api('PUT', '/svc/pipeline/round/framegrab/start', { interval_seconds: 9 })).status).toBe(200);
    const got = (await svc.api('GET', '/svc/pipeline/round')).body;
    for (const k of ['framegrab', 'health', 'health_reason', 'stats', 'klv', 'state', 'persisted', 'last_error']) expect(got, k).toHaveProperty(k);
    const put = await svc.api('PUT', '/svc/pipeline/round', got);
    expect(put.status, put.text).toBe(200);
    expect(put.body.framegrab).toMatchObject({ state: 'running', interval_seconds: 9 });
    expect((await svc.api('DELETE', '/svc/pipeline/round')).status).toBe(204);
  });

  it('PUT …/framegrab/start refuses 0, false, "" and arrays; empty and null mean the defaults', async () => {
    const body = h264Body('fg-body', `${svc.dataDir}/fg-body.mkv`);
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/fg-body/stop')).status).toBe(200);
    for (const text of ['0', 'false', '""', '[]', '7']) {
      const r = await svc.api('PUT', '/svc/pipeline/fg-body/framegrab/start', undefined, { raw: text, headers: { 'content-type': 'application/json' } });
      expect(r.status, text).toBe(400);
      expect(r.body, text).toEqual(errorShape);
    }
    for (const text of ['', 'null']) {
      const r = await svc.api('PUT', '/svc/pipeline/fg-body/framegrab/start', undefined, { raw: text, headers: { 'content-type': 'application/json' } });
      expect(r.status, text).toBe(200);
      expect(r.body.framegrab).toEqual({ state: 'running', interval_seconds: 5, quality: 85 });
    }
    expect((await svc.api('DELETE', '/svc/pipeline/fg-body')).status).toBe(204);
  });

  it('error bodies: malformed JSON, deep nesting, wrong Content-Length and Fastify\'s own 400s carry details.errors', async () => {
    const json = { 'content-type': 'application/json' };
    const malformed = await svc.api('POST', '/svc/pipeline', undefined, { raw: '{"id":', headers: json });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(errorShape);
    const deep = await svc.api('POST', '/svc/pipeline', undefined, { raw: '['.repeat(100) + ']'.repeat(100), headers: json });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual(errorShape);
    const query = await svc.api('GET', '/svc/pipeline?state=nope');
    expect(query.status).toBe(400);
    expect(query.body).toEqual(errorShape);
    // A Content-Length of 50 with 10 bytes of body, then the client ends its side: the body is short.
    const head = (length: number) => `POST /svc/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const short = await raw(svc.port, `${head(50)}{"url":"h"`, true);
    expect(short).toMatch(/^HTTP\/1.1 400 /);
    expect(bodyOf(short)).toEqual({ ...errorShape, details: { errors: ['the body is shorter than its Content-Length (the connection ended first)'] } });
    // More bytes than declared: the 5 declared are no JSON, and what follows them is no request; either is this body.
    const long = await raw(svc.port, `${head(5)}{"url":"http://127.0.0.1:9/h","events":["pipeline.started"]}`);
    expect(long).toMatch(/^HTTP\/1.1 400 /);
    expect(bodyOf(long)).toEqual(errorShape);
    expect((await svc.api('GET', '/svc/webhooks')).body).toEqual([]);
  });

  it('a request Node\'s HTTP parser refuses gets the spec\'s body', async () => {
    const answer = await raw(svc.port, 'POST /svc/webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}');
    expect(answer).toMatch(/^HTTP\/1.1 400 /);
    expect(answer).toMatch(/content-type: application\/json/i);
    expect(bodyOf(answer)).toEqual(errorShape);
  });

  it('an unrouted method on a known path answers 405 with Allow; an unknown path stays 404', async () => {
    const r = await svc.api('PATCH', '/svc/health');
    expect(r.status).toBe(405);
    expect(r.headers.allow).toBe('GET, HEAD');
    expect(r.body).toEqual({ code: 'METHOD_NOT_ALLOWED', message: 'PATCH is not allowed on /svc/health; allowed: GET, HEAD' });
    const p = await svc.api('POST', '/svc/pipeline/x/play');
    expect(p.status).toBe(405);
    expect(p.headers.allow).toBe('PUT');
    const store = await svc.api('PUT', '/svc/pipeline/x/store');
    expect(store.headers.allow).toBe('POST, PATCH, DELETE');
    expect((await svc.api('GET', '/svc/nothing/here')).status).toBe(404);
  });

  it('file conflicts compare resolved paths: ./, // and a symlinked directory name the same file', async () => {
    const dir = join(svc.dataDir, 'rec');
    mkdirSync(dir);
    symlinkSync(dir, join(svc.dataDir, 'link'));
    expect((await svc.api('POST', '/svc/pipeline', h264Body('file-a', `${dir}/a.mkv`))).status).toBe(201);
    for (const [id, path] of [['file-dot', `${dir}/./a.mkv`], ['file-slash', `${dir}//a.mkv`], ['file-link', `${svc.dataDir}/link/a.mkv`], ['file-up', `${dir}/../rec/a.mkv`]]) {
      const r = await svc.api('POST', '/svc/pipeline', h264Body(id, path));
      expect(r.status, `${path}: ${r.text}`).toBe(409);
      expect(r.body.code).toBe('PIPELINE_CONFLICT');
      expect(r.body.message).toMatch(/in use by pipeline "file-a"/);
    }
    expect((await svc.api('PUT', '/svc/pipeline/file-a/stop')).status).toBe(200);
    expect((await svc.api('DELETE', '/svc/pipeline/file-a')).status).toBe(204);
  });

  it('persisted tells the truth: a re-created id whose stored copy exists is persisted; a stored pipeline is never on demand', async () => {
    const body = h264Body('kept', `${svc.dataDir}/kept.mkv`);
    expect((await svc.api('POST', '/svc/pipeline', body)).status).toBe(201);
    expect((await svc.api('POST', '/svc/pipeline/kept/store', { description: 'door' })).status).toBe(201);
    expect((await svc.api('PUT', '/svc/pipeline/kept/stop')).status).toBe(200);
    const port = await freePort();
    const onDemand = h264Body('kept', `rtsp://0.0.0.0:${port}/kept`, { on_demand: true });
    const refused = await svc.api('PUT', '/svc/pipeline/kept', onDemand);
    expect(refused.status).toBe(400);
    expect(refused.body.details.errors[0]).toMatch(/^on_demand cannot be true: pipeline "kept" is in storage/);
    expect((await svc.api('DELETE', '/svc/pipeline/kept')).status).toBe(204);
    // The stored copy outlives the DELETE: the same id created again is in storage.
    const onDemandAgain = await svc.api('POST', '/svc/pipeline', onDemand);
    expect(onDemandAgain.status).toBe(400);
    expect((await svc.api('GET', '/svc/pipeline/kept')).status).toBe(404);
    const again = await svc.api('POST', '/svc/pipeline', { ...body, on_demand: false });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ persisted: true, description: 'door', auto_start: false });
    const unstored = await svc.api('DELETE', '/svc/pipeline/kept/store');
    expect(unstored.status).toBe(200);
    expect(unstored.body.persisted).toBe(false);
    expect((await svc.api('PUT', '/svc/pipeline/kept/stop')).status).toBe(200);
    expect((await svc.api('DELETE', '/svc/pipeline/kept')).status).toBe(204);
    // Nothing stored now: an on-demand pipeline of that id is fine.
    expect((await svc.api('POST', '/svc/pipeline', onDemand)).body).toMatchObject({ persisted: false, on_demand: true });
    expect((await svc.api('PUT', '/svc/pipeline/kept/stop')).status).toBe(200);
    expect((await svc.api('DELETE', '/svc/pipeline/kept')).status).toBe(204);
  });
});

describe('a licence for one stream', () => {
  it('counts an on-demand pipeline while its RTSP server listens; PUT play of one answers LICENSE_LIMIT_EXCEEDED when over', async () => {
    const v = vendor();
    const files = licenceFiles(v, licenceText(v, { licensee: 'ACME', codecs: ['h264'], max_streams: 1 }));
    const svc = await startService({ args: ['--licence', files.licence, '--licence-key', files.key] });
    started.push(svc);
    const port = await freePort();
    const od = await svc.api('POST', '/svc/pipeline', h264Body('od', `rtsp://0.0.0.0:${port}/od`, { on_demand: true }));
    expect(od.status, od.text).toBe(201);
    const second = await svc.api('POST', '/svc/pipeline', h264Body('rec', `${svc.dataDir}/rec.mkv`));
    expect(second.status).toBe(402);
    expect(second.body).toEqual({ code: 'LICENSE_LIMIT_EXCEEDED', message: 'the licence allows 1 encoding stream at once' });
    const anotherOd = await svc.api('POST', '/svc/pipeline', h264Body('od2', `rtsp://0.0.0.0:${await freePort()}/od2`, { on_demand: true }));
    expect(anotherOd.body.code).toBe('LICENSE_LIMIT_EXCEEDED');
    // Stopping the on-demand pipeline closes its server and frees the stream; playing it again is then over the limit.
    expect((await svc.api('PUT', '/svc/pipeline/od/stop')).status).toBe(200);
    expect((await svc.api('POST', '/svc/pipeline', h264Body('rec', `${svc.dataDir}/rec.mkv`))).status).toBe(201);
    const play = await svc.api('PUT', '/svc/pipeline/od/play');
    expect(play.status).toBe(402);
    expect(play.body.code).toBe('LICENSE_LIMIT_EXCEEDED');
    expect((await svc.api('PUT', '/svc/pipeline/rec/stop')).status).toBe(200);
    expect((await svc.api('PUT', '/svc/pipeline/od/play')).status).toBe(200);
  });
});
