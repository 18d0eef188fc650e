/** What a TLS server offers, found by handshakes from node:tls clients on loopback. */
import tls from 'node:tls';

/** Every TLS 1.2 suite this Node's OpenSSL can offer as a client, in OpenSSL names. */
export const CLIENT_TLS12_SUITES = tls
  .getCiphers()
  .map((name) => name.toUpperCase())
  .filter((name) => !name.startsWith('TLS_'));

/** The negotiated suite (OpenSSL name), or `refused` when the handshake fails. */
export function handshake(port: number, options: tls.ConnectionOptions): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ port, host: '127.0.0.1', servername: 'localhost', rejectUnauthorized: false, ...options }, () => {
      resolve(socket.getCipher().name);
      socket.destroy();
    });
    socket.on('error', () => resolve('refused'));
  });
}

/** The TLS 1.2 suites the server accepts, sorted: one handshake per suite the client knows. */
export async function offeredTls12Suites(port: number): Promise<string[]> {
  const offered: string[] = [];
  for (const suite of CLIENT_TLS12_SUITES) {
    if ((await handshake(port, { ciphers: suite, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })) === suite) offered.push(suite);
  }
  return offered.sort();
}
