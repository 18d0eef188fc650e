/**
 * A TCP relay on loopback whose port is the test's from the start: a URL can
 * name it before the server behind it has a port (TLS passes through untouched).
 */
import net from 'node:net';

export interface TcpRelay {
  readonly port: number;
  /** Where new connections go. */
  target: number | undefined;
  close(): void;
}

export async function startTcpRelay(): Promise<TcpRelay> {
  const relay = { port: 0, target: undefined as number | undefined, close: () => server.close() };
  const server = net.createServer((client) => (relay.target === undefined ? client.destroy() : relayConnection(client, relay.target)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.port = (server.address() as net.AddressInfo).port;
  return relay;
}

/** Pipes a client's connection to a port on loopback, both ends closed when either fails. */
export function relayConnection(client: net.Socket, port: number): void {
  const upstream = net.connect(port, '127.0.0.1');
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
}
