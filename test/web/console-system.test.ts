/**
 * The console's appliance pages against the real service, in Debian's chromium: the event stream reconnecting
 * (shown) across a service restart, webhooks (headers never shown again), cameras on hot-plug and audio devices,
 * settings, API keys (shown once), licence, version, and the password set, changed and removed. What the page shows
 * and what the API then holds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCameraEnv } from '../helpers/fake-cameras';
import { freePort, ROOT, startService, type RunningService } from '../helpers/service';
import { confirmClick, fieldError, goto, haveChromium, launch, openConsole, screenshot, type ConsolePage } from './console-page';

describe.skipIf(!haveChromium)('operator console: the appliance', () => {
  let svc: RunningService;
  let web: number;
  let browser: Browser;
  let con: ConsolePage;
  let page: Page;
  const camDir = mkdtempSync(join(tmpdir(), 'encoderd-console-cams-'));
  const options = () => ({
    env: fakeCameraEnv(camDir),
    args: ['--web-port', String(web), '--proc-asound-root', join(ROOT, 'test/fixtures/asound/two-cards')],
  });

  beforeAll(async () => {
    web = await freePort();
    svc = await startService(options());
    browser = await launch();
    con = await openConsole(browser, web);
    page = con.page;
  });
  afterAll(async () => {
    await con?.close();
    await browser?.close();
    await svc?.stop();
  });

  it('shows that the event stream is reconnecting while the service is away, and is live again after', async () => {
    const { dataDir } = svc;
    await svc.stop();
    await expect.poll(() => page.locator('#live').getAttribute('data-state'), { timeout: 10000 }).toBe('reconnecting');
    expect(await page.locator('#live').textContent()).toMatch(/reconnecting in \d+ s/);
    await screenshot(page, 'desktop-reconnecting');
    // The same data dir (certificate, state) and web port; the web server finds the new API port itself.
    svc = await startService({ ...options(), dataDir });
    await expect.poll(() => page.locator('#live').getAttribute('data-state'), { timeout: 40000, interval: 500 }).toBe('open');
    expect(await page.locator('#live').textContent()).toBe('live');
  });

  it('adds a webhook with headers that are never shown again, refuses a bad URL beside it, deletes after asking', async () => {
    await goto(page, '#/webhooks');
    const form = page.locator('[data-form=webhook]');
    await form.locator('[name=url]').fill('ftp://example.net/x');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=webhook]', 'url').textContent()).toMatch(/^url /);
    await form.locator('[name=url]').fill('https://hooks.example.net/encoder');
    await form.getByLabel('pipeline.stopped').uncheck();
    await form.locator('[name=headers]').fill('Authorization: Bearer very-secret-value\nX-Site: north');
    await form.locator('button[type=submit]').click();
    const row = page.locator('[data-list=webhooks] tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toMatch(/https:\/\/hooks\.example\.net\/encoder.*pipeline\.started/);
    const held = (await svc.api('GET', '/svc/webhooks')).body;
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ url: 'https://hooks.example.net/encoder', events: ['pipeline.started'] });
    expect(held[0].headers).toBeUndefined();
    expect(await form.locator('[name=headers]').inputValue()).toBe('');
    expect(await page.locator('body').textContent()).not.toContain('very-secret-value');
    await screenshot(page, 'desktop-webhooks');
    await confirmClick(page, '[data-list=webhooks] [data-action=delete]');
    await expect.poll(async () => (await svc.api('GET', '/svc/webhooks')).body).toEqual([]);
    await expect.poll(() => row.count()).toBe(0);
  });

  it('lists cameras as they are plugged and unplugged, and the audio capture devices', async () => {
    await goto(page, '#/devices');
    await expect.poll(() => page.locator('[data-list=audio-devices] tbody tr').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^hw:0,0/), expect.stringMatching(/^hw:1,0/)]));
    writeFileSync(join(camDir, 'cam.json'), JSON.stringify({ path: '/dev/video93', name: 'Console Cam', caps: 'video/x-raw,format=YUY2,width=640,height=480,framerate=30/1' }));
    const row = page.locator('[data-list=cameras] tr[data-device="/dev/video93"]');
    await row.waitFor({ timeout: 10000 });
    expect(await row.textContent()).toMatch(/\/dev\/video93Console Camfile:\/\/\/dev\/video93/);
    await screenshot(page, 'desktop-devices');
    rmSync(join(camDir, 'cam.json'));
    await row.waitFor({ state: 'detached', timeout: 10000 });
  });

  it('changes settings (the API\'s message beside a bad field), shows the licence and the version', async () => {
    await goto(page, '#/system');
    const form = page.locator('[data-form=settings]');
    await expect.poll(() => form.locator('[name=device_name]').inputValue()).toBe('encoderd');
    await form.locator('[name=framegrab_retention]').fill('0');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=settings]', 'framegrab_retention').textContent()).toMatch(/^framegrab_retention/);
    await form.locator('[name=framegrab_retention]').fill('7');
    await form.locator('[name=device_name]').fill('Roof encoder');
    await form.locator('[name=log_level]').selectOption('debug');
    await form.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/settings')).body).toMatchObject({ device_name: 'Roof encoder', framegrab_retention: 7, log_level: 'debug' });
    await expect.poll(() => page.locator('#device-name').textContent()).toBe('Roof encoder');
    await expect.poll(() => page.locator('[data-licence]').getAttribute('data-status')).toBe('unrestricted');
    const version = (await svc.api('GET', '/svc/version')).body;
    await expect.poll(() => page.locator('[data-version]').textContent()).toContain(version.version);
    expect(await page.locator('[data-version]').textContent()).toContain(version.gstreamer);
  });

  it('creates an API key shown once, lists it, revokes it after asking', async () => {
    await goto(page, '#/system');
    const form = page.locator('[data-form=api-key]');
    await form.locator('[name=name]').fill('bad/name');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=api-key]', 'name').textContent()).toMatch(/^name /);
    await form.locator('[name=name]').fill('prometheus');
    await form.locator('button[type=submit]').click();
    const shown = page.locator('[data-new-key]');
    await shown.waitFor();
    const key = await shown.inputValue();
    expect(key).toMatch(/^edk_[A-Za-z0-9_-]{43}$/);
    const held = (await svc.api('GET', '/svc/auth/keys')).body;
    expect(held.map((k: { name: string }) => k.name)).toEqual(['prometheus']);
    await expect.poll(() => page.locator('[data-list=api-keys] tbody tr').textContent()).toMatch(/^prometheus/);
    await screenshot(page, 'desktop-system');
    await page.locator('.new-key button').click();
    expect(await page.locator('body').textContent()).not.toContain(key);
    await confirmClick(page, '[data-list=api-keys] [data-action=revoke]');
    await expect.poll(async () => (await svc.api('GET', '/svc/auth/keys')).body).toEqual([]);
  });

  it('sets the password (this tab stays logged in), changes it, removes it after asking', async () => {
    await goto(page, '#/system');
    let form = page.locator('[data-form=password]');
    await form.locator('[name=password]').fill('short');
    await form.locator('[name=repeat]').fill('short');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=password]', 'password').textContent()).toBe('password must be at least 12 characters');
    await form.locator('[name=password]').fill('first password 1');
    await form.locator('[name=repeat]').fill('first password 2');
    await form.locator('button[type=submit]').click();
    await expect.poll(() => fieldError(page, '[data-form=password]', 'repeat').textContent()).toMatch(/differ/);
    await form.locator('[name=repeat]').fill('first password 1');
    await form.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('GET', '/svc/auth/status')).body.auth_enabled).toBe(true);
    // The tab logged in with it: the stream is open with the token, the page still works.
    await expect.poll(() => page.locator('#live').getAttribute('data-state'), { timeout: 10000 }).toBe('open');
    await expect.poll(() => page.locator('#logout').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('encoderd.token'))).toMatch(/.{20,}/);
    expect((await svc.api('GET', '/svc/settings')).status).toBe(401);

    form = page.locator('[data-form=password]');
    await expect.poll(() => form.locator('button[type=submit]').textContent()).toBe('Change password');
    await form.locator('[name=password]').fill('second password 2');
    await form.locator('[name=repeat]').fill('second password 2');
    await form.locator('button[type=submit]').click();
    await expect.poll(async () => (await svc.api('POST', '/svc/auth/login', { password: 'second password 2' })).status).toBe(200);
    expect(await page.locator('#live').getAttribute('data-state')).toBe('open');

    await confirmClick(page, '[data-form=password] [data-action=remove-password]');
    await expect.poll(async () => (await svc.api('GET', '/svc/auth/status')).body.auth_enabled).toBe(false);
    await expect.poll(() => page.locator('#live').getAttribute('data-state'), { timeout: 10000 }).toBe('open');
    await expect.poll(() => page.locator('#logout').isVisible()).toBe(false);
    expect(con.errors).toEqual([]);
  });
});
