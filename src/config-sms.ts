import path from 'node:path';
import { Type } from 'typebox';
import { ConfigError } from './config-values.ts';

/*
 * Where codes by SMS go (README, "Configuration"), part of config.ts's one schema: loadConfig
 * reads SMS_URL and SMS_SECRET with the rest of the environment and calls `smsConfig` on them.
 * - `https://gateway.example/sms`: your own gateway, sent `{to, body, idempotencyKey}` as JSON
 *   signed like a webhook with SMS_SECRET;
 * - `twilio://ACCOUNT_SID:AUTH_TOKEN@api.twilio.com?from=+15005550006`: Twilio's Messages API;
 * - unset: each message is written to `$DATA_DIR/sms/<id>.json`.
 * `http://` and `twilio+http://` (plain HTTP) only outside production.
 */

export const SmsEnv = {
  SMS_URL: Type.Optional(
    Type.String({ maxLength: 2000, pattern: '^(https?|twilio|twilio\\+http)://' }),
  ),
  SMS_SECRET: Type.Optional(Type.String({ minLength: 16, maxLength: 200, pattern: '^\\S+$' })),
};

export type SmsConfig =
  | { readonly driver: 'spool'; readonly spoolDir: string }
  | { readonly driver: 'gateway'; readonly url: string; readonly secret: string }
  | {
      readonly driver: 'twilio';
      /** `https://api.twilio.com` (or the host of the URL): the Messages API lives under it. */
      readonly baseUrl: string;
      readonly accountSid: string;
      readonly authToken: string;
      readonly from: string;
    };

export function smsConfig(
  e: { [K in keyof typeof SmsEnv]?: string },
  dataDir: string,
  production: boolean,
): SmsConfig {
  if (!e.SMS_URL) return { driver: 'spool', spoolDir: path.join(dataDir, 'sms') };
  let url: URL;
  try {
    url = new URL(e.SMS_URL);
  } catch {
    throw new ConfigError('SMS_URL is not a URL');
  }
  const plain = url.protocol === 'http:' || url.protocol === 'twilio+http:';
  if (plain && production)
    throw new ConfigError(
      'SMS_URL: plain HTTP is refused in production; use https:// or twilio://',
    );
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    if (!e.SMS_SECRET)
      throw new ConfigError(
        'SMS_URL names a gateway: set SMS_SECRET (16+ characters) to sign its requests',
      );
    return { driver: 'gateway', url: url.toString(), secret: e.SMS_SECRET };
  }
  const accountSid = decodeURIComponent(url.username);
  const authToken = decodeURIComponent(url.password);
  const from = url.searchParams.get('from') ?? '';
  if (!accountSid || !authToken)
    throw new ConfigError(
      'SMS_URL: twilio://ACCOUNT_SID:AUTH_TOKEN@host?from=+… needs the SID and token',
    );
  if (!/^\+[1-9][0-9]{6,14}$/.test(from))
    throw new ConfigError(
      'SMS_URL: twilio:// needs ?from= with the sending number in E.164 (+15005550006)',
    );
  return {
    driver: 'twilio',
    baseUrl: `${plain ? 'http' : 'https'}://${url.host}`,
    accountSid,
    authToken,
    from,
  };
}
