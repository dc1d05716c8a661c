/**
 * Storage commands (core/pipeline/storage.ts) over fake engine hosts: bodies checked against their schemas with the
 * API's words, the stored document merged and validated, and the restore at startup with auto_start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../core/errors/catalogue';
import { fakeManager, udpBody } from '../helpers/fake-host';

let t: ReturnType<typeof fakeManager>;

afterEach(async () => {
  await t?.manager.shutdown();
});

/** The API error a command refuses with (thrown at once, or as its promise's rejection, as the routes both see it). */
async function refusal(p: () => Promise<unknown>): Promise<{ code: string; errors?: string[] }> {
  const err = await Promise.resolve().then(p).then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  const e = err as ApiError & { details?: { errors?: string[] } };
  return { code: e.code, errors: e.details?.errors };
}

describe('store bodies', () => {
  it('POST …/store: each wrong field is named in the words the API has always used', async () => {
    t = fakeManager();
    await t.manager.create(udpBody('s'));
    const bad = await refusal(() => t.manager.storage.create('s', { auto_start: 'yes', description: 'x'.repeat(1025), colour: 'red' }));
    expect(bad.code).toBe('VALIDATION_ERROR');
    expect(bad.errors).toEqual([
      'auto_start must be a boolean', 'description must be a string of at most 1024 characters', 'colour is not a supported field',
    ]);
    expect((await refusal(() => t.manager.storage.create('s', { description: 7 }))).errors).toEqual(['description must be a string of at most 1024 characters']);
    expect((await refusal(() => t.manager.storage.create('nope', {}))).code).toBe('PIPELINE_NOT_FOUND');
    const stored = await t.manager.storage.create('s', undefined);
    expect(stored).toMatchObject({ persisted: true, auto_start: false, description: '' });
  });

  it('PATCH …/store: metadata checked, definition fields merged into the stored definition and validated as a whole', async () => {
    t = fakeManager();
    await t.manager.create(udpBody('p'));
    expect((await refusal(() => t.manager.storage.patch('p', { auto_start: true }))).code).toBe('PIPELINE_NOT_PERSISTED');
    await t.manager.storage.create('p', { description: 'door' });
    expect((await refusal(() => t.manager.storage.patch('p', { auto_start: 1 }))).errors).toEqual(['auto_start must be a boolean']);
    expect((await refusal(() => t.manager.storage.patch('p', { id: 'other' }))).errors).toEqual(['id cannot be changed']);
    const patched = await t.manager.storage.patch('p', { auto_start: true, encoding: { bitrate: 700 } });
    expect(patched).toMatchObject({ auto_start: true, description: 'door' });
    expect(t.store.read<{ definition: { encoding: { bitrate: number; width: number } } }>('pipelines', 'p')!.definition.encoding)
      .toMatchObject({ bitrate: 700, width: 320 });
    expect((await refusal(() => t.manager.storage.patch('p', { encoding: { bitrate: 'fast' } }))).code).toBe('VALIDATION_ERROR');
  });
});

describe('restore', () => {
  it('brings back stored pipelines; auto_start ones play, the others stay ready', async () => {
    t = fakeManager();
    await t.manager.create(udpBody('auto'));
    await t.manager.create(udpBody('manual', { output: { uri: 'udp://127.0.0.1:5006' } }));
    await t.manager.storage.create('auto', { auto_start: true });
    await t.manager.storage.create('manual', {});
    const { store } = t;
    await t.manager.shutdown();
    t = fakeManager();
    for (const id of store.list('pipelines')) t.store.write('pipelines', id, store.read('pipelines', id));
    await t.manager.restore();
    expect(t.manager.get('auto')).toMatchObject({ state: 'playing', started_by: 'auto_start', persisted: true, auto_start: true });
    expect(t.manager.get('manual')).toMatchObject({ state: 'ready', persisted: true });
  });
});
