import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { closeExpiredCampaigns } from '../modules/campaigns/campaign-closing.ts';
import { purgeEventLog } from '../modules/events/event-retention.ts';
import { purgeExpired } from '../modules/retention/retention.ts';
import { expireDocuments } from '../modules/documents/expiry.ts';
import { renewArchiveTimestamps } from '../modules/documents/timestamp-renewal.ts';
import { sendReminders } from '../modules/signing/reminders.ts';

/*
 * Time-driven work: documents expire, signers get reminders, campaigns close. Every instance with
 * workers runs the passes; the rules, and what makes them safe to run on several instances at
 * once, live in the modules.
 */

const SCHEDULER_INTERVAL_MS = 60_000;

/** One pass of every scheduler (the loop below, tests, the CLI). */
export async function runSchedulers(
  deps: AppDeps,
): Promise<{ expired: number; reminded: number; campaignsClosed: number; eventsPurged: number }> {
  const expired = await expireDocuments(deps);
  const reminded = await sendReminders(deps);
  const campaignsClosed = await closeExpiredCampaigns(deps);
  const eventsPurged = await purgeEventLog(deps.db, deps.clock.now(), deps.config.webhookLogDays);
  return { expired, reminded, campaignsClosed, eventsPurged };
}

/** The retention purges (modules/retention) and archive timestamp renewal run at most this often. */
const PURGE_INTERVAL_MS = 3_600_000;

/**
 * Runs the schedulers every minute, and the retention purges every hour, until the returned stop
 * function is called (it waits for a pass in progress).
 */
export function startSchedulers(
  deps: AppDeps,
  log: FastifyBaseLogger,
  intervalMs = SCHEDULER_INTERVAL_MS,
): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let lastPurge = 0;
  const tick = () => {
    running = runSchedulers(deps)
      .then(async (result) => {
        if (result.expired || result.reminded || result.campaignsClosed || result.eventsPurged)
          log.info(result, 'schedulers ran');
        if (Date.now() - lastPurge < PURGE_INTERVAL_MS) return;
        lastPurge = Date.now();
        const purged = await purgeExpired(deps);
        if (Object.values(purged).some((n) => n > 0)) log.info(purged, 'retention purge ran');
        const renewal = await renewArchiveTimestamps(deps);
        if (renewal.renewed > 0)
          log.info({ renewed: renewal.renewed }, 'archive timestamps renewed');
        for (const f of renewal.failed)
          log.warn(f, 'archive timestamp renewal failed; tried again in an hour');
      })
      .catch((err) => log.error({ err }, 'scheduler pass failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, 1000);
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
}
