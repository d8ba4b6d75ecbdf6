import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  /** Credentials s3rver accepts. */
  accessKeyId: string;
  secretAccessKey: string;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver, in-process) on loopback with one empty bucket, its objects in a temporary directory. */
export async function startS3Server(bucket = 'signet'): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as unknown as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    close: async () => {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
