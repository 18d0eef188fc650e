/**
 * The webhook port's fast path. What the API server sends a webhook is always
 * the same kind of request: a POST of JSON with a Content-Length to a webhook's
 * path. Such a request is read and answered here, on the TLS socket, without
 * node:http's parser callbacks, request and response streams and per-request
 * socket timers (`npm run bench -- admission` measures the difference). The
 * response is the one node:http writes for the same answer, byte for byte.
 *
 * Anything else a connection carries — another method or path, a chunked or
 * empty body, Expect, Upgrade, HTTP/1.0, a head that is malformed, oversized or
 * in any way unusual — is handed, from its first byte on, to node:http as if it
 * had arrived there, with the rest of the connection: node:http answers it as
 * it answers everything, and keeps the connection. The parser here only has to
 * recognise the plain case, never to judge the others.
 */
import { STATUS_CODES } from 'node:http';
import type { Server } from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { RequestHeaders } from './request-headers.js';

/** A review request, read whole. */
export interface ReviewRequest extends RequestHeaders {
  readonly body: string;
  /** When its first byte arrived (process.hrtime.bigint()), where the latency metrics start. */
  readonly started: bigint;
}

/** How an endpoint answers one request: one whole JSON response, or the connection ended without one. */
export interface Reply {
  send(status: number, body: string): void;
  abort(): void;
  /** Whether `send` has been called. */
  readonly sent: boolean;
}

/** An endpoint's fast entry: answers `request` through `reply`, now or later. */
export type ReviewRoute = (request: ReviewRequest, reply: Reply) => void;

/** What the fast path needs from the listener. */
export interface ReviewPathOptions {
  /** The route for a request path (without its query), if it has one. */
  readonly route: (path: string) => ReviewRoute | undefined;
  /** Bodies larger than this go to node:http, whose endpoint refuses them with the webhook's answer for it. */
  readonly maxBodyBytes: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  /** Called as each request starts being answered, with its connection; true when the reply must close it (a drain). */
  readonly onRequest: (socket: TLSSocket, exchange: Exchange) => boolean;
}

/** One request in progress, as the keep-alive drain sees it. */
export interface Exchange {
  /** The response has been written and flushed to the socket. */
  readonly writableFinished: boolean;
}

/** node:http's default limit on a request's head. */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
/** node:http's margin over keepAliveTimeout before it closes an idle connection (server.keepAliveTimeoutBuffer). */
const KEEP_ALIVE_MARGIN_MS = 1000;
const REQUEST_TIMEOUT_RESPONSE = `HTTP/1.1 408 ${STATUS_CODES[408]}\r\nConnection: close\r\n\r\n`;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TARGET = /^\/[!-~]*$/;

/** A head parsed: everything the fast path reads of it. */
interface Head {
  readonly route: ReviewRoute;
  /** Bytes of the head, its blank line included. */
  readonly size: number;
  readonly bodySize: number;
  readonly contentType: string | undefined;
  readonly contentEncoding: string | undefined;
  /** The client asked to close after this response. */
  readonly close: boolean;
}

/**
 * Puts the fast path in front of `server`'s own connection handling. Returns undefined, and changes nothing, when
 * the server's connection listener is not the single one node:http installs (then node:http serves everything).
 */
export function installReviewPath(server: Server, options: ReviewPathOptions, sweepMs = 1000): ReviewConnections | undefined {
  const listeners = server.listeners('secureConnection');
  const [nodeHttp] = listeners;
  if (listeners.length !== 1 || typeof nodeHttp !== 'function') return undefined;
  server.removeListener('secureConnection', nodeHttp as (socket: TLSSocket) => void);
  const connections = new ReviewConnections(options, (socket) => (nodeHttp as (socket: TLSSocket) => void).call(server, socket), sweepMs);
  server.prependListener('secureConnection', (socket: TLSSocket) => connections.accept(socket));
  return connections;
}

/** Every connection on the fast path, and the one timer that bounds them. */
export class ReviewConnections {
  private readonly open = new Set<ReviewConnection>();
  private readonly sweeper: NodeJS.Timeout;
  /** The Connection header of a reply that keeps its connection, as node:http writes it. */
  readonly keepAlive: string;

  constructor(
    readonly options: ReviewPathOptions,
    /** Hands a socket to node:http. */
    readonly toNodeHttp: (socket: TLSSocket) => void,
    sweepMs: number,
  ) {
    this.keepAlive = `keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.keepAliveTimeoutMs / 1000)}`;
    // One timer for every connection, as node:http bounds its requests (connectionsCheckingInterval): none per request.
    this.sweeper = setInterval(() => this.sweep(), sweepMs).unref();
  }

  accept(socket: TLSSocket): void {
    const connection = new ReviewConnection(this, socket);
    this.open.add(connection);
    socket.once('close', () => this.open.delete(connection));
  }

  forget(connection: ReviewConnection): void {
    this.open.delete(connection);
  }

  /** Stops bounding connections (the listener has closed). */
  stop(): void {
    clearInterval(this.sweeper);
  }

  /** Ends every connection still on the fast path (the listener's close timed out). */
  closeAll(): void {
    for (const connection of this.open) connection.destroy();
  }

  private sweep(): void {
    const now = process.hrtime.bigint();
    const nowMs = Date.now();
    for (const connection of this.open) connection.check(now, nowMs);
  }
}

/** One connection on the fast path, and the reply of its request in progress (requests are answered in order). */
class ReviewConnection implements Reply, Exchange {
  /** Bytes received and not yet answered, as they arrived (joined only when read: no copy per chunk), and their length. */
  private chunks: Buffer[] = [];
  private length = 0;
  /** The head of the request being received, once whole. */
  private head: Head | undefined;
  /** When the request being received began (its first byte, process.hrtime.bigint()); undefined when none is. */
  private receivingSince: bigint | undefined;
  /** When the connection last became idle. */
  private idleSince = Date.now();
  /** A request is being answered. */
  private busy = false;
  private closeAfterReply = false;
  sent = false;
  /** `next` is on the stack. */
  private dispatching = false;
  /** Reading is paused until the client has read what was written. */
  private awaitingDrain = false;
  private readonly onData = (chunk: Buffer) => this.received(chunk);
  private readonly onDrain = () => {
    this.awaitingDrain = false;
    this.socket.resume();
  };

  constructor(
    private readonly connections: ReviewConnections,
    private readonly socket: TLSSocket,
  ) {
    socket.on('data', this.onData);
    socket.on('error', this.destroy);
  }

  get writableFinished(): boolean {
    return !this.busy && this.socket.writableLength === 0;
  }

  readonly destroy = (): void => {
    this.socket.destroy();
  };

  private received(chunk: Buffer): void {
    this.receivingSince ??= process.hrtime.bigint();
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (!this.busy) this.next();
    // Requests sent ahead of their turn: hold at most one more, then read no more until this one is answered.
    else if (this.length > MAX_HEAD_BYTES + this.connections.options.maxBodyBytes) this.socket.pause();
  }

  /** What has been received and not answered, in one buffer. */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.length)];
    return this.chunks[0]!;
  }

  /** Answers the requests buffered, in order, until one is incomplete or is being answered. */
  private next(): void {
    // A reply sent while a request is being dispatched comes back here: the loop below goes on with the next one.
    if (this.dispatching) return;
    this.dispatching = true;
    try {
      while (this.length > 0 && !this.busy) {
        const head = (this.head ??= this.readHead(this.joined()));
        if (head === undefined) return;
        const requestEnd = head.size + head.bodySize;
        if (this.length < requestEnd) return;
        const buffered = this.joined();
        const body = buffered.toString('utf8', head.size, requestEnd);
        this.head = undefined;
        this.length -= requestEnd;
        this.chunks = this.length === 0 ? [] : [buffered.subarray(requestEnd)];
        const started = this.receivingSince!;
        this.receivingSince = this.length === 0 ? undefined : process.hrtime.bigint();
        this.answer(head, body, started);
      }
    } finally {
      this.dispatching = false;
    }
  }

  /** The head at the start of `buffered`; undefined while it is incomplete, or once it has been handed to node:http. */
  private readHead(buffered: Buffer): Head | undefined {
    const end = buffered.indexOf(HEAD_END);
    if (end === -1) {
      if (buffered.length > MAX_HEAD_BYTES) this.handOff();
      return undefined;
    }
    const size = end + HEAD_END.length;
    const head = size <= MAX_HEAD_BYTES ? parseHead(buffered.toString('latin1', 0, end), size, this.connections.options) : undefined;
    if (head === undefined) this.handOff();
    return head;
  }

  private answer(head: Head, body: string, started: bigint): void {
    this.busy = true;
    this.sent = false;
    this.closeAfterReply = this.connections.options.onRequest(this.socket, this) || head.close;
    head.route({ contentType: head.contentType, contentEncoding: head.contentEncoding, body, started }, this);
  }

  send(status: number, body: string): void {
    if (this.sent) return;
    this.sent = true;
    const { socket } = this;
    if (socket.destroyed) return;
    const connection = this.closeAfterReply ? 'close' : this.connections.keepAlive;
    const flushed = socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nDate: ${httpDate()}\r\nConnection: ${connection}\r\n\r\n${body}`,
    );
    if (this.closeAfterReply) return this.end();
    this.busy = false;
    this.idleSince = Date.now();
    // A client that does not read its responses: read no more requests until it has.
    if (!flushed) {
      if (!this.awaitingDrain) {
        this.awaitingDrain = true;
        socket.pause();
        socket.once('drain', this.onDrain);
      }
    } else if (!this.awaitingDrain && socket.isPaused()) socket.resume();
    if (this.length > 0) this.next();
  }

  abort(): void {
    this.sent = true;
    this.destroy();
  }

  private end(): void {
    this.connections.forget(this);
    this.socket.removeListener('data', this.onData);
    this.socket.end();
  }

  /** The rest of the connection, from the first byte not answered here, to node:http. */
  private handOff(): void {
    const { socket } = this;
    this.connections.forget(this);
    socket.removeListener('data', this.onData);
    socket.removeListener('error', this.destroy);
    socket.removeListener('drain', this.onDrain);
    socket.pause();
    if (this.length > 0) socket.unshift(this.joined());
    this.chunks = [];
    this.length = 0;
    this.connections.toNodeHttp(socket);
    process.nextTick(() => socket.resume());
  }

  /**
   * The bounds node:http keeps on its connections: headersTimeout and requestTimeout on a request being received,
   * keepAliveTimeout when idle. (A drain's sweep is the keep-alive drain's, for every connection of the port.)
   */
  check(now: bigint, nowMs: number): void {
    const { options } = this.connections;
    if (this.busy) return;
    if (this.receivingSince !== undefined) {
      const limitMs = this.head === undefined ? options.headersTimeoutMs : options.requestTimeoutMs;
      if (now - this.receivingSince > BigInt(limitMs) * 1_000_000n) {
        this.socket.write(REQUEST_TIMEOUT_RESPONSE);
        this.destroy();
      }
      return;
    }
    if (nowMs - this.idleSince > options.keepAliveTimeoutMs + KEEP_ALIVE_MARGIN_MS) this.destroy();
  }
}

/** The header fields the fast path reads. */
interface Fields {
  host: boolean;
  bodySize: number | undefined;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  close: boolean;
}

/**
 * The head of a plain review request (the request line and headers, `text`, without the blank line), or undefined
 * for anything else. `size` is the head's length in bytes with the blank line.
 */
export function parseHead(text: string, size: number, options: Pick<ReviewPathOptions, 'route' | 'maxBodyBytes'>): Head | undefined {
  const lineEnd = text.indexOf('\r\n');
  if (lineEnd === -1) return undefined;
  const route = routeOf(text.slice(0, lineEnd), options.route);
  if (route === undefined) return undefined;
  const fields = readFields(text.slice(lineEnd + 2));
  // node:http answers a request without Host, without a body or with one over the limit.
  if (fields === undefined || !fields.host || fields.bodySize === undefined || fields.bodySize === 0 || fields.bodySize > options.maxBodyBytes) return undefined;
  const { bodySize, contentType, contentEncoding, close } = fields;
  return { route, size, bodySize, contentType, contentEncoding, close };
}

/** The route of a `POST <origin-form target> HTTP/1.1` request line. */
function routeOf(requestLine: string, route: ReviewPathOptions['route']): ReviewRoute | undefined {
  if (!requestLine.startsWith('POST ') || !requestLine.endsWith(' HTTP/1.1')) return undefined;
  const target = requestLine.slice(5, -9);
  if (!TARGET.test(target)) return undefined;
  const query = target.indexOf('?');
  return route(query === -1 ? target : target.slice(0, query));
}

function readFields(lines: string): Fields | undefined {
  const fields: Fields = { host: false, bodySize: undefined, contentType: undefined, contentEncoding: undefined, close: false };
  for (const line of lines.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (!TOKEN.test(name) || hasControlCharacter(value) || !readField(fields, name.toLowerCase(), value)) return undefined;
  }
  return fields;
}

/** Records one header field; false for a field, a repeat or a value the fast path leaves to node:http. */
function readField(fields: Fields, name: string, value: string): boolean {
  switch (name) {
    case 'host':
      if (fields.host) return false;
      fields.host = true;
      return true;
    case 'content-length':
      if (fields.bodySize !== undefined || !/^[0-9]{1,15}$/.test(value)) return false;
      fields.bodySize = Number(value);
      return true;
    case 'content-type':
      if (fields.contentType !== undefined) return false;
      fields.contentType = value;
      return true;
    case 'content-encoding':
      if (fields.contentEncoding !== undefined) return false;
      fields.contentEncoding = value;
      return true;
    case 'connection':
      for (const option of value.toLowerCase().split(',')) {
        const token = option.trim();
        if (token === 'close') fields.close = true;
        else if (token !== 'keep-alive' && token !== '') return false;
      }
      return true;
    case 'transfer-encoding':
    case 'expect':
    case 'upgrade':
      return false;
    default:
      return true;
  }
}

/** A control character other than a tab: such a value is node:http's to judge. */
function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

let dateSecond = -1;
let dateText = '';

/** The Date header's value, made once a second as node:http makes it. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}
