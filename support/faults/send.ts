/** Sends fault cases to a webhook server over HTTPS keep-alive, a few at a time, and keeps every answer. */
import https from 'node:https';
import type { FaultCase } from './corpus.ts';

export interface Answer {
  status: number;
  text: string;
  /** Set when the exchange failed below HTTP (reset, timeout …). */
  transportError?: string;
}

/** What is sent: a fault case of the corpus, or one of another path's own. */
export type Sendable = Omit<FaultCase, 'path' | 'uid'> & { path: string; uid?: string };

export interface Target {
  port: number;
  host?: string;
  ca?: string | Buffer;
}

/** Sends every case, `concurrency` at a time; each exchange is bounded by `timeoutMs`. */
export async function sendAll(target: Target, cases: readonly Sendable[], concurrency = 8, timeoutMs = 30_000): Promise<Answer[]> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency, ca: target.ca, rejectUnauthorized: target.ca !== undefined });
  const answers: Answer[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      answers[i] = await send(agent, target, cases[i]!, timeoutMs);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return answers;
}

function send(agent: https.Agent, target: Target, fault: Sendable, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const req = https.request(
      {
        host: target.host ?? '127.0.0.1',
        servername: 'localhost',
        port: target.port,
        path: fault.path,
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: { ...fault.headers, 'Content-Length': String(fault.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (error) => resolve({ status: 0, text: '', transportError: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => resolve({ status: 0, text: '', transportError: error.message }));
    req.end(fault.body);
  });
}
