import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.ts';
import { migrate } from './db/create-db.ts';
import { openDatabase, startServer } from './server.ts';
import { createApiKey, createOrganization, listApiKeys, parseScopes, revokeApiKey } from './modules/orgs/orgs.service.ts';

const USAGE = `Usage: signet <command> [options]

  serve                                   run the API (migrates first)
  migrate                                 apply database migrations
  org create --name NAME --admin-email EMAIL [--json]
  key create --org ORG_ID --scopes a,b|all [--name NAME] [--json]
  key list --org ORG_ID [--json]
  key revoke KEY_ID

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
    return command ? 0 : 1;
  }
  const config = loadConfig();
  if (command === 'serve') {
    await startServer(config);
    return -1; // keep running
  }
  const database = openDatabase(config);
  const out = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : `${text}\n`);
  try {
    await migrate(database.db);
    if (command === 'migrate') {
      out({ migrated: true }, 'Database is up to date.');
    } else if (command === 'org' && sub === 'create') {
      const name = need(values.name, '--name');
      const adminEmail = need(values['admin-email'], '--admin-email');
      if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail)) throw new UsageError('--admin-email must be an email address');
      const org = await createOrganization(database.db, { name, adminEmail });
      out(org, `Created organization ${org.name} (${org.id})`);
    } else if (command === 'key' && sub === 'create') {
      const created = await createApiKey(database.db, {
        orgId: need(values.org, '--org'),
        scopes: parseScopes(need(values.scopes, '--scopes')),
        name: values.name,
      });
      out(created, `Created key ${created.id} for ${created.orgId} with scopes ${created.scopes.join(', ')}.\nShown once:\n\n    ${created.key}\n`);
    } else if (command === 'key' && sub === 'list') {
      const keys = await listApiKeys(database.db, need(values.org, '--org'));
      out(
        { data: keys },
        keys.map((k) => `${k.id}  ${k.prefix}…  ${k.name}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}  ${k.scopes.join(',')}`).join('\n') ||
          'No keys.',
      );
    } else if (command === 'key' && sub === 'revoke') {
      const keyId = need(arg, 'KEY_ID');
      if (!(await revokeApiKey(database.db, keyId))) throw new UsageError(`No active key ${keyId}`);
      out({ id: keyId, revoked: true }, `Revoked ${keyId}`);
    } else {
      throw new UsageError(`Unknown command: ${positionals.join(' ')}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError || (err instanceof Error && /scope|organization/i.test(err.message))) {
      process.stderr.write(`signet: ${err.message}\n${err instanceof UsageError ? `\n${USAGE}\n` : ''}`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`signet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
