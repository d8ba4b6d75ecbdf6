import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Debian's Chromium, driven by playwright-core. Browser tests skip (with this reason) where it is
 * not installed, so `npm test` passes on a machine without it: `apt-get install chromium`.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM_PATH);
export const NO_CHROMIUM_REASON = `browser tests skipped: ${CHROMIUM_PATH} not found (apt-get install -y chromium)`;

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  /** Everything the pages printed to the console or threw, and every CSP violation: a test asserts it stays clean. */
  problems: string[];
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/** Launches Chromium with a fresh profile directory, removed on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  const { chromium } = await import('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    args: ARGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning')
        problems.push(`${msg.type()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  };
  context.on('page', watch);
  for (const p of context.pages()) watch(p);
  return {
    context,
    problems,
    async newPage(viewport) {
      const page = await context.newPage();
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/*
 * Waiting assertions for Vitest (Playwright's own `expect` comes with @playwright/test, which we do
 * not use): each retries until the page agrees or 10 s pass.
 */
const WAIT = { timeout: 10_000, interval: 50 };

/** Retries `read` until the assertion chained on the result passes. */
export const eventually = <T>(read: () => Promise<T> | T) => expect.poll(read, WAIT);

export const textOf = async (locator: Locator) =>
  ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
export const isFocused = (locator: Locator) =>
  locator.evaluate((el) => el === document.activeElement);
export const visible = (locator: Locator) =>
  locator.waitFor({ state: 'visible', timeout: WAIT.timeout });
export const hidden = (locator: Locator) =>
  locator.waitFor({ state: 'hidden', timeout: WAIT.timeout });

export type { Browser, Locator, Page };
