/**
 * The floor: a bare node:https server with no framework that does the least an
 * admission webhook must do — read the body, parse it, answer "allowed" with
 * the uid copied — so framework figures can be read as a ratio to it.
 *
 *   node bench/admission/floor-server.ts <cert> <key>   (prints "listening <port>")
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) throw new Error('usage: floor-server.ts <cert> <key>');

const server = https.createServer({ cert: readFileSync(certFile), key: readFileSync(keyFile), minVersion: 'TLSv1.2' }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string } };
    const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } });
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
