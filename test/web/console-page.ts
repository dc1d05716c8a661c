/**
 * The console in Debian's chromium through playwright-core, for the console tests: one browser per test file, pages
 * that record console errors and requests, screenshots under test-results/screenshots/ (gitignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../helpers/service';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
export const SCREENSHOTS = join(ROOT, 'test-results/screenshots');

export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--autoplay-policy=no-user-gesture-required'],
  });
}

export interface ConsolePage {
  page: Page;
  errors: string[];
  close(): Promise<void>;
}

/** A page on the console, the event stream open. Console errors are collected (failed requests excepted: fetch logs each 4xx). */
export async function openConsole(browser: Browser, webPort: number, opts: { width?: number; height?: number; hash?: string } = {}): Promise<ConsolePage> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`https://127.0.0.1:${webPort}/${opts.hash ?? ''}`);
  await page.locator('#live[data-state=open]').waitFor({ timeout: 15000 });
  return { page, errors, close: () => context.close() };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The text beside a field: the API's message shown next to the control named `name`. */
export function fieldError(page: Page, form: string, name: string) {
  return page.locator(`${form} .field:has([name="${name}"]) .field-error`);
}

export function goto(page: Page, hash: string): Promise<void> {
  return page.evaluate((h) => { location.hash = h; }, hash);
}

/** Clicks a confirm-once button twice: the first press arms it, the second acts. */
export async function confirmClick(page: Page, selector: string): Promise<void> {
  const button = page.locator(selector);
  await button.click();
  await expect.poll(() => button.getAttribute('data-armed')).toBe('true');
  await button.click();
}
