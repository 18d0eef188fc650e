/** A whole response in one write, with its length: how every listener answers. */
import type { ServerResponse } from 'node:http';
import type { Reply } from './review-connection.js';

export const TEXT = 'text/plain; charset=utf-8';

export function writeResponse(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** A JSON reply on node:http's response. */
export function nodeReply(res: ServerResponse): Reply {
  return {
    send: (status, body) => writeResponse(res, status, 'application/json', body),
    abort: () => res.destroy(),
    get sent() {
      return res.headersSent;
    },
  };
}
