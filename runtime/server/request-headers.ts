import type { IncomingMessage } from 'node:http';

/** The headers an endpoint reads, from node:http's request or the fast path's (review-connection.ts). */
export interface RequestHeaders {
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
}

export function headersOf(req: IncomingMessage): RequestHeaders {
  return { contentType: req.headers['content-type'], contentEncoding: req.headers['content-encoding'] };
}

/** A Content-Type or Content-Encoding the API server never sends with a review (`what`: "admission reviews"). */
export function unsupportedHeaders({ contentType, contentEncoding }: RequestHeaders, what: string): { code: number; message: string } | undefined {
  if (contentType !== 'application/json' && contentType?.split(';', 1)[0]!.trim().toLowerCase() !== 'application/json') {
    return { code: 400, message: `Content-Type ${JSON.stringify((contentType ?? '').slice(0, 64))} not supported; expected application/json` };
  }
  if (contentEncoding !== undefined && contentEncoding.trim().toLowerCase() !== 'identity') {
    return { code: 415, message: `Content-Encoding ${JSON.stringify(contentEncoding.slice(0, 64))} not supported; the API server sends ${what} unencoded` };
  }
  return undefined;
}
