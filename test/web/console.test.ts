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
});
