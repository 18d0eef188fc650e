/**
 * Loopback ports for servers a test starts as a separate process.
 *
 * Asking the kernel for port 0 and closing it races: until the child binds, the
 * same number can be handed out as the source port of any outbound connection
 * (seen in CI as EADDRINUSE). So ports come from below the kernel's ephemeral
 * range, where it never assigns source ports, and from a block of their own per
 * vitest worker (VITEST_POOL_ID) or, outside vitest, per process id, so that
 * concurrent workers never pick the same one.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import net from 'node:net';

const BLOCK = 200;
const FIRST = 10_000;
const POOL_BLOCKS = 20;

function ephemeralStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

function blockStart(): number {
  const poolId = Number(process.env.VITEST_POOL_ID);
  if (Number.isInteger(poolId) && poolId > 0) return FIRST + (poolId % POOL_BLOCKS) * BLOCK;
  const pidBlocks = Math.floor((ephemeralStart() - FIRST) / BLOCK) - POOL_BLOCKS;
  return FIRST + (POOL_BLOCKS + (process.pid % pidBlocks)) * BLOCK;
}

const start = blockStart();
let next = 0;

function bindable(port: number): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A loopback port no other test worker will pick and the kernel will not hand out, free right now. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = start + (next++ % BLOCK);
    if (await bindable(port)) return port;
  }
  const fallback = net.createServer().listen(0, '127.0.0.1');
  await once(fallback, 'listening');
  const { port } = fallback.address() as net.AddressInfo;
  await new Promise((resolve) => fallback.close(resolve));
  return port;
}
