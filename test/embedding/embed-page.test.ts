import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  hasChromium,
  launchBrowser,
  NO_CHROMIUM_REASON,
  textOf,
  type TestBrowser,
} from '../helpers/browser.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { freePort } from '../helpers/child-server.ts';
import { createCampaign } from '../campaigns/setup.ts';
import { getDocument, linkFor, pageProblems, sendDocument } from '../web/setup.ts';

/*
 * README "Embedding" in a real Chromium: its host page, served by a second server on
 * another origin (http://127.0.0.1:<port> around Signet at http://localhost:<port>), loads
 * /embed.js, frames the signing page, is signed inside the iframe, and hears `signet:completed`.
 * An origin the organization does not list gets an error page that posts nothing.
 */

if (!hasChromium) console.warn(NO_CHROMIUM_REASON);

const README = fs.readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), '../../README.md'),
  'utf8',
);

/** The README's host page (the html block after `<!-- embed-example -->`). */
function readmeExample(): string {
  const match = /<!-- embed-example -->\n```html\n([\s\S]*?)```/.exec(README);
  if (!match) throw new Error('README: no embed example');
  return match[1];
}

let t: TestApp;
let signet: string;
let host: http.Server;
let hostOrigin: string;
let browser: TestBrowser;
/** The page each path of the host server answers. */
const hostPages = new Map<string, string>();

describe.skipIf(!hasChromium)('embedding in Chromium', () => {
  beforeAll(async () => {
    const port = await freePort();
    signet = `http://localhost:${port}`;
    t = await buildTestApp({ env: { PUBLIC_URL: signet } });
    await t.app.listen({ port, host: '127.0.0.1' });
    host = http.createServer((req, res) => {
      const page = hostPages.get(req.url ?? '');
      res.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const res = await t.request('PATCH', '/api/v1/organization', {
      body: { embedOrigins: [hostOrigin] },
    });
    expect(res.status).toBe(200);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await t?.close();
  });

  async function embeddedSigner() {
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test', delivery: 'embedded' }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 70, width: 35, height: 7, assignedTo: 0 }],
    });
    return { doc, url: await linkFor(t, doc.id, doc.signers[0].id) };
  }

  it('signs inside the README host page on another origin and hears signet:completed', async () => {
    const { doc, url } = await embeddedSigner();
    const page = readmeExample()
      .replace('https://sign.example.com/sign/SIGNING_TOKEN', url)
      .replaceAll('https://sign.example.com', signet);
    hostPages.set('/contract', page);
    const tab = await browser.newPage();
    // Every signet:* event the host page hears, in order.
    await tab.addInitScript(() => {
      const heard: unknown[] = [];
      (window as unknown as { heard: unknown[] }).heard = heard;
      for (const type of ['ready', 'viewed', 'completed', 'declined', 'error', 'resize'])
        document.addEventListener(`signet:${type}`, (e) =>
          heard.push({ event: e.type, detail: (e as CustomEvent).detail }),
        );
    });
    await tab.goto(`${hostOrigin}/contract`);
    const heard = () =>
      tab.evaluate(() => (window as unknown as { heard: { event: string; detail: any }[] }).heard);

    const frame = tab.frameLocator('signet-signing iframe');
    await eventually(async () => (await heard()).map((h) => h.event)).toContain('signet:viewed');
    const iframeSrc = await tab.locator('signet-signing iframe').getAttribute('src');
    expect(iframeSrc).toContain(`embed=1&origin=${encodeURIComponent(hostOrigin)}`);
    // No Signet header inside the frame.
    expect(await frame.locator('header.topbar').count()).toBe(0);
    const readies = (await heard()).filter((h) => h.event === 'signet:ready');
    expect(readies).toHaveLength(1);
    const ready = readies[0];
    expect(ready.detail).toEqual({
      source: 'signet',
      type: 'ready',
      documentId: doc.id,
      signerId: doc.signers[0].id,
    });
    // The iframe follows the content's height.
    const resized = (await heard()).filter((h) => h.event === 'signet:resize');
    expect(resized.length).toBeGreaterThan(0);
    const height = resized.at(-1)!.detail.height;
    expect(height).toBeGreaterThan(100);
    await eventually(async () =>
      Math.round((await tab.locator('signet-signing iframe').boundingBox())!.height),
    ).toBe(height);

    // For a person to look at: the host page with the signing page inside it.
    const shots = path.join(os.tmpdir(), 'signet-screens');
    fs.mkdirSync(shots, { recursive: true });
    await tab.screenshot({ path: path.join(shots, 'embedded-signing.png'), fullPage: true });

    await frame.getByRole('button', { name: 'Signature (required)' }).click();
    await frame.getByRole('tab', { name: 'Type' }).click();
    await frame.getByRole('button', { name: 'Adopt and sign' }).click();
    await frame.getByRole('button', { name: 'Finish' }).click();

    await eventually(() => textOf(tab.locator('#outcome'))).toBe(`Signed: ${doc.id}`);
    await tab.screenshot({ path: path.join(shots, 'embedded-signed.png'), fullPage: true });
    const completed = (await heard()).find((h) => h.event === 'signet:completed')!;
    expect(completed.detail).toEqual({
      source: 'signet',
      type: 'completed',
      documentId: doc.id,
      signerId: doc.signers[0].id,
    });
    // The signer stays on the host page: no redirect for an embedded signer.
    expect(tab.url()).toBe(`${hostOrigin}/contract`);
    await eventually(async () => (await getDocument(t, doc.id)).signers[0].status).toBe(
      'completed',
    );
    await tab.close();
  });

  it('shows an error and posts nothing when origin is not one of embedOrigins', async () => {
    const { url } = await embeddedSigner();
    // A page of the allowed site that asks the signing page to post to another origin.
    const other = 'http://127.0.0.1:9';
    const src = `${url}?embed=1&origin=${encodeURIComponent(other)}`;
    hostPages.set(
      '/wrong-origin',
      `<!doctype html><html><body><iframe id="f" src="${src}" style="width:100%;height:600px"></iframe>
<script>window.heard = []; addEventListener('message', (e) => window.heard.push(e.data));</script>
</body></html>`,
    );
    const tab = await browser.newPage();
    await tab.goto(`${hostOrigin}/wrong-origin`);
    const frame = tab.frameLocator('#f');
    await eventually(() => textOf(frame.getByRole('heading', { level: 1 }))).toBe(
      'This page cannot be shown here',
    );
    expect(await frame.locator('header.topbar').count()).toBe(0);
    // Nothing of the document, no script: give a posting page time to have posted.
    expect(await frame.locator('script[src]').count()).toBe(0);
    await tab.waitForTimeout(500);
    expect(await tab.evaluate(() => (window as unknown as { heard: unknown[] }).heard)).toEqual([]);

    // The same link with the allowed origin does post (the test above would see it).
    const allowed = `${url}?embed=1&origin=${encodeURIComponent(hostOrigin)}`;
    await tab.evaluate((s) => {
      (document.getElementById('f') as HTMLIFrameElement).src = s;
    }, allowed);
    await eventually(() =>
      tab.evaluate(() =>
        (window as unknown as { heard: { type: string }[] }).heard.map((m) => m.type),
      ),
    ).toContain('ready');
    await tab.close();
  });

  it('<signet-form slug> frames the campaign page at the address embed.js came from', async () => {
    const form = await createCampaign(t);
    hostPages.set(
      '/form',
      `<!doctype html><html><head><script src="${signet}/embed.js"></script></head><body>
<signet-form slug="${form.slug}"></signet-form>
<script>window.heard = []; for (const type of ['ready', 'viewed', 'resize'])
  document.addEventListener('signet:' + type, (e) => window.heard.push(e.detail));</script>
</body></html>`,
    );
    const tab = await browser.newPage();
    await tab.goto(`${hostOrigin}/form`);
    const heard = () =>
      tab.evaluate(() =>
        (window as unknown as { heard: { type: string; documentId: unknown }[] }).heard.map(
          (m) => `${m.type}:${m.documentId}`,
        ),
      );
    await eventually(heard).toContain('viewed:null');
    expect(await heard()).toContain('ready:null');
    expect(await tab.locator('signet-form iframe').getAttribute('src')).toBe(
      `${signet}/c/${form.slug}?embed=1&origin=${encodeURIComponent(hostOrigin)}`,
    );
    await tab.close();
  });

  it('sends a signer who is not embedded to the document’s redirectUrl after signing', async () => {
    hostPages.set('/thanks', '<!doctype html><html><body><h1>Thanks</h1></body></html>');
    const doc = await sendDocument(t, {
      signers: [{ name: 'Ada Lovelace', email: 'ada@example.test' }],
      fields: [{ type: 'signature', page: 1, x: 10, y: 70, width: 35, height: 7, assignedTo: 0 }],
      redirectUrl: `${hostOrigin}/thanks`,
    });
    const tab = await browser.newPage();
    await tab.goto(await linkFor(t, doc.id, doc.signers[0].id));
    await tab.getByRole('button', { name: 'Signature (required)' }).click();
    await tab.getByRole('tab', { name: 'Type' }).click();
    await tab.getByRole('button', { name: 'Adopt and sign' }).click();
    await tab.getByRole('button', { name: 'Finish' }).click();
    await eventually(() => tab.url()).toBe(`${hostOrigin}/thanks`);
    await tab.close();
  });

  it('keeps the action bar and the signature dialog in the host page’s view, wherever it is scrolled', async () => {
    // The iframe is as tall as the page (three PDF pages, some 1,800 px at 375 px wide): a bar
    // fixed to the frame's bottom was at the end of the document and a dialog centred in the
    // frame below the host's fold, both out of sight of a signer at the top of the document.
    const doc = await sendDocument(
      t,
      {
        signers: [{ name: 'Ada Lovelace', email: 'ada@example.test', delivery: 'embedded' }],
        fields: [{ type: 'signature', page: 1, x: 10, y: 75, width: 35, height: 7, assignedTo: 0 }],
      },
      3,
    );
    const url = await linkFor(t, doc.id, doc.signers[0].id);
    hostPages.set(
      '/long',
      `<!doctype html><html><head><meta name="viewport" content="width=device-width">
<script src="${signet}/embed.js"></script></head><body style="margin:0">
<h1 style="height:60px;margin:0">Your contract</h1><signet-signing url="${url}"></signet-signing>
<p style="height:400px">After the contract</p></body></html>`,
    );
    const viewport = { width: 375, height: 700 };
    const tab = await browser.newPage(viewport);
    await tab.goto(`${hostOrigin}/long`);
    const frame = tab.frameLocator('signet-signing iframe');
    await frame.locator('.page canvas').first().waitFor();
    await eventually(
      async () => (await tab.locator('signet-signing iframe').boundingBox())!.height,
    ).toBeGreaterThan(viewport.height * 2);
    /** Whether the whole of an element inside the frame is within the host's window. */
    const inView = async (selector: string) => {
      const box = await frame.locator(selector).boundingBox();
      return !!box && box.y >= 0 && box.y + box.height <= viewport.height;
    };
    const finish = '.actionbar .btn-primary';
    await eventually(() => inView(finish)).toBe(true);
    // Scrolled into the middle of the document, then to its end: the bar follows.
    for (const y of [600, 1200]) {
      await tab.evaluate((to) => window.scrollTo(0, to), y);
      await eventually(() => inView(finish)).toBe(true);
    }
    // Back at the top, the Sign field opens its dialog where the signer is looking.
    await tab.evaluate(() => window.scrollTo(0, 0));
    await eventually(() => inView(finish)).toBe(true);
    await frame.getByRole('button', { name: 'Signature (required)' }).click();
    await eventually(() => inView('dialog[open]')).toBe(true);
    await frame.getByRole('tab', { name: 'Type' }).click();
    await frame.getByRole('button', { name: 'Adopt and sign' }).click();
    await frame.getByRole('button', { name: 'Finish' }).click();
    await eventually(async () => (await getDocument(t, doc.id)).signers[0].status).toBe(
      'completed',
    );
    await tab.close();
  });

  it('no page reported a script error or a CSP violation', () => {
    expect(pageProblems(browser.problems)).toEqual([]);
  });
});
