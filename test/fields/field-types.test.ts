import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FIELD_TYPE_REGISTRY,
  FIELD_TYPES,
  fieldTypesForClient,
} from '../../src/modules/documents-core/field-types.ts';
import { createCampaign } from '../campaigns/setup.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** The `data-field-types` JSON a page's `<body>` carries for its client. */
function fieldTypesOf(html: string): unknown {
  const match = /data-field-types="([^"]*)"/.exec(html);
  if (!match) throw new Error('no data-field-types on the page');
  const json = match[1]
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
  return JSON.parse(json);
}

describe('the field-type registry', () => {
  it('is what the API accepts as a field type', async () => {
    const doc = await t.request('GET', '/openapi.json');
    expect(doc.body.components.schemas.Field.properties.type.enum).toEqual(FIELD_TYPES);
  });

  it('gives every type a minimum size no larger than its default size', () => {
    for (const type of FIELD_TYPES) {
      const spec = FIELD_TYPE_REGISTRY[type];
      expect(spec.minSize.width, type).toBeLessThanOrEqual(spec.defaultSize.width);
      expect(spec.minSize.height, type).toBeLessThanOrEqual(spec.defaultSize.height);
    }
  });

  it('is served to the signing page as data, one entry per type', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/sign/${'a'.repeat(43)}` });
    expect(res.statusCode).toBe(200);
    const served = fieldTypesOf(res.body) as Record<string, { control: string; submit: string }>;
    expect(served).toEqual(fieldTypesForClient());
    expect(Object.keys(served)).toEqual(FIELD_TYPES);
    expect(served.initials).toEqual({ control: 'initials', submit: 'mark' });
    expect(served.checkbox).toEqual({ control: 'checkbox', submit: 'boolean' });
  });

  it('is served to the campaign page as the same data', async () => {
    const campaign = await createCampaign(t);
    const res = await t.app.inject({ method: 'GET', url: `/c/${campaign.slug}` });
    expect(res.statusCode).toBe(200);
    expect(fieldTypesOf(res.body)).toEqual(fieldTypesForClient());
  });
});
