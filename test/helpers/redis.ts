import net from 'node:net';

/** The Redis the multi-instance tests share (CI starts one on this address). */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** True when something answers on Redis's port (tests of shared counters need a real Redis). */
export async function redisReachable(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
