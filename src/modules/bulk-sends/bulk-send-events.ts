import { Type } from 'typebox';
import { BulkSend } from './bulk-sends.schemas.ts';

/** The `data` of the bulk-send events (events/event-payloads.ts holds the others). */
export const BULK_SEND_EVENT_DATA = {
  'bulk_send.completed': Type.Object(BulkSend.properties, {
    description: 'The bulk send as `GET /api/v1/bulk-sends/{id}` answers it, every row done',
  }),
};

type BulkSendEventDataSchemas = typeof BULK_SEND_EVENT_DATA;
declare module '../events/event-payloads.ts' {
  interface EventDataSchemas extends BulkSendEventDataSchemas {}
}
