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
  /** Stops answering (connections refused), keeping the objects: an S3 endpoint that went down. */
  stop(): Promise<void>;
  /** Answers again on the same port with the same objects. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A real S3-protocol server (s3rver, in-process) on loopback with one empty bucket, its objects in a temporary directory. */
export async function startS3Server(bucket = 'signet'): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'signet-s3-'));
  const run = async (port: number) => {
    const server = new S3rver({
      port,
      address: '127.0.0.1',
      silent: true,
      directory: dir,
      configureBuckets: [{ name: bucket, configs: [] }],
    });
    const info = (await server.run()) as unknown as { port: number };
    return { server, port: info.port };
  };
  let running: S3rver | null;
  const first = await run(0);
  running = first.server;
  const stop = async () => {
    const server = running;
    running = null;
    await server?.close();
  };
  return {
    endpoint: `http://127.0.0.1:${first.port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    stop,
    restart: async () => {
      if (!running) running = (await run(first.port)).server;
    },
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
