import { parseArgs } from 'node:util';
import { ConfigError } from './config-values.ts';

const USAGE = `Usage: signet <command> [options]

  serve                                   run the API (migrates first)
  migrate                                 apply database migrations
  org create --name NAME --admin-email EMAIL [--json]
  org list [--json]
  org update [--org ORG_ID] [--name NAME] [--admin-email EMAIL] [--brand-color '#RRGGBB'|none]
             [--logo FILE.png|FILE.jpg|none] [--reply-to EMAIL|none] [--json]
  key create [--org ORG_ID] --scopes a,b|all [--name NAME] [--json]
  key create [--org ORG_ID] --replace KEY_ID|NAME [--scopes a,b|all] [--json]
                                          issue a key in place of a lost one and revoke it
                                          (e.g. --replace bootstrap: the key printed on first start)
  key list [--org ORG_ID] [--json]
  key revoke KEY_ID
  documents lost-text [--org ORG_ID] [--json]
                                          completed documents whose sealed file drew "?" in
                                          place of text (sealed before every script was drawn):
                                          what was lost and whom to tell
  backup --to DIR|s3://BUCKET/PREFIX [--json]
                                          a consistent copy of the database and files, taken
                                          while the server runs (SECRET_KEY is not in it)
  backup verify DIR|s3://BUCKET/PREFIX [--json]
                                          check a backup is whole and genuine
  restore --from DIR|s3://BUCKET/PREFIX [--json]
                                          into an empty database and storage (see docs/backup.md)

--org may be left out while there is only one organization.

Configuration comes from the environment (see README).`;

class UsageError extends Error {}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`${flag} is required`);
  return value;
}

const OPTIONS = {
  name: { type: 'string' },
  'admin-email': { type: 'string' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  replace: { type: 'string' },
  'brand-color': { type: 'string' },
  logo: { type: 'string' },
  'reply-to': { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (err) {
    // An unknown flag or a flag without its value is a usage mistake, not a crash.
    throw new UsageError((err as Error).message);
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return values.help ? 0 : 1;
  }
  // Loaded only now, and only what the command needs, so that `signet --help` answers at once and
  // the organization and key commands do not load the whole server.
  const { loadConfig } = await import('./config.ts');
  const config = loadConfig();
  if (command === 'backup' || command === 'restore') {
    const verify = command === 'backup' && sub === 'verify';
    if (command === 'backup' && sub && !verify)
      throw new UsageError(`Unknown command: backup ${sub}`);
    const { runBackupCommand } = await import('./backup/backup-cli.ts');
    return runBackupCommand(config, {
      command: verify ? 'verify' : command,
      location: verify ? arg : command === 'backup' ? values.to : values.from,
      json: values.json,
    });
  }
  if (command === 'serve') {
    const { startServer } = await import('./server.ts');
    await startServer(config);
    return -1; // keep running
  }
  const { openDatabase } = await import('./db/open-database.ts');
  const { migrate } = await import('./db/create-db.ts');
  const orgs = await import('./modules/orgs/orgs.service.ts');
  const { createApiKey, createOrganization, listApiKeys, listOrganizations } = orgs;
  const { parseScopes, replaceApiKey, resolveOrgId, revokeApiKey } = orgs;
  const { orgUpdateFromFlags } = await import('./modules/orgs/org-cli.ts');
  const { toOrganization, updateOrganizationRow } = await import(
    './modules/orgs/organization.service.ts'
  );
  const database = openDatabase(config);
  const out = (json: unknown, text: string) =>
    process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  try {
    await migrate(database.db);
    if (command === 'migrate') {
      out({ migrated: true }, 'Database is up to date.');
    } else if (command === 'org' && sub === 'create') {
      const name = need(values.name, '--name');
      const adminEmail = need(values['admin-email'], '--admin-email');
      if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail))
        throw new UsageError('--admin-email must be an email address');
      const org = await createOrganization(database.db, { name, adminEmail });
      out(org, `Created organization ${org.name} (${org.id})`);
    } else if (command === 'org' && sub === 'list') {
      const orgs = await listOrganizations(database.db);
      out(
        { data: orgs },
        orgs.map((o) => `${o.id}  ${o.name}  ${o.adminEmail}`).join('\n') || 'No organizations.',
      );
    } else if (command === 'org' && sub === 'update') {
      const orgId = await resolveOrgId(database.db, values.org);
      const row = await orgUpdateFromFlags(values)
        .then((changes) => updateOrganizationRow(database.db, orgId, changes, new Date()))
        .catch((err: Error) => {
          throw new UsageError(err.message); // a bad flag, an unreadable or oversized logo file
        });
      const org = toOrganization(config.publicUrl, row);
      out(org, `Updated organization ${org.name} (${org.id})`);
    } else if (command === 'key' && sub === 'create') {
      const orgId = await resolveOrgId(database.db, values.org);
      const created = values.replace
        ? await replaceApiKey(database.db, {
            orgId,
            replace: values.replace,
            scopes: values.scopes === undefined ? undefined : parseScopes(values.scopes),
          })
        : {
            ...(await createApiKey(database.db, {
              orgId,
              scopes: parseScopes(need(values.scopes, '--scopes')),
              name: values.name,
            })),
            revoked: [] as string[],
          };
      const revoked = created.revoked.length ? `Revoked ${created.revoked.join(', ')}.\n` : '';
      out(
        created,
        `${revoked}Created key ${created.id} for ${created.orgId} with scopes ${created.scopes.join(', ')}.\nShown once:\n\n    ${created.key}\n`,
      );
    } else if (command === 'key' && sub === 'list') {
      const keys = await listApiKeys(database.db, await resolveOrgId(database.db, values.org));
      out(
        { data: keys },
        keys
          .map(
            (k) =>
              `${k.id}  ${k.prefix}…  ${k.name}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  ${k.scopes.join(',')}`,
          )
          .join('\n') || 'No keys.',
      );
    } else if (command === 'key' && sub === 'revoke') {
      const keyId = need(arg, 'KEY_ID');
      if (!(await revokeApiKey(database.db, keyId))) throw new UsageError(`No active key ${keyId}`);
      out({ id: keyId, revoked: true }, `Revoked ${keyId}`);
    } else if (command === 'documents' && sub === 'lost-text') {
      const { documentsWithLostText } = await import('./modules/documents/lost-text.ts');
      const { createStorage } = await import('./storage/create-storage.ts');
      const storage = createStorage(config);
      const found = [];
      try {
        for await (const doc of documentsWithLostText(
          { db: database.db, storage },
          {
            orgId: values.org,
            onUnreadable: (id, err) => process.stderr.write(`signet: ${id}: ${err.message}\n`),
          },
        )) {
          found.push(doc);
          // Listed as found: an operator sees progress on a large database.
          if (!values.json) process.stdout.write(`${describeLostText(doc)}\n`);
        }
      } finally {
        storage.destroy?.();
      }
      if (values.json) out({ data: found }, '');
      else if (!found.length) out({}, 'No sealed document lost text.');
    } else {
      throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

function describeLostText(doc: {
  documentId: string;
  name: string;
  lost: Array<{ where: string; value: string; drawn: string }>;
  people: Array<{ name: string; email: string }>;
}): string {
  const lines = doc.lost.map((l) => `  ${l.where}: "${l.value}" was drawn as "${l.drawn}"`);
  const people = doc.people.map((p) => `${p.name} <${p.email}>`).join(', ');
  return `${doc.documentId}  ${doc.name}\n${lines.join('\n')}\n  tell: ${people}`;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      (err instanceof Error && /scope|organization/i.test(err.message))
    ) {
      process.stderr.write(
        `signet: ${err.message}\n${err instanceof UsageError ? `\n${USAGE}\n` : ''}`,
      );
      process.exitCode = 2;
    } else {
      process.stderr.write(
        `signet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    }
  },
);
