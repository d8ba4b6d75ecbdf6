import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * The most of a refused request's unread body that is read and thrown away: past it (declared
 * or counted) the connection is closed at once. Above the largest body any route takes (50 MB
 * uploads), so a client that overran a limit by a little still reads its answer.
 */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;

/** Connections discarding a body at once, per instance; past it a refused one is closed at once. */
const LINGER_MAX_CONNECTIONS = 32;

/*
 * An answer given before the whole request body arrived (413 on `Content-Length`, a refused
 * upload URL, a busy queue) must reach the client as the answer. Closing the connection at once
 * does not do that: the server's kernel, closing a socket with unread bytes, sends a reset, and a
 * client still sending (Node's http client, `fetch`; one behind a proxy or a real network most of
 * all) sees ECONNRESET or EPIPE instead of the response. So, as nginx's lingering close does, the
 * rest of the body is read and discarded, and the connection stays usable once it has all
 * arrived; bounded in time (LINGER_TIMEOUT_MS) and size (LINGER_MAX_BYTES), past which the
 * connection is closed, so a slow or endless sender cannot hold the socket. Node's own
 * keep-alive handling does the reading; this hook only keeps the connection from being closed
 * early and holds it to those bounds.
 *
 * Not after a 429: a client over its rate limit is sending faster than it may, and reading each
 * of its bodies to the end would turn the cheapest refusal into the dearest (a flood of 50 MB
 * bodies read and thrown away cost the event loop more than the work it was refused). And at
 * most LINGER_MAX_CONNECTIONS at once, so the reading itself stays bounded.
 */
export function registerLingeringClose(app: FastifyInstance, lingerMs: number): void {
  let lingering = 0;
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    // `inject` requests have no socket to keep open.
    if (!raw.complete && !raw.destroyed && raw.socket instanceof Socket) {
      const worth = reply.statusCode !== 429 && lingering < LINGER_MAX_CONNECTIONS;
      if (worth && linger(raw, lingerMs, () => lingering--)) {
        lingering++;
        reply.removeHeader('connection');
      } else reply.header('connection', 'close');
    }
    done(null, payload);
  });
}

/** Discards the rest of `raw` within the bounds (`ended` once it stops); false when not worth it. */
function linger(raw: IncomingMessage, lingerMs: number, ended: () => void): boolean {
  const socket = raw.socket;
  const declared = Number(raw.headers['content-length']);
  if (Number.isFinite(declared) && declared - socket.bytesRead > LINGER_MAX_BYTES) return false;
  let discarded = 0;
  const close = () => socket.destroy();
  const timer = setTimeout(close, lingerMs);
  timer.unref();
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_MAX_BYTES) close();
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearTimeout(timer);
    raw.off('data', onData);
    ended();
  };
  raw.on('data', onData);
  raw.once('end', stop);
  raw.once('close', stop);
  // A handler that stopped reading left the stream paused: let the rest flow past.
  raw.resume();
  return true;
}
