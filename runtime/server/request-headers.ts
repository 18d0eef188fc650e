import type { IncomingMessage } from 'node:http';

/** A Content-Type or Content-Encoding the API server never sends with a review (`what`: "admission reviews"). */
export function unsupportedHeaders(req: IncomingMessage, what: string): { code: number; message: string } | undefined {
  const contentType = req.headers['content-type'];
  if (contentType !== 'application/json' && contentType?.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    return { code: 400, message: `Content-Type ${JSON.stringify((contentType ?? '').slice(0, 64))} not supported; expected application/json` };
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return { code: 415, message: `Content-Encoding ${JSON.stringify(encoding.slice(0, 64))} not supported; the API server sends ${what} unencoded` };
  }
  return undefined;
}
