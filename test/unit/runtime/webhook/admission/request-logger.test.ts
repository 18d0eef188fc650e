/** `ctx.log` through the server's own logger: every line is JSON with each key once, whatever the handler logs. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Webhook, type AdmissionContext, type KubernetesObject } from 'shaper-gen';
import { runWebhook } from 'shaper-gen/testing';
import { closingQuote } from '../../../../../runtime/webhook/admission/json-text.js';
import { createLogger } from '../../../../../runtime/log.js';

@Webhook({ path: '/validate-widget', mutating: false, rules: [{ groups: ['example.io'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }] })
class ChattyValidator {
  validateCreate(_obj: KubernetesObject, ctx: AdmissionContext) {
    ctx.log.info({ step: 1 }, 'plain');
    ctx.log.info({ name: 'sidecar' }, 'a container');
    ctx.log.info({ component: 'parser', level: 'high', time: 3 }, 'fields named as the process writes them');
    ctx.log.child({ uid: 'part-1', part: 'inner' }).warn({ name: 'inner', msg: 'a field' }, 'from a child');
    ctx.log.debug('off at info');
    ctx.log.level = 'debug';
    ctx.log.child({ part: 'verbose' }).debug('on once the request log is at debug');
  }
}

/** The top-level keys of one JSON object's text, in order, duplicates included (JSON.parse would keep only the last). */
function keysInText(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const close = closingQuote(text, i);
      if (depth === 1 && text[close + 1] === ':') keys.push(JSON.parse(text.slice(i, close + 1)) as string);
      i = close;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

describe('ctx.log', () => {
  it('writes each key once: the call wins over the request bindings; level, time, msg and the process bindings are kept, a field so named gets a _', async () => {
    const text: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => done(void text.push(...chunk.toString('utf8').split('\n').filter(Boolean))) });
    // As `serve` builds it, with a worker's bindings.
    const log = createLogger('info', destination).child({ worker: 1 });
    const decision = await runWebhook(ChattyValidator, { object: { apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'team-a' } } }, { log });
    expect(decision.allowed).toBe(true);

    const time = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const request = { webhook: '/validate-widget', uid: decision.response.uid, operation: 'CREATE', resource: 'widgets', namespace: 'team-a', name: 'w1' };
    const process = { level: 'info', time, component: 'shaper-gen', worker: 1 };
    const lines = text.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toEqual([
      { ...process, ...request, step: 1, msg: 'plain' },
      { ...process, ...request, name: 'sidecar', msg: 'a container' },
      { ...process, ...request, component_: 'parser', level_: 'high', time_: 3, msg: 'fields named as the process writes them' },
      {
        ...process,
        level: 'warn',
        webhook: '/validate-widget',
        operation: 'CREATE',
        resource: 'widgets',
        namespace: 'team-a',
        uid: 'part-1',
        part: 'inner',
        name: 'inner',
        msg_: 'a field',
        msg: 'from a child',
      },
      { ...process, ...request, level: 'debug', part: 'verbose', msg: 'on once the request log is at debug' },
    ]);
    for (const [index, line] of text.entries()) expect(keysInText(line), line).toEqual(Object.keys(lines[index]!));
  });
});
