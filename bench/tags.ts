import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Context, ScenarioResult } from './context.ts';
import { rssOf } from './harness.ts';
import { makeDocument } from './sign.ts';

/*
 * `npm run bench -- tags`: intake of a 50-page PDF with 200 text tags and of a ~50 MB PDF with
 * none, each uploaded with `textTags` on and off, in one run: the time from the first byte of the
 * PUT to the answer (stored, hashed, pages counted, tags read and removed) and the server's peak
 * RSS above where it started, sampled every 10 ms.
 */

const MB = 2 ** 20;

/** 50 pages of contract text, 4 tags on each (signature, date, initials, text with options). */
async function taggedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 1; p <= 50; p++) {
    const page = doc.addPage([595, 842]);
    for (let line = 0; line < 40; line++)
      page.drawText(`Clause ${p}.${line}: the parties agree to the terms set out on this page.`, {
        x: 50,
        y: 800 - line * 16,
        size: 10,
        font,
      });
    page.drawText('Signed {{signature:1}} on {{date:1;label=Date}}', {
      x: 50,
      y: 110,
      size: 10,
      font,
    });
    page.drawText('Initials {{initials:2}} City {{text:2;label=City;width=120}}', {
      x: 50,
      y: 80,
      size: 10,
      font,
    });
  }
  return Buffer.from(await doc.save());
}

async function intake(ctx: Context, pdf: Buffer, textTags: boolean) {
  const api = async (path: string, body: unknown) => {
    const r = await fetch(`${ctx.server.url}${path}`, {
      method: 'POST',
      headers: ctx.auth,
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { data: any }).data;
  };
  const doc = await api('/api/v1/documents', {
    name: 'Tags benchmark',
    signers: [
      { name: 'Ada', email: 'ada@example.test' },
      { name: 'Bob', email: 'bob@example.test' },
    ],
  });
  const ticket = await api(`/api/v1/documents/${doc.id}/upload`, {
    filename: 'bench.pdf',
    fileSize: pdf.length,
    textTags,
  });
  const pid = ctx.server.child.pid ?? 0;
  const rssBefore = rssOf(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssOf(pid));
  }, 10);
  const started = performance.now();
  const res = await fetch(ticket.uploadUrl, {
    method: 'PUT',
    headers: ticket.headers,
    body: new Uint8Array(pdf),
  });
  const body = (await res.json()) as { data: { fields: unknown[]; warnings: unknown[] } };
  const ms = performance.now() - started;
  clearInterval(sampler);
  if (!res.ok) throw new Error(`upload PUT: ${res.status} ${JSON.stringify(body)}`);
  return {
    ms: Math.round(ms),
    rssGrowthMb: Number(((Math.max(rssPeak, rssOf(pid)) - rssBefore) / MB).toFixed(1)),
    fields: body.data.fields.length,
    warnings: body.data.warnings.length,
  };
}

export async function measureTags(ctx: Context): Promise<Omit<ScenarioResult, 'database'>> {
  const tagged = await taggedPdf();
  const big = await makeDocument(200, 295, true);
  // Unmeasured: the server loads its intake and tag code on first use.
  await intake(ctx, tagged, true);
  await intake(ctx, tagged, false);
  const taggedOff = await intake(ctx, tagged, false);
  const taggedOn = await intake(ctx, tagged, true);
  const bigOff = await intake(ctx, big, false);
  const bigOn = await intake(ctx, big, true);
  const added = taggedOn.ms - taggedOff.ms;
  return {
    taggedFileMb: Number((tagged.length / MB).toFixed(2)),
    bigFileMb: Number((big.length / MB).toFixed(1)),
    taggedOff,
    taggedOn,
    bigOff,
    bigOn,
    summary:
      `50 pages/200 tags: ${taggedOff.ms} → ${taggedOn.ms} ms (+${added} ms, ${taggedOn.fields} fields), ` +
      `RSS +${taggedOn.rssGrowthMb} MB; ${(big.length / MB).toFixed(0)} MB untagged: off ${bigOff.ms} ms ` +
      `RSS +${bigOff.rssGrowthMb} MB, on ${bigOn.ms} ms RSS +${bigOn.rssGrowthMb} MB`,
    goal: 'tags add < 1 s to the 50-page file; textTags off: nothing measurable added to intake',
  };
}
