/**
 * A network namespace with a veth pair to the host: the stand-in for a pod's
 * network. The API server refuses loopback endpoints, so the webhook server
 * gets an address of its own inside the namespace; traffic stays on the pair.
 */
import { execFileSync } from 'node:child_process';

export interface NetworkNamespace {
  readonly name: string;
  /** The host side of the pair (the API server listens here too). */
  readonly hostAddress: string;
  /** The address inside the namespace (the "pod IP"). */
  readonly podAddress: string;
  /** The pods' range (a /26), routed from the host through the namespace (see routePods). */
  readonly podCidr: string;
  /** `ip netns exec <name>` prefix for spawning a command inside. */
  readonly execPrefix: string[];
  /** Routes the pod range from the host to the namespace's end of the pair (the node's pod bridge is behind it). */
  routePods(): void;
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

export function createNetworkNamespace(): NetworkNamespace {
  // One /30 and one /26 of pods per test process, derived from the pid, so parallel runs do not collide.
  const slot = process.pid % 16000;
  const podCidr = `10.${230 + Math.floor(slot / 1024)}.${Math.floor((slot % 1024) / 4)}.${(slot % 4) * 64}/26`;
  const base = `10.${200 + Math.floor(slot / 4000)}.${Math.floor((slot % 4000) / 16)}.${(slot % 16) * 16}`;
  const [a, b, c, d] = base.split('.').map(Number) as [number, number, number, number];
  const hostAddress = `${a}.${b}.${c}.${d + 1}`;
  const podAddress = `${a}.${b}.${c}.${d + 2}`;
  const name = `shaper-${process.pid}`;
  const hostLink = `shh${process.pid}`;
  const podLink = `shp${process.pid}`;
  const remove = () => {
    try {
      ip('netns', 'del', name);
    } catch {
      /* already gone */
    }
    try {
      ip('link', 'del', hostLink);
    } catch {
      /* removed with the namespace */
    }
  };
  remove();
  try {
    ip('netns', 'add', name);
    ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', podLink);
    ip('link', 'set', podLink, 'netns', name);
    ip('addr', 'add', `${hostAddress}/30`, 'dev', hostLink);
    ip('link', 'set', hostLink, 'up');
    ip('netns', 'exec', name, 'ip', 'addr', 'add', `${podAddress}/30`, 'dev', podLink);
    ip('netns', 'exec', name, 'ip', 'link', 'set', podLink, 'up');
    ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  } catch (error) {
    remove();
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`creating network namespace ${name} failed (needs root and iproute2): ${stderr || (error as Error).message}`, { cause: error });
  }
  process.once('exit', remove);
  const routePods = () => ip('route', 'replace', podCidr, 'via', podAddress, 'dev', hostLink);
  return { name, hostAddress, podAddress, podCidr, execPrefix: ['ip', 'netns', 'exec', name], routePods, remove };
}
