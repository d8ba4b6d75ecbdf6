import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { freePort } from '../helpers/child-server.ts';
import { samplePdf } from '../helpers/factories.ts';

/** The app on a real socket, with PUBLIC_URL pointing at it, so emailed and API links open as they are. */
export async function startServer(): Promise<{ t: TestApp; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await buildTestApp({ env: { PUBLIC_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, origin };
}

export interface SentDocument {
  id: string;
  signers: { id: string; name: string; email: string; order: number }[];
  fields: { id: string; type: string; label: string; assignedTo: number }[];
}

/** Creates a draft with signers and fields and uploads a real PDF through the upload URL; answers its id. */
export async function draftWithFile(
  t: TestApp,
  body: Record<string, unknown>,
  pages = 2,
): Promise<string> {
  const created = await t.request('POST', '/api/v1/documents', {
    body: { name: 'Service Agreement', ...body },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;

  // The two-step upload, for real: the ticket from the API, then the bytes PUT to its URL over the socket.
  const pdf = await samplePdf(pages, 'Service Agreement, page');
  const ticket = await t.request('POST', `/api/v1/documents/${id}/upload`, {
    body: { contentType: 'application/pdf', fileSize: pdf.length },
  });
  expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
  const put = await fetch(ticket.body.data.uploadUrl, {
    method: ticket.body.data.method,
    headers: ticket.body.data.headers,
    body: new Uint8Array(pdf),
  });
  expect(put.status, await put.clone().text()).toBeLessThan(300);
  return id;
}

/** Creates a document with signers and fields, uploads a real PDF through the upload URL, and sends it. */
export async function sendDocument(
  t: TestApp,
  body: Record<string, unknown>,
  pages = 2,
): Promise<SentDocument> {
  const id = await draftWithFile(t, body, pages);
  const sent = await t.request('POST', `/api/v1/documents/${id}/send`);
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const detail = await t.request('GET', `/api/v1/documents/${id}`);
  return { id, signers: detail.body.data.signers, fields: detail.body.data.fields };
}

/** A fresh signing link for the signer (the embedded-signing endpoint). */
export async function linkFor(t: TestApp, documentId: string, signerId: string): Promise<string> {
  const res = await t.request('POST', `/api/v1/documents/${documentId}/signers/${signerId}/link`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.url as string;
}

export async function getDocument(t: TestApp, id: string) {
  const res = await t.request('GET', `/api/v1/documents/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Opens a link and waits until the page has settled: the document with its fields, or a full-page state. */
export async function openSigningPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector('body[data-view], [data-state]', { timeout: 20_000 });
}

/** Draws a wavy stroke with the mouse across the signature pad. */
export async function drawOnPad(page: Page): Promise<void> {
  const canvas = page.locator('dialog[open] .pad-wrap canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('signature pad not visible');
  const y = (f: number) => box.y + box.height * f;
  await page.mouse.move(box.x + box.width * 0.1, y(0.6));
  await page.mouse.down();
  for (let i = 1; i <= 24; i++) {
    await page.mouse.move(
      box.x + box.width * (0.1 + 0.8 * (i / 24)),
      y(0.6 - 0.2 * Math.sin(i / 2.5)),
    );
  }
  await page.mouse.up();
}

/** Draws a stroke with a finger: real touch events (through the DevTools protocol), as a phone sends them. */
export async function drawOnPadByTouch(page: Page): Promise<void> {
  const box = await page.locator('dialog[open] .pad-wrap canvas').boundingBox();
  if (!box) throw new Error('signature pad not visible');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
  const at = (i: number) => [
    {
      x: box.x + box.width * (0.15 + 0.7 * (i / 16)),
      y: box.y + box.height * (0.4 + 0.25 * Math.cos(i / 2)),
    },
  ];
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
  for (let i = 1; i <= 16; i++)
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(i) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/**
 * What the browser reported beyond the API's expected refusals (an invalid link is a 403, a finished
 * document a 409): CSP violations, script errors, pdf.js warnings all count.
 */
export function pageProblems(problems: string[]): string[] {
  return problems.filter(
    (p) =>
      !/^error: Failed to load resource: the server responded with a status of (403|404|409)\b/.test(
        p,
      ),
  );
}
