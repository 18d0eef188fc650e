/**
 * Floods of connections that never become requests, against the built server
 * run as the chart runs it: 4,000 TCP connections that never start their TLS
 * handshake, then 1,500 that complete it and say nothing. Throughout, reviews
 * on new connections are answered, memory stays under the chart's limit, and
 * what was shed is counted. Bounded: fixed connection counts, each step with a
 * deadline.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { REPO_ROOT } from '../../support/fixture-project.js';
import { chartContainerEnv } from '../../support/helm.js';
import { getPlain, serve, ServeDir, waitReady, type ServeConfig, type ServeProcess } from '../../support/serve-process.js';

const CHART_MEMORY_LIMIT_MIB = 256;
const DEFAULT_MAX_CONNECTIONS = 1024;
const DEFAULT_MAX_HANDSHAKES = 128;

function rssMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Opens `count` connections with `open`, at most 200 at a time; resolves with the sockets that are still open. */
async function openMany<T extends net.Socket>(count: number, open: () => Promise<T | undefined>): Promise<T[]> {
  const sockets: T[] = [];
  for (let started = 0; started < count; started += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, count - started) }, open));
    for (const socket of batch) if (socket) sockets.push(socket);
  }
  return sockets;
}

function tcpConnection(port: number): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => resolve(socket));
    socket.on('error', () => resolve(undefined));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

function silentTlsConnection(port: number): Promise<tls.TLSSocket | undefined> {
  return new Promise((resolve) => {
    const socket = tls.connect({ port, host: '127.0.0.1', servername: 'localhost', rejectUnauthorized: false }, () => resolve(socket));
    socket.on('error', () => resolve(undefined));
    socket.on('close', () => resolve(undefined));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

async function shedCounts(config: ServeConfig): Promise<Record<string, number>> {
  const metrics = (await getPlain(config.metrics, '/metrics')).text;
  return Object.fromEntries([...metrics.matchAll(/^shaper_webhook_shed_connections_total\{bound="(\w+)"\} (\d+)$/gm)].map(([, bound, value]) => [bound!, Number(value)]));
}

describe('a flood of connections that never become requests', () => {
  let dir: ServeDir;
  let config: ServeConfig;
  let server: ServeProcess;

  beforeAll(async () => {
    const env = await chartContainerEnv(path.join(REPO_ROOT, 'charts/shaper-webhooks'));
    dir = await ServeDir.create();
    config = await dir.writeConfig();
    server = serve(['--config', config.file], { env });
    expect(await waitReady(config.health, server)).toContain('readyz check passed');
  });
  afterAll(async () => {
    server.child.kill('SIGKILL');
    await server.exited;
    dir.remove();
  });

  const review = (uid: string) =>
    dir.post(
      config.port,
      '/validate-profile',
      admissionReview({ uid, object: { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'p', namespace: 'a' }, spec: { tier: 'gold' } } }),
    );

  it('answers reviews on new connections while 4,000 connections sit before their TLS handshake, and sheds the oldest of those', async () => {
    const halfOpen = await openMany(4000, () => tcpConnection(config.port));
    try {
      const answers = [];
      for (let i = 0; i < 20; i++) answers.push((await review(`during-half-open-${i}`)).json.response);
      expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => ({ uid: `during-half-open-${i}`, allowed: true })));
      expect(rssMiB(server.child.pid!, 'VmRSS')).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
      const shed = await shedCounts(config);
      expect(shed.handshakes).toBeGreaterThanOrEqual(4000 - DEFAULT_MAX_HANDSHAKES);
    } finally {
      for (const socket of halfOpen) socket.destroy();
    }
  }, 120_000);

  it('answers reviews on new connections while 1,500 connections complete their handshake and say nothing, and sheds the oldest silent ones', async () => {
    const before = await shedCounts(config);
    const silent = await openMany(1500, () => silentTlsConnection(config.port));
    try {
      const answers = [];
      for (let i = 0; i < 20; i++) answers.push((await review(`during-silent-${i}`)).json.response);
      expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => ({ uid: `during-silent-${i}`, allowed: true })));
      const after = await shedCounts(config);
      const shed = after.connections! + after.handshakes! - (before.connections ?? 0) - before.handshakes!;
      expect(shed).toBeGreaterThanOrEqual(1500 - DEFAULT_MAX_CONNECTIONS);
      expect(rssMiB(server.child.pid!, 'VmHWM')).toBeLessThan(CHART_MEMORY_LIMIT_MIB);
    } finally {
      for (const socket of silent) socket.destroy();
    }
    expect((await getPlain(config.health, '/readyz')).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  }, 120_000);
});
