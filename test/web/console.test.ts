/**
 * The operator's console against the real service, in Debian's chromium (docs/web.md): the pipeline forms of all
 * three modes with the API's messages beside their fields, live cards with pictures of the pipeline's size and
 * statistics, edit, live patch, geolocation, framegrabs, storage, delete; what the page shows and what the API
 * then holds. Short media at 320×240.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, type RunningService } from '../helpers/service';
import { confirmClick, fieldError, goto, haveChromium, launch, openConsole, screenshot, type ConsolePage } from './console-page';

describe.skipIf(!haveChromium)('operator console: pipelines', () => {
  let svc: RunningService;
  let web: number;
  let browser: Browser;
  let con: ConsolePage;
  let page: Page;
  let rtspPort: number;
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-console-'));

  beforeAll(async () => {
    web = await freePort();
    rtspPort = await freePort();
    svc = await startService({ args: ['--web-port', String(web)] });
    browser = await launch();
    con = await openConsole(browser, web);
    page = con.page;
  });
  afterAll(async () => {
    await con?.close();
    await browser?.close();
    await svc?.stop();
  });

  const form = '[data-form=create]';
  const set = (name: string, value: string) => page.locator(`${form} [name="${name}"]`).fill(value);
  const choose = (name: string, value: string) => page.locator(`${form} [name="${name}"]`).selectOption(value);

  it('creates a simple pipeline with audio through the form and shows it live, with a picture of its size', async () => {
    await goto(page, '#/new');
    await choose('mode', 'simple');
    await set('id', 'cam');
    await set('source.uri', 'test://ball');
    await choose('encoding.codec', 'h264');
    await set('encoding.bitrate', '300');
    await set('encoding.width', '320');
    await set('encoding.height', '240');
    await set('encoding.fps', '15');
    await set('output.uri', `rtsp://0.0.0.0:${rtspPort}/cam`);
    await page.getByLabel('Send audio').check();
    await choose('audio.source', 'test');
    await choose('audio.test_wave', '2');
    await choose('audio.codec2_mode', '1600');
    await set('audio.volume', '0.8');
    await choose('audio.noise_suppression_level', '3');
    await page.locator(`${form} [name="audio.auto_gain_control"]`).uncheck();
    await page.locator(`${form} button[type=submit]`).click();

    const card = page.locator('.pipeline-card.detail[data-id=cam]');
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 20000 }).toBe('playing');
    const held = (await svc.api('GET', '/svc/pipeline/cam')).body;
    expect(held.encoding).toMatchObject({ codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 });
    expect(held.audio).toMatchObject({ source: 'test', test_wave: 2, codec2_mode: 1600, volume: 0.8, noise_suppression_level: 3, auto_gain_control: false });

    // The thumbnail is the pipeline's own picture, at its encoded size.
    const img = card.locator('img.thumb-img');
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 15000 }).toBe(320);
    expect(await img.evaluate((el: HTMLImageElement) => el.naturalHeight)).toBe(240);
    expect(await img.evaluate((el: HTMLImageElement) => el.src)).toMatch(/^blob:/);
    // Live statistics arrive over the stream.
    await expect.poll(() => card.locator('[data-stat=bitrate]').textContent(), { timeout: 10000 }).toMatch(/kbit\/s|Mbit\/s/);
    await expect.poll(() => card.locator('[data-stat=rtsp_clients]').textContent()).toBe('0');
    expect(await card.locator('.badge').textContent()).toMatch(/ok|degraded|failing/);
    await screenshot(page, 'desktop-pipeline');
  });
  it('shows the API\'s validation messages beside the fields they name, and creates nothing', async () => {
    await goto(page, '#/new');
    await choose('mode', 'simple');
    await set('id', 'bad');
    await set('source.uri', 'test://ball');
    await choose('encoding.codec', 'h264');
    await set('encoding.bitrate', '9999');
    await set('output.uri', join(dir, 'bad.ts'));
    await page.getByLabel('Send audio').check();
    await set('audio.volume', '5');
    await page.locator(`${form} button[type=submit]`).click();
    await expect.poll(() => fieldError(page, form, 'encoding.bitrate').textContent()).toMatch(/^encoding\.bitrate .*5000/);
    expect(await fieldError(page, form, 'audio.volume').textContent()).toBe('audio.volume must be between 0.0 and 2.0');
    expect(await page.locator(`${form} [name="encoding.bitrate"]`).getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'desktop-form-errors');
    // Every control of the form has its label (for/id), so a screen reader names it and a click on the label focuses it.
    expect(await page.locator(form).evaluate((f: HTMLFormElement) => [...f.elements].filter((el) => (el as HTMLInputElement).name && !(el as HTMLInputElement).labels?.length).map((el) => (el as HTMLInputElement).name))).toEqual([]);
    expect((await svc.api('GET', '/svc/pipeline/bad')).status).toBe(404);
  });

  it('creates a multiview pipeline with two inputs: label, transform, crop and overlay', async () => {
    await goto(page, '#/new');
    await choose('mode', 'multiview');
    await set('id', 'mv');
    await set('inputs[0].source.uri', 'test://smpte');
    await set('inputs[0].label', 'North');
    await choose('inputs[0].transform.rotate', '90');
    await page.locator(`${form} [name="inputs[0].transform.grayscale"]`).check();
    await page.locator(`${form} [data-action=add-input]`).click();
    await set('inputs[1].source.uri', 'test://ball');
    await page.locator(`${form} [name="inputs[1].transform.mirror"]`).check();
    await set('inputs[1].crop.top', '8');
    await set('inputs[1].crop.left', '4');
    await set('inputs[1].overlay.text', 'South');
    await page.locator(`${form} [name="inputs[1].overlay.timestamp"]`).check();
    await set('encoding.bitrate', '200');
    await set('encoding.width', '320');
    await set('encoding.height', '240');
    await set('encoding.fps', '10');
    await set('output.uri', join(dir, 'mv.mkv'));
    await page.locator(`${form} button[type=submit]`).click();
    const card = page.locator('.pipeline-card.detail[data-id=mv]');
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 20000 }).toBe('playing');
    const held = (await svc.api('GET', '/svc/pipeline/mv')).body;
    expect(held.mode).toBe('multiview');
    expect(held.inputs).toEqual([
      { source: { uri: 'test://smpte' }, label: 'North', transform: { rotate: 90, grayscale: true } },
      { source: { uri: 'test://ball' }, transform: { rotate: 0, mirror: true }, crop: { top: 8, left: 4 }, overlay: { text: 'South', timestamp: true } },
    ]);
    expect(held.encoding).toMatchObject({ codec: 'av1', width: 320, height: 240, fps: 10, bitrate: 200 });
    await card.locator('[data-action=stop]').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
  });

  it('creates an advanced pipeline, the macros explained, a bad macro refused beside the description', async () => {
    await goto(page, '#/new');
    await choose('mode', 'advanced');
    expect(await page.locator(`${form} .help`).textContent()).toMatch(/<svc:h264 \/>.*bitrate=.*5–5000.*<svc:codec2 \/>.*mode=/s);
    await set('id', 'adv');
    const file = join(dir, 'adv.ts');
    await set('raw_pipeline', `videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=10/1 ! <svc:h264 bitrate=0 /> ! mpegtsmux ! filesink location=${file}`);
    await page.locator(`${form} button[type=submit]`).click();
    await expect.poll(() => fieldError(page, form, 'raw_pipeline').textContent()).toMatch(/<svc:h264 bitrate=0 \/>.*bitrate must be between 5 and 5000/);
    const raw = `videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=10/1 ! <svc:h264 bitrate=200 /> ! mpegtsmux ! filesink location=${file}`;
    await set('raw_pipeline', raw);
    await page.locator(`${form} button[type=submit]`).click();
    const card = page.locator('.pipeline-card.detail[data-id=adv]');
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 20000 }).toBe('playing');
    expect((await svc.api('GET', '/svc/pipeline/adv')).body.raw_pipeline).toBe(raw);
    // No picture is taken from an advanced pipeline: the placeholder says why.
    expect(await card.locator('.thumb-placeholder').textContent()).toMatch(/advanced mode/);
    await card.locator('[data-action=stop]').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
  });

  it('edits a stopped pipeline (PUT); the definition is locked while it plays', async () => {
    await goto(page, '#/pipeline/cam');
    const card = page.locator('.pipeline-card.detail[data-id=cam]');
    expect(await page.locator('[data-section=definition] [data-action=edit]').isDisabled()).toBe(true);
    await card.locator('[data-action=stop]').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
    await page.locator('[data-section=definition] [data-action=edit]').click();
    const edit = page.locator('[data-form=edit]');
    expect(await edit.locator('[name="audio.codec2_mode"]').inputValue()).toBe('1600');
    await edit.locator('[name="encoding.bitrate"]').fill('350');
    await edit.locator('[name="audio.volume"]').fill('1.2');
    await edit.locator('button[type=submit]').click();
    await edit.waitFor({ state: 'detached' });
    const held = (await svc.api('GET', '/svc/pipeline/cam')).body;
    expect(held.encoding.bitrate).toBe(350);
    expect(held.audio).toMatchObject({ volume: 1.2, codec2_mode: 1600, test_wave: 2 });
    await expect.poll(() => card.locator('.summary').textContent()).toContain('350 kbps');
    await card.locator('[data-action=play]').click();
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('playing');
  });

  it('patches bitrate and fps live, and sets geolocation as lat/lon, as MGRS, and removes it', async () => {
    await goto(page, '#/pipeline/cam');
    const patch = page.locator('[data-form=patch]');
    await patch.locator('[name="encoding.bitrate"]').fill('400');
    await patch.locator('[name="encoding.fps"]').fill('12');
    await patch.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.encoding, { timeout: 15000 }).toMatchObject({ bitrate: 400, fps: 12 });
    // The rebuild for the new fps is over when the form takes input again.
    await expect.poll(() => patch.locator('button[type=submit]').isEnabled(), { timeout: 15000 }).toBe(true);
    await patch.locator('[name="encoding.bitrate"]').fill('6000');
    await patch.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=patch]', 'encoding.bitrate').textContent()).toMatch(/encoding\.bitrate.*5000/);

    const geo = page.locator('[data-form=geolocation]');
    await geo.locator('[name="geolocation.latitude"]').fill('51.5');
    await geo.locator('[name="geolocation.longitude"]').fill('-0.12');
    await geo.locator('[name="geolocation.altitude"]').fill('35');
    await geo.locator('[name="geolocation.heading"]').fill('270');
    await geo.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.geolocation).toEqual({ latitude: 51.5, longitude: -0.12, altitude: 35, heading: 270 });
    await geo.getByLabel('Position as').selectOption('mgrs');
    await geo.locator('[name="geolocation.mgrs"]').fill('33UXP0500444998');
    await geo.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.geolocation).toEqual({ mgrs: '33UXP0500444998', altitude: 35, heading: 270 });
    await confirmClick(page, '[data-form=geolocation] [data-action=remove-geolocation]');
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.geolocation ?? null).toBeNull();
  });

  it('starts framegrabs, shows the files, deletes one and then all of the pipeline\'s, stops', async () => {
    await goto(page, '#/pipeline/cam');
    const fg = page.locator('[data-form=framegrab]');
    await fg.locator('[name=interval_seconds]').fill('1');
    await fg.locator('[name=quality]').fill('50');
    await fg.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.framegrab).toEqual({ state: 'running', interval_seconds: 1, quality: 50 });
    await expect.poll(() => page.locator('[data-framegrab-state]').textContent()).toMatch(/every 1 s at quality 50/);
    const gallery = page.locator('[data-section=framegrabs] .framegrab-gallery');
    await expect.poll(async () => {
      await gallery.locator('[data-action=refresh-framegrabs]').click();
      return Number(await gallery.getAttribute('data-count'));
    }, { timeout: 15000, interval: 1000 }).toBeGreaterThanOrEqual(3);
    await page.locator('[data-section=framegrabs] [data-action=framegrab-stop]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.framegrab).toEqual({ state: 'stopped' });
    await gallery.locator('[data-action=refresh-framegrabs]').click();
    const before = (await svc.api('GET', '/svc/files/framegrabs?pipeline_id=cam')).body as Array<{ file: string }>;
    await expect.poll(() => gallery.locator('.tile').count()).toBe(before.length);
    // The pictures load through the token-carrying fetch, as JPEGs of the pipeline's size.
    await expect.poll(() => gallery.locator('.tile img').first().evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(320);
    await screenshot(page, 'desktop-framegrabs');
    const first = before[0].file;
    await confirmClick(page, `[data-section=framegrabs] .tile[data-file="${first}"] [data-action=delete-file]`);
    await expect.poll(async () => ((await svc.api('GET', '/svc/files/framegrabs?pipeline_id=cam')).body as Array<{ file: string }>).map((f) => f.file)).not.toContain(first);
    await confirmClick(page, '[data-section=framegrabs] [data-action=delete-all][data-pipeline=cam]');
    await expect.poll(async () => (await svc.api('GET', '/svc/files/framegrabs?pipeline_id=cam')).body).toEqual([]);
    await expect.poll(() => gallery.getAttribute('data-count')).toBe('0');
  });

  it('stores with auto_start and description, lists it as stored, changes it, removes the stored copy', async () => {
    await goto(page, '#/pipeline/cam');
    const store = page.locator('[data-form=store]');
    await store.locator('[name=auto_start]').check();
    await store.locator('[name=description]').fill('roof camera');
    await store.locator('button[type=submit]').click();
    await expect.poll(async () => {
      const p = (await svc.api('GET', '/svc/pipeline/cam')).body;
      return [p.persisted, p.auto_start, p.description];
    }).toEqual([true, true, 'roof camera']);
    await expect.poll(() => page.locator('[data-stored]').textContent()).toMatch(/Stored, starts with the service: roof camera/);
    await goto(page, '#/stored');
    await expect.poll(() => page.locator('[data-list=stored] tr[data-id=cam]').textContent()).toMatch(/camyesroof camera/);
    await screenshot(page, 'desktop-stored');
    await goto(page, '#/pipeline/cam');
    await store.locator('[name=description]').fill('roof camera, north');
    await store.locator('[name=auto_start]').uncheck();
    await store.locator('button[type=submit]').click();
    await expect.poll(async () => {
      const p = (await svc.api('GET', '/svc/pipeline/cam')).body;
      return [p.auto_start, p.description];
    }).toEqual([false, 'roof camera, north']);
    await confirmClick(page, '[data-section=storage] [data-action=unstore]');
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam')).body.persisted).toBe(false);
  });

  it('deletes a pipeline after asking once, from the keyboard', async () => {
    await goto(page, '#/pipeline/adv');
    // From the keyboard: Enter arms the button, Enter again deletes.
    const del = page.locator('[data-section=delete] [data-action=delete]');
    await del.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => del.textContent()).toBe('Confirm: delete pipeline');
    expect((await svc.api('GET', '/svc/pipeline/adv')).status).toBe(200);
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/adv')).status).toBe(404);
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#/pipelines');
    await page.locator('#pipeline-grid .pipeline-card[data-id=adv]').waitFor({ state: 'detached' });
  });

  it('previews an hls:// pipeline in a <video> that plays at the configured width', async () => {
    const r = await svc.api('POST', '/svc/pipeline', { id: 'hlscam', mode: 'simple', source: { uri: 'test://smpte' },
      encoding: { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 }, output: { uri: 'hls://' } });
    expect(r.status, r.text).toBe(201);
    await goto(page, '#/pipelines');
    const card = page.locator('#pipeline-grid .pipeline-card[data-id=hlscam]');
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('playing');
    await card.locator('[data-action=preview]').click();
    const video = page.locator('dialog.preview video');
    await video.waitFor({ timeout: 10000 });
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20000, interval: 250 }).toBeGreaterThan(0);
    const t0 = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 10000, interval: 250 }).toBeGreaterThan(t0 + 1);
    expect(await video.evaluate((v: HTMLVideoElement) => [v.videoWidth, v.videoHeight])).toEqual([320, 240]);
    await screenshot(page, 'desktop-preview');
    await page.locator('dialog.preview [data-action=close-preview]').click();
    await page.locator('dialog.preview').waitFor({ state: 'detached' });
    expect((await svc.api('DELETE', '/svc/pipeline/hlscam?delete_persisted=true')).status).toBe(409);
    await svc.api('PUT', '/svc/pipeline/hlscam/stop');
    expect((await svc.api('DELETE', '/svc/pipeline/hlscam')).status).toBe(204);
  });

  it('previews a local RTSP output through a companion hls:// pipeline that is deleted when the player closes', async () => {
    await goto(page, '#/pipeline/cam');
    await page.locator('.pipeline-card.detail [data-action=preview]').click();
    const dialog = page.locator('dialog.preview');
    expect(await dialog.locator('[role=status]').textContent()).toMatch(/cam-preview/);
    await dialog.locator('[data-action=start-companion]').click();
    const video = dialog.locator('video');
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime).catch(() => 0), { timeout: 30000, interval: 250 }).toBeGreaterThan(0);
    expect(await video.evaluate((v: HTMLVideoElement) => v.videoWidth)).toBe(320);
    const companion = (await svc.api('GET', '/svc/pipeline/cam-preview')).body;
    expect(companion).toMatchObject({ state: 'playing', source: { uri: `rtsp://127.0.0.1:${rtspPort}/cam` }, output: { uri: 'hls://?segment=1&playlist_length=3' } });
    expect(companion.encoding).toBeUndefined();
    await dialog.locator('[data-action=close-preview]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/cam-preview')).status, { timeout: 15000 }).toBe(404);
  });

  it('starts and stops KLV on a source that carries it, showing the last decoded values', async () => {
    const port = await freePort();
    const enc = { codec: 'h264', bitrate: 300, width: 320, height: 240, fps: 15 };
    let r = await svc.api('POST', '/svc/pipeline', { id: 'klv-out', mode: 'simple', source: { uri: 'test://ball' }, encoding: enc, output: { uri: `udp://127.0.0.1:${port}` } });
    expect(r.status, r.text).toBe(201);
    r = await svc.api('PATCH', '/svc/pipeline/klv-out', { geolocation: { latitude: 48.85, longitude: 2.35, altitude: 120, heading: 90 } });
    expect(r.status, r.text).toBe(200);
    r = await svc.api('POST', '/svc/pipeline', { id: 'klv-in', mode: 'simple', source: { uri: `udp://127.0.0.1:${port}` }, encoding: enc, output: { uri: join(dir, 'klv-in.ts') } });
    expect(r.status, r.text).toBe(201);
    await goto(page, '#/pipeline/klv-in');
    const panel = page.locator('[data-section=klv]');
    await panel.locator('[data-action=klv-start]').waitFor({ timeout: 20000 });
    await panel.locator('[data-action=klv-start]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/klv-in')).body.klv).toEqual({ available: true, state: 'running' });
    await expect.poll(() => panel.locator('[data-klv=latitude]').textContent().catch(() => null), { timeout: 10000 }).toMatch(/^48\.85/);
    expect(Number(await panel.locator('[data-klv=longitude]').textContent())).toBeCloseTo(2.35, 3);
    expect(Number(await panel.locator('[data-klv=heading]').textContent())).toBeCloseTo(90, 1);
    expect(await panel.locator('[data-klv=checksum_ok]').textContent()).toBe('valid');
    await screenshot(page, 'desktop-klv');
    await panel.locator('[data-action=klv-stop]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/pipeline/klv-in')).body.klv).toEqual({ available: true, state: 'stopped' });
    await panel.locator('[data-action=klv-start]').waitFor();
    for (const id of ['klv-in', 'klv-out']) {
      await svc.api('PUT', `/svc/pipeline/${id}/stop`);
      expect((await svc.api('DELETE', `/svc/pipeline/${id}`)).status).toBe(204);
    }
  });

  it('is quiet when idle: over 10 s only the open event stream and the thumbnails, no list polling', async () => {
    await goto(page, '#/pipelines');
    const requests: string[] = [];
    const finished: string[] = [];
    // Requests that reach the network (object URLs of the pictures are blob: and stay in the page).
    const onRequest = (r: { url(): string }) => { if (r.url().startsWith('https:')) requests.push(new URL(r.url()).pathname + new URL(r.url()).search); };
    const onDone = (r: { url(): string }) => finished.push(new URL(r.url()).pathname);
    // A stream opened before the window: read it from the page, which has one open fetch to /api/events.
    const streamOpen = () => page.locator('#live[data-state=open]').count();
    page.on('request', onRequest);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    await new Promise((r) => setTimeout(r, 10_000)); // the window the issue asks for
    page.off('request', onRequest);
    page.off('requestfinished', onDone);
    page.off('requestfailed', onDone);
    expect(await streamOpen()).toBe(1);
    expect(finished).not.toContain('/api/events');
    expect(requests.filter((u) => u.startsWith('/api/pipeline') && !/\/snapshot$/.test(u))).toEqual([]);
    // Everything else of the API is the playing pipeline's thumbnail, about once a second. (Chromium may fetch the
    // favicon again on its own; that is the browser, not the page.)
    expect(requests.filter((u) => !u.startsWith('/api/')).filter((u) => u !== '/favicon.svg')).toEqual([]);
    expect(requests.filter((u) => u.startsWith('/api/') && u !== '/api/pipeline/cam/snapshot')).toEqual([]);
    const snapshots = requests.filter((u) => u === '/api/pipeline/cam/snapshot').length;
    expect(snapshots).toBeGreaterThanOrEqual(6);
    expect(snapshots).toBeLessThanOrEqual(12);
    console.log(`idle 10 s: ${snapshots} snapshot requests, nothing else`);
  });

  it('works at phone width (360 px)', async () => {
    const phone = await openConsole(browser, web, { width: 360, height: 740 });
    try {
      const card = phone.page.locator('#pipeline-grid .pipeline-card[data-id=cam]');
      await expect.poll(() => card.locator('img.thumb-img').evaluate((el: HTMLImageElement) => el.naturalWidth), { timeout: 15000 }).toBe(320);
      // Nothing wider than the screen.
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await screenshot(phone.page, 'phone-pipelines');
      await goto(phone.page, '#/pipeline/cam');
      await phone.page.locator('[data-form=patch]').waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await screenshot(phone.page, 'phone-pipeline');
      await goto(phone.page, '#/new');
      await phone.page.locator('[data-form=create]').waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await screenshot(phone.page, 'phone-new');
      expect(phone.errors).toEqual([]);
    } finally {
      await phone.close();
    }
    await goto(page, '#/pipelines');
    await screenshot(page, 'desktop-pipelines');
    await goto(page, '#/new');
    await screenshot(page, 'desktop-new');
    expect(con.errors).toEqual([]);
  });
});
