/**
 * What the floor and the hand-written server share: a bare node:https server
 * that reads each body, parses it as an AdmissionReview and sends back the
 * response `answer` gives, with no framework.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';

export interface BareReview {
  apiVersion: string;
  request: { uid: string };
}

/** Serves on a free loopback port, prints "listening <port>", and closes on SIGTERM. */
export function serveBare(usage: string, answer: (urlPath: string | undefined, review: BareReview) => unknown): void {
  const [certFile, keyFile] = process.argv.slice(2);
  if (!certFile || !keyFile) throw new Error(`usage: ${usage} <cert> <key>`);
  const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2' }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BareReview;
      const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: answer(req.url, review) });
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
