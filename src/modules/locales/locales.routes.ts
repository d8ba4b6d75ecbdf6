import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ANY_KEY } from '../../http/auth.ts';
import { LOCALES } from '../../i18n/locales.ts';
import { localesExamples } from './locales.examples.ts';

const LocaleSchema = Type.Object(
  {
    code: Type.String({ description: 'The value of `locale` and `defaultLocale`, e.g. `de`' }),
    name: Type.String({ description: 'Its name in English' }),
    nativeName: Type.String({ description: 'Its name in itself, as the language picker shows it' }),
    direction: Type.Union([Type.Literal('ltr'), Type.Literal('rtl')], {
      description: 'Writing direction of its pages',
    }),
  },
  { $id: 'Locale' },
);

const LocalesResponse = Type.Object({ data: Type.Array(LocaleSchema) });

/** `GET /api/v1/locales`: the languages signers and visitors can be addressed in. */
export async function localesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const data = LOCALES.map((l) => ({ ...l }));
  app.get(
    '/api/v1/locales',
    {
      config: { scope: ANY_KEY },
      schema: {
        tags: ['Organization'],
        operationId: 'listLocales',
        example: localesExamples.listLocales,
        summary: 'List the languages of signing pages and mails',
        description:
          "Every locale a document, signer, template role, campaign, bulk-send row or the organization's `defaultLocale` may name. " +
          "A signer reads its page and mails in its own `locale`, else its document's, else the organization's `defaultLocale`; a campaign visitor in the campaign's, else the browser's language, else the organization's.",
        response: { 200: { ...LocalesResponse, description: 'The supported locales' } },
        errorCodes: [],
      },
    },
    async () => ({ data }),
  );
}
