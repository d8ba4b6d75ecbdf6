import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, type Config } from './config.ts';
import { CertificateCheck } from './pdf/certificate-check.ts';
import { signingCertConfig } from './pdf/certificate.ts';
import { deriveKey, loadSecretKey } from './secret-key.ts';
import { webhookSecretsProblem } from './modules/webhooks/webhook-secrets.ts';
import { migrate } from './db/create-db.ts';
import { openDatabase } from './db/open-database.ts';
import { bootstrapDefaultOrg } from './modules/orgs/orgs.service.ts';
import { startSchedulers } from './jobs/schedulers.ts';
import { warmMailLayout } from './mail/layout.ts';
import { closeFinalizeWorker, warmFinalizeWorker } from './pdf/finalize-worker.ts';
import { closeVerifyWorker } from './pdf/verify-worker.ts';
import { closeIntakeWorker, warmIntakeWorker } from './pdf/page-count.ts';
import { closeRenewWorker } from './pdf/renew-worker.ts';
import { closeTextSearchWorker } from './pdf/text-search.ts';
import { closeTagWorker } from './pdf/tag-strip.ts';

/** loadConfig → createDb → migrate → buildApp → listen; start workers; close gracefully on SIGTERM/SIGINT. */
export async function startServer(config: Config): Promise<FastifyInstance> {
  // In production SECRET_KEY must be set: refuse to start without it, before touching anything.
  const secretKey = await loadSecretKey(config);
  // Refuse to start rather than accept signatures that can never be sealed.
  const certConfig = await signingCertConfig(config, secretKey);
  const certProblem = await new CertificateCheck(certConfig).problem();
  if (certProblem !== null) {
    const hint = config.signingCertP12
      ? 'Check SIGNING_CERT_P12 and SIGNING_CERT_PASSWORD (unset both to use a generated self-signed certificate).'
      : 'The generated certificate is encrypted with a password derived from SECRET_KEY.';
    throw new ConfigError(`the signing certificate cannot be used: ${certProblem} ${hint}`);
  }
  const database = openDatabase(config, { server: true });
  await migrate(database.db);
  const secretsProblem = await webhookSecretsProblem(
    database.db,
    deriveKey(secretKey, 'webhook-secrets'),
  );
  if (secretsProblem !== null) {
    await database.close();
    throw new ConfigError(secretsProblem);
  }
  const app = await buildApp({ config, database, secretKey });

  if (!config.production) {
    const created = await bootstrapDefaultOrg(database.db);
    if (created) {
      // Printed once, to the terminal only (not the structured log).
      process.stdout.write(
        `\nCreated organization "Default" (${created.orgId}) and an API key with every scope.\n` +
          `It is shown only this once; store it now:\n\n    ${created.key}\n\n`,
      );
    }
  }

  // MJML loads before the server listens, not once it answers: loading it holds the event loop
  // (a quarter of the start's CPU), and requests right after /healthz would wait for it.
  let stopSchedulers = async () => {};
  if (config.workers) {
    await warmMailLayout();
    app.jobs.start();
    app.deliveries.start();
    stopSchedulers = startSchedulers(app.deps, app.log);
  }
  await app.listen({ port: config.port, host: config.host });
  // One line for a person at the terminal, whatever the log level (the log has the addresses too).
  process.stdout.write(
    `Signet is running at ${config.publicUrl} (API reference: ${config.publicUrl}/docs)\n`,
  );
  // The PDF threads load their code (and the sealing one its certificate) now, not during the first upload or sealing.
  void warmIntakeWorker();
  if (config.workers)
    void warmFinalizeWorker(certConfig, config.finalizeTimeoutMs).catch((err) =>
      app.log.warn({ err }, 'sealing thread warm-up failed'),
    );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: draining requests and jobs');
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    // close() ends the keep-alive connections idle at that moment; one whose request is still in
    // flight (a slow upload) goes idle later and would hold the process open until the client
    // hangs up or the keep-alive timeout passes, so idle connections are closed as they appear.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      // Stop taking new work everywhere at once: no new connections, no new jobs or webhook
      // attempts claimed (other instances take them), while requests in flight and the jobs and
      // attempts in hand finish and are recorded, which releases their leases.
      await Promise.all([app.close(), app.jobs.stop(), app.deliveries.stop(), stopSchedulers()]);
      clearInterval(sweep);
      await Promise.all([
        closeFinalizeWorker(),
        closeIntakeWorker(),
        closeVerifyWorker(),
        closeRenewWorker(),
        closeTextSearchWorker(),
        closeTagWorker(),
      ]);
      app.deps.mailer.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  return app;
}
