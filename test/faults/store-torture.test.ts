/**
 * kill -9 torture of the store. 200 trials: a writer with the service's own store stack (pipelines stored and
 * patched with sealed credentials, webhooks registered and removed, settings) is SIGKILLed at a random moment;
 * after each, every document is whole and loads the way the service loads it. Then a real service, SIGKILLed
 * while it answers stores, store patches, webhook registrations and settings writes, restarts on the same data
 * dir, several times, and finally on the writer's data dir: everything loads.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { JsonStore } from '../../core/store/json-store';
import { SecretBox } from '../../core/secrets/secret-box';
import { CredentialSealingStore } from '../../core/secrets/sealed-credentials';
import { WebhookRegistry } from '../../core/webhooks/registry';
import { SettingsService } from '../../core/settings/settings-service';
import { defaultSettings } from '../../core/settings/schema';
import { h264Body, ROOT, sleep, startService } from '../helpers/service';

const TRIALS = 200;
const LANES = 4;
const SERVICE_TRIALS = 5;

interface StoredDoc { definition: { id: string; source: { uri: string } }; description: string; n: number; check: number }

const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } } as never;

/** Every .json file parses (the store's own and the key files' directories), and leftover temp files are swept. */
function everyDocumentWhole(dir: string): number {
  let count = 0;
  for (const collection of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const f of readdirSync(join(dir, collection.name)).filter((x) => x.endsWith('.json'))) {
      JSON.parse(readFileSync(join(dir, collection.name, f), 'utf8'));
      count += 1;
    }
  }
  return count;
}

/** Loads the data dir the way the service does; throws on anything torn, mixed or unopenable. */
function loadLikeTheService(dir: string): { pipelines: number; webhooks: number; newest: number } {
  const store = new JsonStore(dir);
  const sealed = new CredentialSealingStore(store, SecretBox.open(dir, 'stored-credentials.key'));
  const names = sealed.list('pipelines');
  let newest = -1;
  for (const name of names) {
    const doc = sealed.read<StoredDoc>('pipelines', name)!;
    // Self-checking: a torn or mixed document cannot pass.
    expect(doc.check).toBe(doc.n * 7 + doc.description.length);
    newest = Math.max(newest, doc.n);
    expect(doc.definition.source.uri).toMatch(/^rtsp:\/\/operator:secret-\d+@127\.0\.0\.1:8554\/cam$/);
  }
  const webhooks = new WebhookRegistry(store, SecretBox.open(dir), quiet);
  // Each registration's sealed headers open.
  expect(webhooks.deliveryTargets('pipeline.started').every((t) => t.headers['X-Token']?.startsWith('t-'))).toBe(true);
  const settings = new SettingsService(store, quiet, defaultSettings('info')).get();
  expect(settings.device_name).toMatch(/^encoderd(-\d+)?$/);
  expect(readdirSync(join(dir, 'pipelines')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  return { pipelines: names.length, webhooks: webhooks.list().length, newest };
}

describe('kill -9 torture of the store', () => {
  it(`${TRIALS} writers SIGKILLed at random moments: every document whole and loading after each`, async () => {
    const writer = join(ROOT, 'test/fixtures/store-torture-writer.js');
    const started = Date.now();
    let documents = 0;
    let wrote = 0;
    // The trials run in LANES data dirs at once, one after the other in each: a trial's cost is mostly Node's
    // start-up, which a loaded machine doubles (one lane took 84 s alone and 177 s beside a soak).
    async function lane(dir: string, first: number): Promise<void> {
      for (let trial = first; trial < TRIALS; trial += LANES) {
        const child = spawn(process.execPath, [writer, dir, String(trial * 1000)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
        const exited = new Promise((r) => child.on('exit', r));
        await Promise.race([new Promise((r) => child.stdout.once('data', r)), exited]);
        // Up to 30 ms into the loop: a few dozen writes of each kind, any of them the one cut.
        await sleep(Math.random() * 30);
        child.kill('SIGKILL');
        await exited;
        expect(stderr, `trial ${trial}: the writer failed on its own`).toBe('');
        documents = everyDocumentWhole(dir);
        // Counts trials killed after their writer had stored a pipeline (it numbers its writes from trial × 1000).
        if (loadLikeTheService(dir).newest >= trial * 1000) wrote += 1;
      }
    }
    const dirs = Array.from({ length: LANES }, () => mkdtempSync(join(tmpdir(), 'store-torture-')));
    await Promise.all(dirs.map((dir, i) => lane(dir, i)));
    const loaded = dirs.map(loadLikeTheService);
    expect(wrote).toBeGreaterThan(TRIALS / 2);
    for (const l of loaded) {
      expect(l.pipelines).toBeGreaterThan(0);
      expect(l.webhooks).toBeGreaterThan(0);
    }
    console.log(`store torture: ${TRIALS} SIGKILL trials in ${LANES} data dirs (${wrote} killed while writing) in ${((Date.now() - started) / 1000).toFixed(1)} s; ${documents} documents whole after each; ${loaded.map((l) => l.pipelines).join('/')} pipelines and ${loaded.map((l) => l.webhooks).join('/')} webhooks load`);

    // The service itself loads what the writers left: every stored pipeline restored, webhooks and settings read.
    for (const [i, dir] of dirs.entries()) {
      const svc = await startService({ dataDir: dir });
      try {
        const list = await svc.api('GET', '/svc/pipeline');
        expect(list.body.map((p: { id: string }) => p.id).sort()).toEqual(new JsonStore(dir).list('pipelines'));
        expect(list.body.every((p: { persisted: boolean }) => p.persisted)).toBe(true);
        expect((await svc.api('GET', '/svc/webhooks')).body.length).toBe(loaded[i].webhooks);
        expect(svc.logs()).not.toMatch(/no longer valid/);
      } finally {
        await svc.stop();
      }
    }
  }, 240_000);

  it(`a service SIGKILLed ${SERVICE_TRIALS} times while it writes restarts with everything whole`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'service-torture-'));
    for (let trial = 0; trial < SERVICE_TRIALS; trial++) {
      const svc = await startService({ dataDir: dir });
      const id = `t${trial}`;
      await svc.api('POST', '/svc/pipeline', h264Body(id, `udp://127.0.0.1:${43000 + trial}`));
      // Fire writes of every kind without waiting, and kill the service in the middle of them.
      const writes: Promise<unknown>[] = [];
      for (let k = 0; k < 8; k++) {
        writes.push(svc.api('POST', `/svc/pipeline/${id}/store`, { description: `trial ${trial} write ${k}` }).catch(() => undefined));
        writes.push(svc.api('PATCH', `/svc/pipeline/${id}/store`, { description: `patched ${k}`, encoding: { bitrate: 100 + k } }).catch(() => undefined));
        writes.push(svc.api('POST', '/svc/webhooks', { url: `https://127.0.0.1:9/h/${trial}/${k}`, events: ['pipeline.stopped'] }).catch(() => undefined));
        writes.push(svc.api('PUT', '/svc/settings', { device_name: `encoderd-${trial}${k}` }).catch(() => undefined));
      }
      await sleep(Math.random() * 60);
      await svc.kill('SIGKILL');
      await Promise.all(writes);
      everyDocumentWhole(dir);
    }
    const svc = await startService({ dataDir: dir });
    try {
      expect(svc.logs()).not.toMatch(/no longer valid/);
      const ids = (await svc.api('GET', '/svc/pipeline')).body.map((p: { id: string }) => p.id);
      // A pipeline whose store call was answered before the kill is back; the others may or may not be.
      expect(ids.length).toBeLessThanOrEqual(SERVICE_TRIALS);
      expect((await svc.api('GET', '/svc/settings')).status).toBe(200);
      expect((await svc.api('GET', '/svc/webhooks')).status).toBe(200);
      console.log(`service torture: ${SERVICE_TRIALS} SIGKILLs during writes; ${ids.length} stored pipelines restored`);
    } finally {
      await svc.stop();
    }
  }, 120_000);
});
