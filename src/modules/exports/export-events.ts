import { Type } from 'typebox';
import { OrganizationExport } from './exports.schemas.ts';

/** The `data` of the export events (events/event-payloads.ts holds the others). */
export const EXPORT_EVENT_DATA = {
  'organization.export.completed': Type.Object(OrganizationExport.properties, {
    description:
      'The export as `GET /api/v1/organization/exports/{id}` answers it, `completed`, with its `downloadUrl`',
  }),
};

type ExportEventDataSchemas = typeof EXPORT_EVENT_DATA;
declare module '../events/event-payloads.ts' {
  interface EventDataSchemas extends ExportEventDataSchemas {}
}
