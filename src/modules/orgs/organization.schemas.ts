import { Type, type Static } from 'typebox';
import { Id, Nullable, Timestamp } from '../../http/schemas.ts';
import { LocaleTag, TimeZone } from '../../http/locale-input.ts';

/** Largest logo accepted, in bytes of image (it is sent with every page and mail that shows it). */
export const MAX_LOGO_BYTES = 256 * 1024;

/** Origins that may frame an organization's pages (sent in every page's CSP header). */
const MAX_EMBED_ORIGINS = 10;
const MAX_ORIGIN_CHARS = 200;

const Email = Type.String({ format: 'email', maxLength: 254 });
const BrandColor = Type.String({
  pattern: '^#[0-9A-Fa-f]{6}$',
  description: 'Hex colour `#RRGGBB`',
});

/** null: Signet's default in every locale; a string; or locale → string (each at most 10,000 characters). */
const CONSENT_TEXT_DESCRIPTION =
  "The disclosure signers accept when `requireConsent`: null for Signet's default in the signer's language (one per supported locale, which covers the right to a paper copy and how to get one, the right to withdraw and what withdrawing means, the hardware and software needed, and how to update contact details), one text, or an object of locale → text (≤ 10,000 characters each). A change is asked again of signers who have not completed.";
const ConsentTextValue = Type.String({ minLength: 1, maxLength: 10_000, pattern: '\\S' });
const ConsentText = Nullable(
  Type.Union(
    [
      ConsentTextValue,
      Type.Record(Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$' }), ConsentTextValue, {
        minProperties: 1,
        maxProperties: 30,
      }),
    ],
    {
      description: CONSENT_TEXT_DESCRIPTION,
    },
  ),
);

/**
 * The same in an answer, as one schema with a type list (not an anyOf with null, which the
 * serializer would validate on every response): one text, an object of locale → text, or null.
 */
const ConsentTextOut = Type.Unsafe<string | Record<string, string> | null>({
  type: ['string', 'object', 'null'],
  additionalProperties: { type: 'string' },
  description: CONSENT_TEXT_DESCRIPTION,
});

export const OrganizationSchema = Type.Object(
  {
    id: Id('org'),
    name: Type.String({ description: 'Shown to signers: "Acme sent you …", page headers, mail' }),
    adminEmail: Type.String({
      description: 'Receives operational mail: declines, action required, deactivated webhooks',
    }),
    brandColor: Nullable(
      Type.String({
        description: "Accent colour of signing pages and mail buttons; null: Signet's own",
      }),
    ),
    logoUrl: Nullable(
      Type.String({
        description: 'Public URL of the logo shown on signing pages and in mail; null when none',
      }),
    ),
    replyTo: Nullable(
      Type.String({
        description:
          'Reply-To address of mail sent to signers; null: replies go to the sender address',
      }),
    ),
    embedOrigins: Type.Array(Type.String(), {
      description:
        'Origins allowed to frame your signing and campaign pages (`Content-Security-Policy: frame-ancestors`); empty: no site may frame them',
    }),
    defaultLocale: Type.String({
      description:
        "Locale of signers' pages and mails when neither the signer nor the document sets one",
    }),
    timeZone: Type.String({
      description: 'IANA time zone of the dates and times signers read (pages, mails, certificate)',
    }),
    requireConsent: Type.Boolean({
      description:
        'Signers must accept `consentText` (consent to use electronic records and signatures, ESIGN §101(c)) before the document is shown',
    }),
    consentText: ConsentTextOut,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  {
    $id: 'Organization',
    description: 'The organization that owns the API key',
    examples: [
      {
        id: 'org_01jdx3k2m5q8v9w0y1z2a3b4c5',
        name: 'Acme Consulting',
        adminEmail: 'ops@acme.example',
        brandColor: '#0F766E',
        logoUrl: 'https://sign.acme.example/logos/org_01jdx3k2m5q8v9w0y1z2a3b4c5?v=5d41402a',
        replyTo: 'contracts@acme.example',
        embedOrigins: ['https://app.acme.example'],
        defaultLocale: 'de',
        timeZone: 'Europe/Berlin',
        requireConsent: true,
        consentText: null,
        createdAt: '2026-11-21T09:30:00.000Z',
        updatedAt: '2026-11-22T14:05:12.000Z',
      },
    ],
  },
);
export type Organization = Static<typeof OrganizationSchema>;

export const UpdateOrganizationBody = Type.Object(
  {
    requireConsent: Type.Optional(Type.Boolean()),
    consentText: Type.Optional(ConsentText),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '\\S',
        description: '1-200 characters, not blank',
      }),
    ),
    adminEmail: Type.Optional(Email),
    brandColor: Type.Optional(Nullable(BrandColor)),
    logo: Type.Optional(
      Nullable(
        Type.String({
          maxLength: Math.ceil((MAX_LOGO_BYTES * 4) / 3) + 64,
          pattern: '^data:image/(png|jpeg);base64,',
          description: `A PNG or JPEG as a \`data:image/png;base64,…\` URL, at most ${MAX_LOGO_BYTES / 1024} KB of image; null removes the logo`,
        }),
      ),
    ),
    replyTo: Type.Optional(Nullable(Email)),
    embedOrigins: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_ORIGIN_CHARS }), {
        maxItems: MAX_EMBED_ORIGINS,
        description: `Up to ${MAX_EMBED_ORIGINS} origins (scheme, host and optional port, e.g. \`https://app.example.com\`) that may frame your signing and campaign pages; HTTPS only, except \`http://localhost\`, \`http://127.0.0.1\` and \`http://[::1]\` (with any port) outside production. Replaces the list; \`[]\` allows none.`,
      }),
    ),
    defaultLocale: Type.Optional(LocaleTag),
    timeZone: Type.Optional(TimeZone),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    examples: [
      { name: 'Acme Consulting', brandColor: '#0F766E', replyTo: 'contracts@acme.example' },
    ],
  },
);
export type UpdateOrganizationInput = Static<typeof UpdateOrganizationBody>;
