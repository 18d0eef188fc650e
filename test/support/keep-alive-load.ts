/**
 * A bounded admission load over a pool of keep-alive HTTPS connections, the
 * way the API server calls a webhook Service: requests reuse pooled
 * connections; once the pod has left the Service's endpoints, a request that
 * would need a new connection goes to another pod (here: is not sent).
 */
import https from 'node:https';

export interface LoadOptions {
  port: number;
  ca: string;
  path: string;
  body: unknown;
  /** Connections in the pool, and requests in flight at once. */
  sockets: number;
  /** Budget: at most this many requests, and nothing sent after this many milliseconds. */
  maxRequests: number;
  maxMs: number;
}

export interface LoadReply {
  /** Order in which the request was sent. */
  sent: number;
  status: number;
  allowed: boolean | undefined;
  connectionClose: boolean;
}

export interface LoadResult {
  sent: number;
  replies: LoadReply[];
  /** Requests that got no HTTP response: error codes (ECONNRESET …). */
  transportErrors: string[];
  /** Workers that stopped because their connection was gone after the endpoint was removed. */
  rerouted: number;
  /** Workers that stopped on the request or time budget. */
  outOfBudget: number;
  /** `sent` of the first request sent after the first `Connection: close` reply arrived. */
  drainSeenAt: number | undefined;
}

export class KeepAliveLoad {
  private readonly agent: https.Agent;
  private readonly payload: string;
  private sent = 0;
  private endpointRemoved = false;
  private readonly result: LoadResult = { sent: 0, replies: [], transportErrors: [], rerouted: 0, outOfBudget: 0, drainSeenAt: undefined };

  constructor(private readonly options: LoadOptions) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: options.sockets, maxFreeSockets: options.sockets });
    this.payload = JSON.stringify(options.body);
  }

  get replies(): readonly LoadReply[] {
    return this.result.replies;
  }

  /** From now on, requests go out only on pooled connections. */
  removeEndpoint(): void {
    this.endpointRemoved = true;
  }

  async run(): Promise<LoadResult> {
    const deadline = Date.now() + this.options.maxMs;
    await Promise.all(Array.from({ length: this.options.sockets }, () => this.worker(deadline)));
    this.agent.destroy();
    return { ...this.result, sent: this.sent };
  }

  private async worker(deadline: number): Promise<void> {
    for (;;) {
      if (this.sent >= this.options.maxRequests || Date.now() > deadline) {
        this.result.outOfBudget++;
        return;
      }
      if (this.endpointRemoved && this.pooledConnections() === 0) {
        this.result.rerouted++;
        return;
      }
      const sent = this.sent++;
      try {
        const reply = await this.send(sent);
        if (reply.connectionClose && this.result.drainSeenAt === undefined) this.result.drainSeenAt = this.sent;
        this.result.replies.push(reply);
      } catch (error) {
        this.result.transportErrors.push((error as NodeJS.ErrnoException).code ?? (error as Error).message);
      }
    }
  }

  private pooledConnections(): number {
    return Object.values(this.agent.freeSockets).reduce((sum, sockets) => sum + (sockets?.length ?? 0), 0);
  }

  private send(sent: number): Promise<LoadReply> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: this.options.port,
          path: this.options.path,
          method: 'POST',
          ca: this.options.ca,
          servername: 'localhost',
          agent: this.agent,
          headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(this.payload)) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response?: { allowed?: boolean } };
            resolve({ sent, status: res.statusCode ?? 0, allowed: body.response?.allowed, connectionClose: res.headers.connection === 'close' });
          });
        },
      );
      req.on('error', reject);
      req.end(this.payload);
    });
  }
}
