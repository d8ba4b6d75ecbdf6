import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) that records every request and answers with
 * `respond` (default 200 `{}`): the far side of the SMS drivers in tests.
 */
export class HttpPeer {
  readonly requests: PeerRequest[] = [];
  respond: (req: PeerRequest) => { status: number; body?: unknown } = () => ({ status: 200 });
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<HttpPeer> {
    let peer: HttpPeer | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const recorded = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        };
        peer!.requests.push(recorded);
        const answer = peer!.respond(recorded);
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body ?? {}));
      });
    });
    peer = new HttpPeer(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return peer;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
