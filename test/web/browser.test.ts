/**
 * The web UI in a real browser: Debian's chromium driven by playwright-core, against the real service over the
 * web port. Log in (password set), create a test-source H.264 pipeline to a file through the form, see it
 * playing, see an API error shown on the form, stop it, delete it (asked once). A screenshot is kept for a human look
 * (path printed).
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, waitFor, type RunningService } from '../helpers/service';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

describe.skipIf(!haveChromium)('web UI in chromium', () => {
  let svc: RunningService;
  let web: number;
  let browser: Browser;
  const dir = mkdtempSync(join(tmpdir(), 'encoderd-ui-'));
  const password = 'operator password 1';

  beforeAll(async () => {
    web = await freePort();
    svc = await startService({ args: ['--web-port', String(web)] });
    expect((await svc.api('PUT', '/svc/auth/password', { password })).status).toBe(200);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('logs in, creates a pipeline through the form, sees it playing, shows errors, stops and deletes it', async () => {
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('pageerror', (e) => consoleErrors.push(e.message));

    await page.goto(`https://127.0.0.1:${web}/`);
    await page.locator('#login-view').waitFor({ state: 'visible' });
    expect(await page.locator('#app-view').isVisible()).toBe(false);

    // A wrong password: the API's own words appear.
    await page.fill('#login-password', 'not the password');
    await page.click('#login-form button[type=submit]');
    await expect.poll(() => page.locator('#message').textContent()).toBe('Invalid password');

    await page.fill('#login-password', password);
    await page.click('#login-form button[type=submit]');
    await page.locator('#app-view').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => sessionStorage.getItem('encoderd.token'))).toMatch(/.{20,}/);
    await expect.poll(() => page.locator('#footer').textContent()).toMatch(/healthy.*encoderd \d+\.\d+\.\d+/);

    const file = join(dir, 'ui.ts');
    await page.evaluate(() => { location.hash = '#/new'; });
    const form = page.locator('[data-form=create]');
    await form.locator('[name=id]').fill('ui-cam');
    await form.locator('[name="source.uri"]').fill('test://ball');
    await form.locator('[name="encoding.codec"]').selectOption('h264');
    await form.locator('[name="encoding.bitrate"]').fill('500');
    await form.locator('[name="encoding.width"]').fill('320');
    await form.locator('[name="encoding.height"]').fill('240');
    await form.locator('[name="encoding.fps"]').fill('25');
    await form.locator('[name="output.uri"]').fill(file);
    await form.locator('button[type=submit]').click();

    const card = page.locator('.pipeline-card.detail[data-id="ui-cam"]');
    await expect.poll(() => card.getAttribute('data-state'), { timeout: 15000 }).toBe('playing');
    expect(await card.locator('.summary').textContent()).toContain('h264 · 320×240 · 25 fps · 500 kbps');

    // The same id again: the API refuses, the form says why.
    await page.evaluate(() => { location.hash = '#/new'; });
    await form.locator('[name=id]').fill('ui-cam');
    await form.locator('[name="output.uri"]').fill(join(dir, 'other.ts'));
    await form.locator('button[type=submit]').click();
    await expect.poll(() => form.locator('.form-error, .field-error').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/ui-cam|exist|conflict/i)]));

    await page.screenshot({ path: join(dir, 'web-ui.png'), fullPage: true });
    console.log(`web UI screenshot: ${join(dir, 'web-ui.png')}`);

    await page.evaluate(() => { location.hash = '#/pipelines'; });
    const row = page.locator('#pipeline-grid .pipeline-card[data-id="ui-cam"]');
    await row.locator('[data-action=stop]').click();
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 15000 }).toBe('ready');
    // Stopped means finalised: the recording is on disk.
    await waitFor(() => existsSync(file) && statSync(file).size > 1000, 5000);
    expect(readFileSync(file)[0]).toBe(0x47); // an MPEG-TS sync byte
    expect((await svc.api('GET', '/svc/pipeline/ui-cam', undefined, { token: await page.evaluate(() => sessionStorage.getItem('encoderd.token') as string) })).body.state).toBe('ready');

    // Delete asks once, on the pipeline's page.
    await row.locator('[data-action=details]').click();
    const del = page.locator('[data-section=delete] [data-action=delete]');
    await del.click();
    await expect.poll(() => del.textContent()).toBe('Confirm: delete pipeline');
    await del.click();
    await page.locator('#pipeline-grid .pipeline-card[data-id="ui-cam"]').waitFor({ state: 'detached', timeout: 10000 });

    // Log out: the token is gone and the login is back.
    await page.click('#logout');
    await page.locator('#login-view').waitFor({ state: 'visible' });
    expect(await page.evaluate(() => sessionStorage.getItem('encoderd.token'))).toBeNull();
    // 400 for the wrong password and the 409 are expected in the console (fetch logs failed requests); nothing else.
    expect(consoleErrors.filter((e) => !/status of (400|409)|Failed to load resource/.test(e))).toEqual([]);
    await context.close();
  });
});
