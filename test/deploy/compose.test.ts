import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/*
 * compose.yaml is safe by default. Docker does not run here, so the file itself is read and
 * checked: Signet reaches MinIO as an application user limited to its bucket (created by an init
 * service; MinIO's root credentials go nowhere else), the proxy it ships is the one whose
 * X-Forwarded-For the instances believe (TRUST_PROXY) and the only service with public ports,
 * and PUBLIC_URL has no http default (the example is https).
 */

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
interface Service {
  environment?: Record<string, string>;
  ports?: string[];
  entrypoint?: string;
  volumes?: string[];
  depends_on?: Record<string, unknown>;
  networks?: Record<string, { ipv4_address?: string }> | string[];
}
const compose = parse(read('compose.yaml'), { merge: true }) as {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
};
const services = compose.services;
const instances = Object.entries(services).filter(([name]) => /^signet-\d+$/.test(name));
const env = (name: string): Record<string, string> => services[name].environment ?? {};

describe('compose.yaml', () => {
  it('runs three instances, each with the same settings', () => {
    expect(instances.map(([name]) => name)).toEqual(['signet-1', 'signet-2', 'signet-3']);
    for (const [name] of instances) expect(env(name).NODE_ENV, name).toBe('production');
  });

  it("gives Signet an application user of MinIO, not MinIO's root credentials", () => {
    for (const [name] of instances) {
      const e = env(name);
      expect(e.S3_ACCESS_KEY_ID, name).toMatch(/\$\{MINIO_APP_USER:\?/);
      expect(e.S3_SECRET_ACCESS_KEY, name).toMatch(/\$\{MINIO_APP_PASSWORD:\?/);
      expect(JSON.stringify(e), name).not.toContain('MINIO_ROOT');
    }
    // Root credentials only where MinIO itself and its one-shot setup need them.
    const withRoot = Object.entries(services)
      .filter(([, s]) => JSON.stringify(s.environment ?? {}).includes('MINIO_ROOT'))
      .map(([name]) => name);
    expect(withRoot.sort()).toEqual(['minio', 'minio-setup']);
  });

  it('creates that user in an init service, with a policy limited to the bucket', () => {
    const setup = services['minio-setup'];
    const script = String(setup.entrypoint);
    expect(script).toMatch(
      /mc admin policy create local signet-app \/etc\/signet\/minio-policy\.json/,
    );
    expect(script).toMatch(
      /mc admin user add local \$\$\{MINIO_APP_USER\} \$\$\{MINIO_APP_PASSWORD\}/,
    );
    expect(script).toMatch(/mc admin policy attach local signet-app --user \$\$\{MINIO_APP_USER\}/);
    expect(setup.volumes).toContain(
      './deploy/minio-signet-policy.json:/etc/signet/minio-policy.json:ro',
    );
    for (const [name] of instances)
      expect(services[name].depends_on?.['minio-setup'], name).toEqual({
        condition: 'service_completed_successfully',
      });
    const policy = JSON.parse(read('deploy/minio-signet-policy.json')) as {
      Statement: { Effect: string; Action: string[]; Resource: string[] }[];
    };
    const resources = policy.Statement.flatMap((s) => s.Resource);
    expect(new Set(resources)).toEqual(new Set(['arn:aws:s3:::signet', 'arn:aws:s3:::signet/*']));
    const actions = policy.Statement.flatMap((s) => s.Action);
    expect(actions.every((a) => a.startsWith('s3:') && !a.includes('*'))).toBe(true);
    expect(actions.some((a) => /Policy|Bucket(Create|Delete)|Admin/.test(a))).toBe(false);
  });

  it('believes X-Forwarded-For only from the proxy it ships, the only service with public ports', () => {
    const proxy = services.proxy;
    const networks = proxy.networks as Record<string, { ipv4_address?: string }>;
    const address = networks.signet.ipv4_address ?? '';
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const subnet = compose.networks.signet.ipam.config[0].subnet;
    expect(address.startsWith(subnet.split('.').slice(0, 3).join('.'))).toBe(true);
    for (const [name] of instances) expect(env(name).TRUST_PROXY, name).toBe(address);
    const published = Object.entries(services)
      .filter(([, s]) => s.ports)
      .map(([name]) => name);
    expect(published).toEqual(['proxy']);
    const caddyfile = read('deploy/Caddyfile');
    expect(caddyfile).toMatch(/reverse_proxy signet-1:3000 signet-2:3000 signet-3:3000/);
    expect(caddyfile).toMatch(/respond \/metrics 404/);
  });

  it('has no http PUBLIC_URL: required, and https in the example', () => {
    for (const [name] of instances) {
      expect(env(name).PUBLIC_URL, name).toMatch(/^\$\{PUBLIC_URL:\?/);
      expect(env(name).PUBLIC_URL, name).not.toContain('http://');
    }
    const example = read('.env.example');
    expect(/^PUBLIC_URL=(.*)$/m.exec(example)?.[1]).toMatch(/^https:\/\//);
    expect(/^S3_PUBLIC_ENDPOINT=(.*)$/m.exec(example)?.[1]).toMatch(/^https:\/\//);
    for (const key of ['MINIO_APP_USER', 'MINIO_APP_PASSWORD', 'SECRET_KEY', 'POSTGRES_PASSWORD'])
      expect(example, key).toMatch(new RegExp(`^${key}=`, 'm'));
  });
});
