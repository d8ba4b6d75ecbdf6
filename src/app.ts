import type { TSchema } from 'typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Config } from './config.ts';
import { systemClock, type Clock } from './clock.ts';
import type { DbHandle } from './db/create-db.ts';
import { newId } from './ids.ts';
import { registerAuth, SCOPES } from './http/auth.ts';
import { frameworkErrors, registerErrorHandler } from './http/error-handler.ts';
import { registerGeo } from './http/geo.ts';
import { trustedPeers } from './http/proxy.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { connectRedis, registerRateLimit } from './http/rate-limit.ts';
import { Counters } from './http/counters.ts';
import { credentialFailures } from './http/credential-error.ts';
import { registerValidation } from './http/validation.ts';
import { schemaController } from './http/schema-compilers.ts';
import { registerEmptyBody } from './http/empty-body.ts';
import { registerLingeringClose } from './http/lingering-close.ts';
import { registerDocs } from './http/docs.ts';
import { registerOperationDocs } from './http/operation-docs.ts';
import { webhooksDocument } from './modules/events/webhooks-doc.ts';
import { CORE_EVENT_DATA } from './modules/events/event-payloads.ts';
import type { EventType } from './modules/events/event-types.ts';
import { CAMPAIGN_EVENT_DATA } from './modules/campaigns/campaign-events.ts';
import { BULK_SEND_EVENT_DATA } from './modules/bulk-sends/bulk-send-events.ts';
import { EXPORT_EVENT_DATA } from './modules/exports/export-events.ts';
import { Metrics, registerMetrics } from './http/metrics.ts';
import { batchStats } from './db/pg-insert-batch.ts';
import { ErrorBody } from './http/schemas.ts';
import { VERSION } from './version.ts';
import { createMailer, type Mailer } from './mail/mailer.ts';
import { createSmsSender } from './sms/sms-sender.ts';
import { JobRunner } from './jobs/job-runner.ts';
import { registerJobHandlers } from './jobs/handlers.ts';
import { Pacer } from './jobs/pacer.ts';
import { DeliveryWorker } from './jobs/webhook-delivery.ts';
import { createStorage } from './storage/create-storage.ts';
import type { Storage } from './storage/storage.ts';
import type { AppDeps } from './deps.ts';
import { CertificateCheck } from './pdf/certificate-check.ts';
import { PdfWorkers } from './pdf/pdf-workers.ts';
import { serializeRequest } from './http/log-redaction.ts';
import { deriveKey, loadSecretKey } from './secret-key.ts';
import { signingCertConfig } from './pdf/certificate.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { documentsRoutes } from './modules/documents/documents.routes.ts';
import { filesRoutes } from './modules/documents/files.routes.ts';
import { signersRoutes } from './modules/signers/signers.routes.ts';
import { fieldsRoutes } from './modules/fields/fields.routes.ts';
import { foldersRoutes } from './modules/folders/folders.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { webRoutes } from './web/web.routes.ts';
import { fieldTypesForClient } from './modules/documents-core/field-types.ts';
import { pageOfLink } from './modules/signing/signing-links.ts';
import { templatesRoutes } from './modules/templates/templates.routes.ts';
import { templatePartsRoutes } from './modules/templates/template-parts.routes.ts';
import { campaignsRoutes } from './modules/campaigns/campaigns.routes.ts';
import { publicCampaignRoutes } from './modules/campaigns/public.routes.ts';
import { campaignUploadRoutes } from './modules/campaigns/campaign-upload.routes.ts';
import { campaignPageRoutes } from './modules/campaigns/campaign-page.routes.ts';
import { signingRoutes } from './modules/signing/signing.routes.ts';
import { signerAccessRoutes } from './modules/signing/signer-access.routes.ts';
import { reassignRoutes } from './modules/signing/reassign.routes.ts';
import { bulkSendsRoutes } from './modules/bulk-sends/bulk-sends.routes.ts';
import { signerUploadRoutes } from './modules/signing/signer-uploads.routes.ts';
import { attachmentsRoutes } from './modules/documents/attachments.routes.ts';
import { organizationRoutes } from './modules/orgs/organization.routes.ts';
import { exportsRoutes } from './modules/exports/exports.routes.ts';
import { eventsRoutes } from './modules/events/events.routes.ts';
import { verifyRoutes } from './modules/verify/verify.routes.ts';
import { verifyPageRoutes } from './web/verify-page.ts';
import { localesRoutes } from './modules/locales/locales.routes.ts';
import { builderRoutes } from './modules/builder/builder.routes.ts';
import { builderPageRoutes } from './modules/builder/builder-page.routes.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The job runner: server.ts starts it, tests may `drain()` it. Not in AppDeps: use cases enqueue through src/queue/. */
    jobs: JobRunner;
    /** The webhook delivery worker; server.ts starts it, tests may `drain()` it. */
    deliveries: DeliveryWorker;
  }
}

/** Every event type's `data` schema, as the API reference's `webhooks` section publishes it. */
const EVENT_DATA = {
  ...CORE_EVENT_DATA,
  ...CAMPAIGN_EVENT_DATA,
  ...BULK_SEND_EVENT_DATA,
  ...EXPORT_EVENT_DATA,
} satisfies Record<EventType, TSchema>;

interface BuildOptions {
  config: Config;
  database: DbHandle;
  storage?: Storage;
  mailer?: Mailer;
  clock?: Clock;
  /** SECRET_KEY's bytes, when the caller already loaded them (server.ts); otherwise loaded here. */
  secretKey?: Buffer;
  /** Poll interval of the job runner (tests use a short one). */
  jobPollMs?: number;
  /** How long a claimed job is held before another runner may take it (renewed while it runs). */
  jobLeaseMs?: number;
}

/**
 * Builds the application: wiring only. It never listens, never starts workers and writes nothing
 * to the database (start-up writes are server.ts's, after migrating).
 */
export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options;
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
      // Request URLs are logged with their tokens replaced (http/log-redaction.ts).
      serializers: { req: serializeRequest },
    },
    bodyLimit: 1024 * 1024,
    // Slow senders cannot hold sockets: headers within headersMs, the whole request within
    // requestMs, no traffic at all for idleMs, idle keep-alive connections closed after keepAliveMs.
    connectionTimeout: config.timeouts.idleMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    requestTimeout: config.timeouts.requestMs,
    http: {
      headersTimeout: config.timeouts.headersMs,
      // Node checks those two timeouts on this interval (30 s by default): a tenth of the shorter.
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(config.timeouts.headersMs, config.timeouts.requestMs || Infinity) / 10,
      ),
    },
    genReqId: () => newId('req'),
    requestIdHeader: false,
    // Only the named proxies: X-Forwarded-For from anyone else is ignored (http/proxy.ts).
    trustProxy: config.trustProxy.length > 0 ? trustedPeers(config.trustProxy) : false,
    frameworkErrors,
    ajv: undefined,
    schemaController: schemaController(!config.perfOff.has('lazy-schemas')),
  });

  const clock = options.clock ?? systemClock;
  const metrics = new Metrics(
    options.database.db,
    options.database.dialect === 'postgres' ? () => batchStats(options.database.db) : undefined,
  );
  const redis = await connectRedis(app, config);
  const counters = new Counters(redis);
  const secretKey = options.secretKey ?? (await loadSecretKey(config));
  const webhookKey = deriveKey(secretKey, 'webhook-secrets');
  const jobs = new JobRunner(
    options.database.db,
    options.database.dialect,
    clock,
    app.log,
    options.jobPollMs,
    options.jobLeaseMs,
    { kind: 'mail', pacer: new Pacer(config.mailRatePerSecond) },
    { paced: config.mailConnections, other: 10 },
  );
  const deliveries = new DeliveryWorker(
    {
      db: options.database.db,
      dialect: options.database.dialect,
      clock,
      config,
      log: app.log,
      metrics,
      webhookKey,
    },
    { pollMs: options.jobPollMs },
  );
  const deps: AppDeps = {
    counters,
    config,
    db: options.database.db,
    dialect: options.database.dialect,
    storage: options.storage ?? createStorage(config),
    mailer:
      options.mailer ??
      createMailer({
        smtpUrl: config.smtpUrl,
        from: config.mailFrom,
        spoolDir: config.mailSpoolDir,
        log: app.log,
        connections: config.mailConnections,
      }),
    sms: createSmsSender(config.sms, app.log),
    clock,
    secret: deriveKey(secretKey, 'server-tokens'),
    webhookKey,
    databaseWritable: options.database.writable ?? (() => true),
    certificate: new CertificateCheck(await signingCertConfig(config, secretKey)),
    metrics,
    pdf: new PdfWorkers(),
  };
  app.decorate('deps', deps);
  // The app's worker threads end with it, once the jobs in hand (sealing) have finished.
  app.addHook('onClose', async () => {
    await jobs.stop();
    await deps.pdf.close();
  });
  app.decorate('jobs', jobs);
  app.decorate('deliveries', deliveries);
  await registerGeo(app, config);
  registerJobHandlers(jobs, deps);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  registerLingeringClose(app, config.exposure.lingerMs);
  registerValidation(app, !config.perfOff.has('lazy-schemas'));
  registerEmptyBody(app);
  registerMetrics(app, deps.metrics, config.exposure.metricsToken);
  registerErrorHandler(app, {
    credentialRefused: credentialFailures(counters, config.limits.authFailuresPerMinute),
  });
  registerAuth(
    app,
    deps.db,
    config.perfOff.has('key-cache') ? undefined : options.database.keysMark,
  );
  registerIdempotency(app, deps.db, clock, deriveKey(secretKey, 'idempotency-replays'));
  await registerRateLimit(app, config, redis, counters);
  app.addSchema(ErrorBody);
  registerOperationDocs(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Signet API',
        version: VERSION,
        description:
          'Self-hostable e-signature API. Every `/api/v1` endpoint takes `Authorization: Bearer <API key>` and answers errors as `{"error": {"code", "message", "details"}}`.',
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: `API key (sk_…). Scopes: ${SCOPES.join(', ')}`,
          },
        },
      },
      security: [{ bearerAuth: [] }],
      webhooks: webhooksDocument(EVENT_DATA),
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  await registerDocs(app, config.publicUrl);
  // Public and not rate limited: serialized once (the document does not change while running).
  let openapi: string | undefined;
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    openapi ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(openapi);
  });

  await app.register(healthRoutes);
  await app.register(documentsRoutes);
  await app.register(filesRoutes);
  await app.register(signersRoutes);
  await app.register(fieldsRoutes);
  await app.register(foldersRoutes);
  await app.register(webhooksRoutes);
  await app.register(templatesRoutes);
  await app.register(templatePartsRoutes);
  await app.register(campaignsRoutes);
  await app.register(publicCampaignRoutes);
  await app.register(campaignPageRoutes);
  await app.register(builderRoutes);
  await app.register(builderPageRoutes);
  await app.register(webRoutes, {
    pageOfLink: (token) => pageOfLink(deps.db, token),
    fieldTypes: JSON.stringify(fieldTypesForClient()),
  });
  await app.register(signingRoutes);
  await app.register(signerAccessRoutes);
  await app.register(reassignRoutes);
  await app.register(bulkSendsRoutes);
  await app.register(signerUploadRoutes);
  await app.register(campaignUploadRoutes);
  await app.register(attachmentsRoutes);
  await app.register(organizationRoutes);
  await app.register(localesRoutes);
  await app.register(exportsRoutes);
  await app.register(eventsRoutes);
  await app.register(verifyRoutes);
  await app.register(verifyPageRoutes);

  return app;
}
