import type { OperationExample } from '../../http/operation-docs.ts';
import { LOCALES } from '../../i18n/locales.ts';

/** Realistic calls of these operations, shown in the API reference and sent to a real server by test/docs/examples-live.test.ts. */
export const localesExamples = {
  listLocales: { response: { data: LOCALES.map((l) => ({ ...l })) } },
} satisfies Record<string, OperationExample>;
