/** A serving certificate for localhost and 127.0.0.1 (EC P-256, one day), written by openssl into `dir` as tls.crt and tls.key. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export function writeSelfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'tls.crt');
  const key = path.join(dir, 'tls.key');
  const subject = ['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'];
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', ...subject, '-keyout', key, '-out', cert], {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { cert, key };
}
