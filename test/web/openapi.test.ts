/**
 * The OpenAPI document (issue 14): valid OpenAPI 3.1 for swagger-parser, examples valid against their own schemas,
 * and the real service answers only what it documents: every operation is driven with valid and invalid input, each
 * answer's status must be listed for its operation and its body must match the listed schema (Ajv 2020-12) or media
 * type. SSE streams are opened for real.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsPatchSchema } from '../../core/settings/schema';
import { freePort, h264Body, startService, waitFor, type ApiResponse, type RequestOptions, type RunningService } from '../helpers/service';
import { openSse } from '../helpers/sse';
import { call } from './client';

let svc: RunningService;
let doc: any;
let deref: any;
beforeAll(async () => {
  const port = await freePort();
  svc = await startService({ args: ['--explorer-port', String(port)] });
  await svc.api('PUT', '/svc/settings', { explorer_enabled: true });
  doc = await waitFor(async () => (await call(port, 'GET', '/openapi.json', { plain: true })).body, 5000);
  deref = await SwaggerParser.dereference(structuredClone(doc));
});
afterAll(async () => {
  await svc?.stop();
});

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addKeyword({ keyword: 'discriminator' });

/** Every documented operation as "METHOD /path/{param}". */
const operations = () => Object.entries<any>(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));

/** The documented operation of a concrete method and path. */
function operation(method: string, path: string): { template: string; op: any } {
  for (const [template, ops] of Object.entries<any>(deref.paths)) {
    const re = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    if (re.test(path) && ops[method.toLowerCase()]) return { template, op: ops[method.toLowerCase()] };
  }
  throw new Error(`${method} ${path} is not in the document`);
}

/** Operations sent at all, and those answered a client error (input the service refused, not a missing token). */
const exercised = new Set<string>();
const refused = new Set<string>();

/** Checks one answer against its operation's documented responses: the status is listed, the body is what it says. */
function check(method: string, path: string, r: Pick<ApiResponse, 'status' | 'headers' | 'body' | 'text'>): void {
  const { template, op } = operation(method, path.split('?')[0]);
  const key = `${method} ${template}`;
  exercised.add(key);
  if (r.status >= 400 && r.status < 500 && r.status !== 401) refused.add(key);
  const where = `${method} ${path} -> ${r.status} ${r.text.slice(0, 200)}`;
  const documented = op.responses[String(r.status)];
  expect(documented, where).toBeDefined();
  const media = Object.keys(documented.content ?? {});
  if (!media.length) {
    expect(r.text, where).toBe('');
    return;
  }
  const type = String(r.headers['content-type'] ?? '').split(';')[0];
  expect(media.includes(type) || media.includes('*/*'), `${where}: content-type ${type}, documented ${media}`).toBe(true);
  const json = documented.content['application/json']?.schema;
  if (type === 'application/json' && json) expect(ajv.validate(json, r.body), `${where}: ${ajv.errorsText()}`).toBe(true);
}

async function conform(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<ApiResponse> {
  const r = await svc.api(method, path, body, opts);
  check(method, path, r);
  return r;
}

const json = { 'content-type': 'application/json' };
const raw = (text: string, headers: Record<string, string> = json): RequestOptions => ({ raw: text, headers });

/** Opens an SSE stream for real: documented as text/event-stream, answered so, and its first message read. */
async function conformSse(path: string, firstEvent?: string): Promise<void> {
  const { template, op } = operation('GET', path.split('?')[0]);
  exercised.add(`GET ${template}`);
  expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
  const sse = await openSse(svc.port, path);
  try {
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    // A stream of nothing yet (no cameras) still says it is connected, in a comment.
    if (firstEvent) expect((await sse.next(() => true)).event, path).toBe(firstEvent);
    else await waitFor(() => sse.comments.includes('connected'), 5000);
  } finally {
    sse.close();
  }
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for swagger-parser', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });

  it('documents the real success codes, SSE streams, required parameters, bodies and per-mode rules', () => {
    expect(Object.keys(doc.paths['/svc/auth/logout'].post.responses)).toContain('204');
    expect(Object.keys(doc.paths['/svc/pipeline/{id}'].delete.responses)).toContain('204');
    expect(Object.keys(doc.paths['/svc/webhooks/{id}'].delete.responses)).toContain('204');
    expect(Object.keys(doc.paths['/svc/files/framegrabs/{file}'].delete.responses)).toContain('204');
    expect(Object.keys(doc.paths['/svc/pipeline/{id}/store'].post.responses)).toContain('201');
    for (const p of ['/svc/auth/logout', '/svc/pipeline/{id}', '/svc/webhooks/{id}', '/svc/files/framegrabs/{file}']) {
      const m = p === '/svc/auth/logout' ? 'post' : 'delete';
      expect(doc.paths[p][m].responses['200'], p).toBeUndefined();
    }
    for (const p of ['/svc/pipeline/{id}/status/events', '/svc/cameras/events', '/svc/events']) {
      expect(Object.keys(doc.paths[p].get.responses['200'].content)).toEqual(['text/event-stream']);
    }
    expect(doc.paths['/svc/camera'].get.parameters.find((q: any) => q.name === 'path').required).toBe(true);
    for (const [p, m] of [['/svc/auth/login', 'post'], ['/svc/auth/password', 'put'], ['/svc/pipeline/{id}/store', 'patch'], ['/svc/webhooks', 'post'], ['/svc/settings', 'put']]) {
      expect(doc.paths[p][m].requestBody, `${m} ${p}`).toBeDefined();
    }
    // Bodies whose every field has a default may be left out.
    expect(doc.paths['/svc/pipeline/{id}/framegrab/start'].put.requestBody.required).toBe(false);
    expect(doc.paths['/svc/pipeline/{id}/store'].post.requestBody.required).toBe(false);
    expect(doc.paths['/svc/pipeline'].post.requestBody.required).toBe(true);
    // PUT /svc/settings documents what the settings service validates: any of the fields, at least one, nothing else.
    const settings = deref.paths['/svc/settings'].put.requestBody.content['application/json'].schema;
    expect(settings).toMatchObject({ type: 'object', additionalProperties: false, minProperties: 1 });
    expect(Object.keys(settings.properties)).toEqual(Object.keys(settingsPatchSchema.properties));
    const create = deref.paths['/svc/pipeline'].post.requestBody.content['application/json'].schema;
    expect(create.oneOf.map((v: any) => v.properties.mode.const ?? v.properties.mode.enum?.[0])).toEqual(['simple', 'multiview', 'advanced']);
    expect(create.discriminator.propertyName).toBe('mode');
  });

  it('documents every error an operation can answer: shutdown 503, 404 for a path parameter, 507 for writes, 405 shared', () => {
    for (const o of operations()) {
      const [m, p] = o.split(' ');
      const responses = doc.paths[p][m.toLowerCase()].responses;
      expect(Object.keys(responses).some((s) => s >= '400'), o).toBe(true);
      // A request that arrives while the service shuts down is 503 ENGINE_UNAVAILABLE (docs/errors.md), whatever it asks.
      expect(JSON.stringify(responses['503']), o).toContain('ENGINE_UNAVAILABLE');
      expect(responses['500'], o).toBeDefined();
      if (p.includes('{')) expect(JSON.stringify(responses['404']), o).toContain('NOT_FOUND');
      if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(m)) expect([responses['413'], responses['415']].every(Boolean), o).toBe(true);
    }
    const writes = [
      'POST /svc/pipeline/{id}/store', 'PATCH /svc/pipeline/{id}/store', 'PUT /svc/settings', 'POST /svc/webhooks', 'POST /svc/auth/keys',
      'DELETE /svc/auth/keys/{id}', 'POST /svc/auth/login', 'POST /svc/auth/logout', 'PUT /svc/auth/password', 'DELETE /svc/auth/password',
    ];
    expect(operations().filter((o) => {
      const [m, p] = o.split(' ');
      return doc.paths[p][m.toLowerCase()].responses['507'];
    }).sort()).toEqual(writes.sort());
    for (const o of writes) {
      const [m, p] = o.split(' ');
      expect(deref.paths[p][m.toLowerCase()].responses['507'].content['application/json'].schema.properties.code.enum).toEqual(['INSUFFICIENT_STORAGE']);
    }
    const notAllowed = doc.components.responses.MethodNotAllowed;
    expect(Object.keys(notAllowed.headers)).toEqual(['Allow']);
    expect(notAllowed.content['application/json'].schema.properties.code.enum).toEqual(['METHOD_NOT_ALLOWED']);
    expect(doc.info.description).toContain('#/components/responses/MethodNotAllowed');
  });

  it('every request body has named examples, each valid against its own schema; the pipeline ones show every mode', () => {
    for (const o of operations()) {
      const [m, p] = o.split(' ');
      const media = deref.paths[p][m.toLowerCase()].requestBody?.content?.['application/json'];
      if (!media) continue;
      expect(Object.keys(media.examples ?? {}).length, o).toBeGreaterThan(0);
      for (const [name, example] of Object.entries<any>(media.examples)) {
        expect(example.summary, `${o} ${name}`).toEqual(expect.any(String));
        expect(ajv.validate(media.schema, example.value), `${o} example ${name}: ${ajv.errorsText()}`).toBe(true);
      }
    }
    const create = deref.paths['/svc/pipeline'].post.requestBody.content['application/json'];
    expect(new Set(Object.values<any>(create.examples).map((e) => e.value.mode))).toEqual(new Set(['simple', 'multiview', 'advanced']));
    // The check has teeth: a body of one mode carrying another mode's field matches no variant.
    const bad = { ...create.examples.simple.value, inputs: create.examples.multiview.value.inputs };
    expect(ajv.validate(create.schema, bad)).toBe(false);
  });

  it('the service answers every request with a documented status and body', async () => {
    const examples = deref.paths['/svc/pipeline'].post.requestBody.content['application/json'].examples;
    // The document's own examples of each mode, created for real. Their outputs and sizes are an appliance's: here each
    // gets a free port and a small picture, so three pipelines play side by side on a shared 2-core machine.
    const small = { width: 320, height: 240, fps: 10, bitrate: 300 };
    const simple = { ...examples.simple.value, encoding: { ...examples.simple.value.encoding, ...small }, output: { uri: `rtsp://0.0.0.0:${await freePort()}/test-pattern` } };
    const multiview = { ...examples.multiview.value, encoding: { ...examples.multiview.value.encoding, ...small }, output: { uri: `udp://127.0.0.1:${await freePort()}` } };
    const advanced = {
      ...examples.advanced.value,
      raw_pipeline: (examples.advanced.value.raw_pipeline as string).replace(/width=\d+,height=\d+,framerate=\d+\/1/, 'width=320,height=240,framerate=10/1'),
    };
    expect(advanced.raw_pipeline).toMatch(/<svc:\w+ bitrate=\d+ \/>/);
    for (const body of [simple, multiview, advanced]) {
      const created = await conform('POST', '/svc/pipeline', body);
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ id: body.id, mode: body.mode, state: 'playing' });
    }
    // Invalid bodies of each mode, and bodies that are not JSON at all.
    await conform('POST', '/svc/pipeline', { ...simple, id: 'mixed', inputs: multiview.inputs });
    await conform('POST', '/svc/pipeline', { ...multiview, id: 'five', inputs: [...multiview.inputs, ...multiview.inputs, multiview.inputs[0]] });
    await conform('POST', '/svc/pipeline', { id: 'bad-macro', mode: 'advanced', raw_pipeline: 'videotestsrc ! <svc:h264 bitrate=0 /> ! fakesink' });
    await conform('POST', '/svc/pipeline', { id: 'bad-element', mode: 'advanced', raw_pipeline: 'videotestsrc ! nosuchelement ! fakesink' });
    await conform('POST', '/svc/pipeline', { id: 'bad id', mode: 'simple' });
    await conform('POST', '/svc/pipeline', simple);
    await conform('POST', '/svc/pipeline', undefined, raw('{'));
    await conform('POST', '/svc/pipeline', undefined, raw('{}', { 'content-type': 'text/plain' }));
    await conform('POST', '/svc/pipeline', undefined, raw(JSON.stringify({ ...simple, id: 'big', raw: 'x'.repeat(1100 * 1024) })));
    await conform('GET', `/svc/pipeline/${'x'.repeat(101)}`);

    const wall = `/svc/pipeline/${multiview.id}`;
    const custom = `/svc/pipeline/${advanced.id}`;
    await conform('GET', wall);
    await conform('GET', `${custom}/status`);
    await conform('GET', `${wall}/stats`);
    await conform('PATCH', wall, { encoding: { bitrate: 400 } });
    await conform('PATCH', custom, { encoding: { bitrate: 400 } });
    await conform('PATCH', custom, { geolocation: { mgrs: '32UPU8000080000' } });
    await conform('PUT', custom, advanced);
    await conform('DELETE', custom);
    await conform('GET', `/svc/pipeline/${simple.id}/sdp`);
    await conform('GET', `/svc/pipeline/${simple.id}/snapshot`);
    await conform('GET', `${custom}/snapshot`);
    await conformSse(`/svc/pipeline/${simple.id}/status/events`, 'pipeline_status');
    await conformSse('/svc/pipeline/nope/status/events', 'pipeline_not_found');
    await conform('GET', `/svc/pipeline/${'x'.repeat(101)}/status/events`);
    await conformSse('/svc/events', 'pipeline_status');
    await conform('GET', '/svc/events?stats=maybe');
    await conformSse('/svc/cameras/events');
    for (const [path, body] of [[wall, multiview], [custom, advanced], [`/svc/pipeline/${simple.id}`, simple]] as const) {
      await conform('PUT', `${path}/stop`);
      await conform('PUT', path, body);
      await conform('PUT', path, { ...body, id: 'other' });
      await conform('DELETE', path);
    }

    const out = `${svc.dataDir}/conf.mkv`;
    const body = h264Body('conf', out);
    await conform('POST', '/svc/pipeline', body);
    await conform('GET', '/svc/pipeline');
    await conform('GET', '/svc/pipeline?state=nope');
    await conform('GET', '/svc/pipeline/conf');
    await conform('GET', '/svc/pipeline/nope');
    await conform('GET', '/svc/pipeline/nope/status');
    await conform('GET', '/svc/pipeline/conf/status');
    await conform('GET', '/svc/pipeline/conf/stats');
    await conform('GET', '/svc/pipeline/nope/stats');
    await conform('PUT', '/svc/pipeline/conf', body);
    await conform('DELETE', '/svc/pipeline/conf');
    await conform('DELETE', '/svc/pipeline/conf', undefined, raw('x', { 'content-type': 'text/plain' }));
    await conform('PATCH', '/svc/pipeline/conf', { encoding: { bitrate: 600 } });
    await conform('PATCH', '/svc/pipeline/conf', { nope: 1 });
    await conform('PATCH', '/svc/pipeline/conf', {});
    await conform('PATCH', '/svc/pipeline/conf', { encoding: { bitrate: 9000 } });
    await conform('PATCH', '/svc/pipeline/nope', { encoding: { bitrate: 600 } });
    await conform('PUT', '/svc/pipeline/conf/play');
    await conform('PUT', '/svc/pipeline/nope/play');
    await conform('PUT', '/svc/pipeline/conf/stop');
    await conform('PUT', '/svc/pipeline/nope/stop');
    await conform('PUT', '/svc/pipeline/conf', body);
    await conform('PUT', '/svc/pipeline/nope', { ...body, id: 'nope' });
    await conform('PUT', '/svc/pipeline/conf', { ...body, id: 'other' });
    await conform('PUT', '/svc/pipeline/conf/framegrab/start', { interval_seconds: 2 });
    await conform('PUT', '/svc/pipeline/conf/framegrab/start', undefined, raw('0'));
    await conform('PUT', '/svc/pipeline/nope/framegrab/start', {});
    await conform('PUT', '/svc/pipeline/conf/framegrab/stop');
    await conform('PUT', '/svc/pipeline/nope/framegrab/stop');
    await conform('PUT', '/svc/pipeline/conf/klv/start');
    await conform('PUT', '/svc/pipeline/conf/klv/stop');
    await conform('PUT', '/svc/pipeline/nope/klv/stop');
    await conform('GET', '/svc/pipeline/conf/snapshot');
    await conform('GET', '/svc/pipeline/nope/snapshot');
    await conform('GET', '/svc/pipeline/conf/sdp');
    await conform('GET', '/svc/pipeline/nope/sdp');
    await conform('GET', '/svc/pipeline/conf/hls/index.m3u8');
    await conform('PATCH', '/svc/pipeline/conf/store', { auto_start: true });
    await conform('DELETE', '/svc/pipeline/conf/store');
    await conform('DELETE', '/svc/pipeline/nope/store');
    await conform('POST', '/svc/pipeline/conf/store', { description: 'x' });
    await conform('POST', '/svc/pipeline/conf/store', { nope: 1 });
    await conform('PATCH', '/svc/pipeline/conf/store', { auto_start: true });
    await conform('PATCH', '/svc/pipeline/conf/store', { encoding: { bitrate: 'fast' } });
    await conform('DELETE', '/svc/pipeline/conf/store');
    await conform('POST', '/svc/pipeline/nope/store', {});
    await conform('DELETE', '/svc/pipeline/conf?delete_persisted=true');
    await conform('GET', '/svc/cameras');
    await conform('GET', '/svc/camera');
    await conform('GET', '/svc/camera?path=/dev/video99');
    await conform('GET', '/svc/audio-devices');
    await conform('GET', '/svc/settings');
    await conform('PUT', '/svc/settings', { device_name: 'conformance' });
    await conform('PUT', '/svc/settings', { nope: 1 });
    await conform('PUT', '/svc/settings', {});
    const hook = await conform('POST', '/svc/webhooks', { url: 'http://127.0.0.1:9/h', events: ['pipeline.started'] });
    await conform('POST', '/svc/webhooks', { url: 'ftp://x', events: [] });
    await conform('GET', '/svc/webhooks');
    await conform('DELETE', `/svc/webhooks/${hook.body.id}`);
    await conform('DELETE', '/svc/webhooks/nope');
    await conform('GET', '/svc/files/framegrabs');
    await conform('GET', '/svc/files/framegrabs?pipeline_id=bad!id');
    await conform('GET', '/svc/files/framegrabs/nope.jpg');
    await conform('DELETE', '/svc/files/framegrabs/nope.jpg');
    await conform('DELETE', '/svc/files/framegrabs?pipeline_id=conf');
    await conform('DELETE', '/svc/files/framegrabs');
    await conform('GET', '/svc/health');
    await conform('GET', '/svc/healthz');
    await conform('GET', '/svc/version');
    await conform('GET', '/svc/licence');
    await conform('GET', '/svc/metrics');
    await conform('GET', '/svc/auth/status');
    await conform('GET', '/svc/auth/keys');
    const key = await conform('POST', '/svc/auth/keys', { name: 'conformance' });
    await conform('POST', '/svc/auth/keys', { name: '' });
    await conform('DELETE', `/svc/auth/keys/${key.body.id}`);
    await conform('DELETE', '/svc/auth/keys/nope');

    // A method a path does not take: the shared 405 response, with Allow.
    const notAllowed = deref.components.responses.MethodNotAllowed;
    for (const [m, p] of [['PATCH', '/svc/health'], ['POST', '/svc/pipeline/x/play'], ['PUT', '/svc/pipeline/x/store']]) {
      const r = await svc.api(m, p);
      expect(r.status, `${m} ${p}`).toBe(405);
      expect(r.headers.allow, `${m} ${p}`).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
      expect(ajv.validate(notAllowed.content['application/json'].schema, r.body), ajv.errorsText()).toBe(true);
    }

    // Authentication: the password operations, 401 without a token, logout, and the login rate limit last.
    await conform('PUT', '/svc/auth/password', { password: 'short' });
    await conform('PUT', '/svc/auth/password', { password: 'a long enough password' });
    await conform('GET', '/svc/pipeline');
    await conform('PUT', '/svc/auth/password', { password: 'another long password' });
    await conform('POST', '/svc/auth/login', { password: 'not the password' });
    await conform('POST', '/svc/auth/login', { nope: 1 });
    const login = await conform('POST', '/svc/auth/login', { password: 'a long enough password' });
    const token = login.body.token as string;
    await conform('GET', '/svc/pipeline', undefined, { token });
    await conform('POST', '/svc/auth/logout', undefined, { token });
    await conform('GET', '/svc/pipeline', undefined, { token });
    const again = await conform('POST', '/svc/auth/login', { password: 'a long enough password' });
    await conform('DELETE', '/svc/auth/password');
    const removed = await conform('DELETE', '/svc/auth/password', undefined, { token: again.body.token });
    expect(removed.body).toEqual({ auth_enabled: false });
    await conform('POST', '/svc/auth/logout');
    // Login is limited to 5 attempts per 15 minutes, right or wrong: this is the fifth, the next is 429 with Retry-After.
    await conform('POST', '/svc/auth/login', { password: 'no password is set now' });
    const limited = await conform('POST', '/svc/auth/login', { password: 'a long enough password' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);

    const all = operations();
    expect(all.filter((o) => !exercised.has(o))).toEqual([]);
    // Every operation that takes input (a parameter or a body) was also sent input it refused.
    const takesInput = all.filter((o) => {
      const [m, p] = o.split(' ');
      const op = doc.paths[p][m.toLowerCase()];
      return op.requestBody || op.parameters?.length;
    });
    expect(takesInput.filter((o) => !refused.has(o))).toEqual([]);
  });
});
