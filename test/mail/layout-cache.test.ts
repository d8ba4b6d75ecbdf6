import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderMailHtml, type MailBrand, type MailContent } from '../../src/mail/layout.ts';
import { MailLayouts } from '../../src/mail/layout-cache.ts';

const layouts = new MailLayouts();
const renderMailHtmlCached = layouts.render.bind(layouts);

/*
 * A mail rendered from the cached layout is the mail MJML renders for it in full: same bytes,
 * whatever its text holds (markup, entities, quotes, line breaks, text that looks like the
 * layout's own markers), for every shape of content and look of organization.
 */

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '<script>alert(1)</script>',
    'Tom & "Jerry" \'s',
    'line one\nline two',
    'SIGNETMAILSLOT0X',
    'SIGNETMAILSLOT99X',
    'Zoë Ångström 日本',
    '&amp; &lt;',
  ),
);
const url = fc.constantFrom(
  'http://localhost:3000/sign/abc_DEF-123',
  'https://x.test/a?b=1&c=<2>',
  'https://x.test/"quoted"',
);
const content: fc.Arbitrary<MailContent> = fc.record(
  {
    greeting: text,
    paragraphs: fc.array(text, { maxLength: 3 }),
    quote: fc.record({ label: text, text }),
    code: fc.stringMatching(/^[0-9]{6}$/),
    button: fc.record({ label: text, url }),
    after: fc.array(text, { maxLength: 2 }),
  },
  { requiredKeys: ['paragraphs'] },
);
const brand: fc.Arbitrary<MailBrand> = fc.record({
  name: fc.constantFrom('Acme', 'Tom & Jerry <Ltd>', 'Zoë'),
  brandColor: fc.constantFrom(null, '#0F766E', '#FDE68A'),
  logoUrl: fc.constantFrom(null, 'http://localhost:3000/public/logos/org_1.png?v=2&x=1'),
});

describe('the cached mail layout', () => {
  it('renders every mail exactly as MJML renders it in full', async () => {
    await fc.assert(
      fc.asyncProperty(text, content, brand, async (subject, c, b) => {
        expect(await renderMailHtmlCached(subject, c, b)).toBe(await renderMailHtml(subject, c, b));
      }),
      { numRuns: 200 },
    );
  }, 120_000);

  it('fills in per-mail values escaped: markup in a name or a message stays text', async () => {
    const brand = { name: 'Acme', brandColor: null, logoUrl: null };
    await renderMailHtmlCached(
      'Warm',
      {
        greeting: 'Hello A,',
        paragraphs: ['x'],
        button: { label: 'Open', url: 'http://localhost/a' },
      },
      brand,
    );
    const out = await renderMailHtmlCached(
      'Sign <b>this</b>',
      {
        greeting: 'Hello <img src=x onerror=alert(1)>,',
        paragraphs: ['"quoted" & <i>'],
        button: { label: 'Open', url: 'http://localhost/a?b=1&c="2"' },
      },
      brand,
    );
    expect(out).not.toContain('<img src=x');
    expect(out).toContain('Hello &lt;img src=x onerror=alert(1)&gt;,');
    expect(out).toContain('&quot;quoted&quot; &amp; &lt;i&gt;');
    expect(out).toContain('href="http://localhost/a?b=1&amp;c=&quot;2&quot;"');
    expect(out).not.toMatch(/SIGNETMAILSLOT/);
  });

  it('each app keeps its own layouts: two caches in one process share none', async () => {
    const mine = new MailLayouts();
    const other = new MailLayouts();
    const brand = { name: 'Acme', brandColor: null, logoUrl: null };
    await mine.render('Hi', { greeting: 'Hello A,', paragraphs: ['x'] }, brand);
    expect(mine.size).toBe(1);
    expect(other.size).toBe(0);
  });
});
