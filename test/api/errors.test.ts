/** Every error comes back in the standard body, with the spec's code and status, over real HTTPS. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { h264Body, startService, type RunningService } from '../helpers/service';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ args: ['--body-limit', '65536'] });
});
afterAll(async () => {
  await svc?.stop();
});

function expectBody(r: { status: number; body: any }, status: number, code: string) {
  expect(r.status).toBe(status);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.message.length).toBeGreaterThan(0);
  expect(r.body.code).toBe(code);
}

const out = () => `${svc.dataDir}/e-${Math.random().toString(36).slice(2)}.mkv`;

describe('validation (400 VALIDATION_ERROR, details name the field)', () => {
  const cases: Array<[string, (b: any) => void, string]> = [
    ['id pattern', (b) => { b.id = 'bad id!'; }, "id must contain only letters, digits, '_' and '-'"],
    ['id length', (b) => { b.id = 'x'.repeat(65); }, 'id must be at most 64 characters'],
    ['id missing', (b) => { delete b.id; }, 'id is required'],
    ['bitrate low', (b) => { b.encoding.bitrate = 4; }, 'encoding.bitrate must be between 5 and 5000'],
    ['bitrate high', (b) => { b.encoding.bitrate = 5001; }, 'encoding.bitrate must be between 5 and 5000'],
    ['fps', (b) => { b.encoding.fps = 121; }, 'encoding.fps must be between 1 and 120'],
    ['fps zero', (b) => { b.encoding.fps = 0; }, 'encoding.fps must be between 1 and 120'],
    ['width', (b) => { b.encoding.width = 0; }, 'encoding.width must be between 1 and 16384'],
    ['height type', (b) => { b.encoding.height = '720'; }, 'encoding.height must be an integer'],
    ['codec', (b) => { b.encoding.codec = 'mpeg2'; }, 'encoding.codec must be one of'],
    ['mode', (b) => { b.mode = 'fancy'; }, 'mode must be one of simple, multiview, advanced'],
    ['unknown field', (b) => { b.colour = 'blue'; }, 'colour is not a supported field'],
    ['source scheme', (b) => { b.source.uri = 'gopher://x'; }, 'source.uri scheme is not supported'],
    ['test pattern', (b) => { b.source.uri = 'test://nope'; }, 'source.uri test pattern must be one of'],
    ['encoding required for raw sources', (b) => { delete b.encoding; }, 'encoding is required for this source'],
    ['output extension', (b) => { b.output.uri = '/tmp/x.avi'; }, 'output.uri extension must be one of'],
    ['output directory', (b) => { b.output.uri = '/nonexistent-dir/x.ts'; }, 'output.uri directory /nonexistent-dir does not exist'],
    ['control characters', (b) => { b.output.uri = '/tmp/a\nb.ts'; }, 'output.uri must not contain control characters'],
    ['on_demand without RTSP', (b) => { b.on_demand = true; }, 'on_demand is allowed only with a local RTSP output'],
  ];
  for (const [name, mutate, message] of cases) {
    it(name, async () => {
      const body = h264Body('v1', out());
      mutate(body);
      const r = await svc.api('POST', '/svc/pipeline', body);
      expectBody(r, 400, 'VALIDATION_ERROR');
      expect(Array.isArray(r.body.details.errors)).toBe(true);
      expect(r.body.details.errors.some((e: string) => e.startsWith(message))).toBe(true);
    });
  }

  it('a body that is not an object', async () => {
    expectBody(await svc.api('POST', '/svc/pipeline', [1, 2]), 400, 'VALIDATION_ERROR');
  });
});

describe("Fastify's own failures in the same body", () => {
  it('malformed JSON → 400', async () => {
    const r = await svc.api('POST', '/svc/pipeline', undefined, { raw: '{"id": ', headers: { 'content-type': 'application/json' } });
    expectBody(r, 400, 'VALIDATION_ERROR');
    expect(r.body.message).toMatch(/JSON/);
  });
  it('unsupported content type → 415', async () => {
    const r = await svc.api('POST', '/svc/pipeline', undefined, { raw: 'id=x', headers: { 'content-type': 'text/plain' } });
    expectBody(r, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
  it('unknown route → 404', async () => {
    expectBody(await svc.api('GET', '/svc/nothing-here'), 404, 'NOT_FOUND');
  });
  it('body too large → 413', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { id: 'big', pad: 'x'.repeat(70000) });
    expectBody(r, 413, 'PAYLOAD_TOO_LARGE');
  });
  it('bad query value → 400', async () => {
    expectBody(await svc.api('GET', '/svc/pipeline?state=sleeping'), 400, 'VALIDATION_ERROR');
  });
});

describe('pipeline errors', () => {
  it('404 NOT_FOUND for an unknown pipeline on every pipeline route', async () => {
    for (const [method, path] of [['GET', '/svc/pipeline/nope'], ['GET', '/svc/pipeline/nope/status'], ['PUT', '/svc/pipeline/nope/play'],
      ['PUT', '/svc/pipeline/nope/stop'], ['DELETE', '/svc/pipeline/nope']] as const) {
      expectBody(await svc.api(method, path), 404, 'NOT_FOUND');
    }
    expectBody(await svc.api('PUT', '/svc/pipeline/nope', h264Body('nope', out())), 404, 'NOT_FOUND');
    expectBody(await svc.api('PATCH', '/svc/pipeline/nope', { encoding: { bitrate: 100 } }), 404, 'NOT_FOUND');
  });

  it('409 CONFLICT deleting or replacing a running pipeline; 409 PIPELINE_CONFLICT for a taken file or id', async () => {
    const path = out();
    expect((await svc.api('POST', '/svc/pipeline', h264Body('run1', path))).status).toBe(201);
    expectBody(await svc.api('DELETE', '/svc/pipeline/run1'), 409, 'CONFLICT');
    expectBody(await svc.api('PUT', '/svc/pipeline/run1', h264Body('run1', path)), 409, 'CONFLICT');
    const taken = await svc.api('POST', '/svc/pipeline', h264Body('run2', path));
    expectBody(taken, 409, 'PIPELINE_CONFLICT');
    expect(taken.body.message).toContain(path);
    expect(taken.body.message).toContain('run1');
    expectBody(await svc.api('POST', '/svc/pipeline', h264Body('run1', out())), 409, 'PIPELINE_CONFLICT');
    await svc.api('PUT', '/svc/pipeline/run1/stop');
  });

  it('504 PIPELINE_START_TIMEOUT when the pipeline cannot start; the pipeline stays, ready, with last_error', async () => {
    // /proc exists, but no file can be created in it: the file sink fails its state change.
    const r = await svc.api('POST', '/svc/pipeline', h264Body('nostart', '/proc/encoderd-cannot-write.ts'));
    expectBody(r, 504, 'PIPELINE_START_TIMEOUT');
    const p = await svc.api('GET', '/svc/pipeline/nostart');
    expect(p.body.state).toBe('ready');
    expect(p.body.last_error).toBeTruthy();
    expectBody(await svc.api('PUT', '/svc/pipeline/nostart/play'), 504, 'PIPELINE_START_TIMEOUT');
    expect((await svc.api('DELETE', '/svc/pipeline/nostart')).status).toBe(204);
  });
});
