/*
 * What the rest of Signet knows of text messages: the sender's shape. The drivers SMS_URL names
 * are in sms/sms-sender.ts; only app.ts builds one.
 */

export interface SmsMessage {
  /** E.164. */
  to: string;
  body: string;
  /** The same on every attempt of one message: a gateway drops the repeats it already sent. */
  idempotencyKey: string;
}

export interface SmsSender {
  /**
   * Resolves once the peer accepted the message; throws SmsRejected (sms/sms-sender.ts) when it
   * refused it for good, any other error when a retry may succeed.
   */
  send(message: SmsMessage): Promise<void>;
}
