/** A whole response in one write, with its length: how every listener answers. */
import type { ServerResponse } from 'node:http';

export const TEXT = 'text/plain; charset=utf-8';

export function writeResponse(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
