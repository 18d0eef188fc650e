/** Where the API server is and how to reach it: what a kubeconfig or the in-cluster ServiceAccount resolves to. */
import type { TokenSource } from './token-source.js';

export interface ConnectionSettings {
  /** The API server's base URL, e.g. `https://10.96.0.1:443`. */
  readonly server: string;
  /** Where these settings came from, for error messages: a kubeconfig file, or the in-cluster ServiceAccount. */
  readonly source: string;
  /** PEM CA bundle to verify the API server with; the system's CAs when absent. */
  readonly ca?: Buffer;
  readonly insecureSkipTlsVerify?: boolean;
  /** The name to verify the API server's certificate against (and send as SNI) instead of the server URL's host. */
  readonly tlsServerName?: string;
  /** PEM client certificate and key. */
  readonly clientCertificate?: Buffer;
  readonly clientKey?: Buffer;
  readonly token?: TokenSource;
}
