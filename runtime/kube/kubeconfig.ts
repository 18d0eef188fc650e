/**
 * Reads a kubeconfig file's current context into ConnectionSettings: the
 * cluster's server and TLS settings, and a user with a client certificate or
 * a bearer token (inline or from a file). File paths are relative to the
 * kubeconfig's directory; `-data` fields win over files, `token` over
 * `tokenFile`, as in client-go. Credential plugins and the other
 * authentication schemes are refused by name: ctx.kube (@kubernetes/client-node) has them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { ConnectionSettings } from './connection-settings.js';
import { fixedToken, TokenFile } from './token-source.js';

/** What the object cache's API client cannot do with a kubeconfig, and the name to give it. */
const UNSUPPORTED_USER_FIELDS: Readonly<Record<string, string>> = {
  exec: 'exec (a credential plugin)',
  'auth-provider': 'auth-provider',
  username: 'username/password (basic auth)',
  password: 'username/password (basic auth)',
  as: 'impersonation (as)',
  'as-uid': 'impersonation (as-uid)',
  'as-groups': 'impersonation (as-groups)',
  'as-user-extra': 'impersonation (as-user-extra)',
};
const UNSUPPORTED_CLUSTER_FIELDS: Readonly<Record<string, string>> = {
  'proxy-url': 'proxy-url',
};

interface Named<T> {
  name?: unknown;
  cluster?: T;
  user?: T;
  context?: T;
}
type Fields = Record<string, unknown>;

export function readKubeconfig(file: string): ConnectionSettings {
  let config: Fields;
  try {
    config = (parse(readFileSync(file, 'utf8')) ?? {}) as Fields;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message.split('\n')[0];
    throw new Error(`kubeconfig ${file}: cannot read it: ${reason}`, { cause: error });
  }
  return settingsOf(config, file);
}

/** The current context of a parsed kubeconfig, with paths resolved against `file`'s directory. */
export function settingsOf(config: Fields, file: string): ConnectionSettings {
  const fail = (problem: string) => new Error(`kubeconfig ${file}: ${problem}`);
  const contextName = config['current-context'];
  if (typeof contextName !== 'string' || contextName === '') throw fail('no current-context; set one with kubectl config use-context <name>');
  const context = entry(config, 'contexts', 'context', contextName);
  if (!context) throw fail(`current-context "${contextName}" is not among its contexts`);
  const clusterName = context.cluster;
  const cluster = typeof clusterName === 'string' ? entry(config, 'clusters', 'cluster', clusterName) : undefined;
  if (!cluster) throw fail(`context "${contextName}" names cluster ${JSON.stringify(clusterName)}, which is not among its clusters`);
  const userName = context.user;
  const user = typeof userName === 'string' && userName !== '' ? entry(config, 'users', 'user', userName) : {};
  if (!user) throw fail(`context "${contextName}" names user "${String(userName)}", which is not among its users`);

  const unsupported = (fields: Fields, names: Readonly<Record<string, string>>, owner: string) => {
    const found = Object.keys(names).find((key) => fields[key] !== undefined && fields[key] !== '' && fields[key] !== null);
    if (found) {
      throw fail(
        `${owner} uses ${names[found]}, which the object cache's API client does not support (ctx.kube, @kubernetes/client-node, does); give it a client certificate or a token (tokenFile)`,
      );
    }
  };
  unsupported(cluster, UNSUPPORTED_CLUSTER_FIELDS, `cluster "${String(clusterName)}"`);
  unsupported(user, UNSUPPORTED_USER_FIELDS, `user "${String(userName)}"`);

  const server = cluster.server;
  if (typeof server !== 'string' || server === '') throw fail(`cluster "${String(clusterName)}" has no server`);
  const dir = path.dirname(path.resolve(file));
  const bytes = (fields: Fields, key: string) => dataOrFile(fields, key, dir, fail);
  const token =
    typeof user.token === 'string' && user.token !== ''
      ? fixedToken(user.token)
      : typeof user.tokenFile === 'string' && user.tokenFile !== ''
        ? tokenFile(path.resolve(dir, user.tokenFile), fail)
        : undefined;
  return {
    server,
    source: `kubeconfig ${file}`,
    ca: bytes(cluster, 'certificate-authority'),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: typeof cluster['tls-server-name'] === 'string' && cluster['tls-server-name'] !== '' ? cluster['tls-server-name'] : undefined,
    clientCertificate: bytes(user, 'client-certificate'),
    clientKey: bytes(user, 'client-key'),
    token,
  };
}

function entry(config: Fields, list: string, field: 'cluster' | 'user' | 'context', name: string): Fields | undefined {
  const items = config[list];
  if (!Array.isArray(items)) return undefined;
  const found = (items as (Named<Fields> | null)[]).find((item) => item?.name === name);
  return found ? (found[field] ?? {}) : undefined;
}

/** `<key>-data` (base64), else the file `<key>` names. */
function dataOrFile(fields: Fields, key: string, dir: string, fail: (problem: string) => Error): Buffer | undefined {
  const data = fields[`${key}-data`];
  if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
  const file = fields[key];
  if (typeof file !== 'string' || file === '') return undefined;
  const resolved = path.resolve(dir, file);
  try {
    return readFileSync(resolved);
  } catch (error) {
    throw fail(`${key} ${resolved}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
}

function tokenFile(file: string, fail: (problem: string) => Error): TokenFile {
  try {
    return new TokenFile(file);
  } catch (error) {
    throw fail((error as Error).message);
  }
}
