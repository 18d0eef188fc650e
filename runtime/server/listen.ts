/** Binding a listener to the port and address its config names. */
import { once } from 'node:events';
import type { Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { ListenerConfig } from '../config/server-config.js';

/** Resolves with the bound address; rejects when the port cannot be bound (`once` rejects on 'error'). */
export async function listen(server: Server, config: ListenerConfig): Promise<AddressInfo> {
  server.listen(config.port, config.bindAddress || undefined);
  await once(server, 'listening');
  return server.address() as AddressInfo;
}

/** Health and metrics on one port: the health listener answers both. */
export function sharedProbePort(config: { health: ListenerConfig; metrics: ListenerConfig }): boolean {
  return config.health.port !== 0 && config.health.port === config.metrics.port;
}
