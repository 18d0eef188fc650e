/**
 * The hand-written server (hand-written-server.ts) after the kind of work any
 * real server's process does besides answering reviews: a plain-HTTP
 * listener answering probes, file and in-memory streams, event emitters and
 * nextTick callbacks. Node's own stream, event and HTTP code is shared by all
 * of it; what it has seen changes how fast it then runs for the webhook port.
 * admission-instructions counts the difference beside the clean reference.
 *
 *   node bench/admission/hand-written-busy-server.ts <cert> <key>   (prints "listening <port>")
 */
import { EventEmitter, once } from 'node:events';
import { createReadStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { answer, type Review } from './hand-written-answer.js';
import { serveBare } from './bare-server.js';

const PROBES = 100;
const STREAMS = 200;

async function probes(): Promise<void> {
  const listener = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'));
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  for (let sent = 0; sent < PROBES; sent++) {
    const [res] = (await once(http.get({ host: '127.0.0.1', port, path: '/healthz', agent }), 'response')) as [http.IncomingMessage];
    res.resume();
    await once(res, 'end');
  }
  agent.destroy();
  listener.close();
}

async function streamsAndEvents(): Promise<void> {
  const file = createReadStream(fileURLToPath(import.meta.url));
  file.resume();
  await once(file, 'end');
  for (let index = 0; index < STREAMS; index++) {
    const stream = new PassThrough();
    stream.on('data', () => undefined);
    stream.end(`chunk ${index}`);
    await once(stream, 'end');
    const emitter = new EventEmitter();
    emitter.once('done', () => undefined);
    emitter.emit('done', index, { index });
    await new Promise<void>((resolve) => process.nextTick(resolve));
  }
}

await probes();
await streamsAndEvents();
serveBare('hand-written-busy-server.ts', (urlPath, review) => answer(urlPath, review as Review));
