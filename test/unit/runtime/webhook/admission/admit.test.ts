/** admit(): every outcome, as the complete AdmitResult the server and shaper-gen/testing read. */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Denied, Forbidden, Invalid, Webhook, field, type AdmissionContext, type KubeClient, type KubernetesObject } from 'shaper-gen';
import { admissionRequest, type RequestInput } from 'shaper-gen/testing';
import { admit, failedCallResponse } from '../../../../../runtime/webhook/admission/admit.js';
import { encodePatch } from '../../../../../runtime/webhook/admission/patch.js';
import { MemoryObjects } from '../../../../../runtime/cache/memory-objects.js';
import { webhookOf } from '../../../../../runtime/webhook/decorator.js';

const rules = [{ groups: ['example.io'], versions: ['v1'], resources: ['widgets'], operations: ['*'] }] as const;
const widget = (spec: Record<string, unknown> = {}): KubernetesObject => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'a' }, spec });
const calls: unknown[][] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Webhook({ path: '/validate-widget', mutating: false, rules })
class Validator {
  validateCreate(obj: KubernetesObject, ctx: AdmissionContext) {
    calls.push(['create', obj]);
    const mode = (obj.spec as { mode?: string } | undefined)?.mode;
    if (mode === 'forbidden') throw Forbidden('not you');
    if (mode === 'teapot') throw Denied('no tea', 418);
    if (mode === 'gone') throw Denied('gone', 410);
    if (mode === 'invalid') throw Invalid([field.invalid('spec.size', 11, 'must be at most 10'), field.required('spec.mode')]);
    if (mode === 'throw') throw new Error('boom');
    if (mode === 'null') throw null;
    if (mode === 'reject') return Promise.reject(new TypeError('async boom'));
    if (mode === 'slow') return sleep(1000).then(() => []);
    ctx.warn('from ctx');
    return mode === 'warn' ? ['returned'] : undefined;
  }
  validateUpdate(oldObj: KubernetesObject, obj: KubernetesObject) {
    calls.push(['update', oldObj, obj]);
  }
  validateDelete(oldObj: KubernetesObject) {
    calls.push(['delete', oldObj]);
  }
  validateConnect(options: unknown) {
    calls.push(['connect', options]);
  }
}

@Webhook({ path: '/validate-ignore', mutating: false, rules, failurePolicy: 'Ignore' })
class SlowIgnored {
  async validateCreate(_obj: KubernetesObject, ctx: AdmissionContext) {
    ctx.warn('started');
    await sleep(1000);
  }
}

@Webhook({ path: '/validate-create-only', mutating: false, rules })
class CreateOnly {
  validateCreate() {
    throw Forbidden('never');
  }
}

@Webhook({ path: '/mutate-widget', mutating: true, rules })
class Defaulter {
  default(obj: KubernetesObject) {
    calls.push(['default', obj]);
    const spec = obj.spec as { size?: number; mode?: string };
    if (spec.mode === 'replace') return { ...obj, spec: { size: 5 } };
    if (spec.mode === 'number') return 5 as never;
    spec.size ??= 1;
    return undefined;
  }
}

const kube: KubeClient = {
  get config(): never {
    throw new Error('no kube');
  },
  api(): never {
    throw new Error('no kube');
  },
};
async function run(cls: new () => object, input: RequestInput, deadline: { deadlineMs?: number; waitedMs?: number } = {}) {
  const webhook = webhookOf(cls)!;
  const request = admissionRequest(input, webhook);
  calls.length = 0;
  const result = await admit(webhook, new cls(), request, { log: pino({ level: 'silent' }), kube, objects: new MemoryObjects({}), ...deadline });
  return { uid: request.uid, result };
}
const status = (code: number, reason: string | undefined, message: string) => ({ metadata: {}, status: 'Failure', code, ...(reason ? { reason } : {}), message });

describe('admit: validators', () => {
  it('allowed, with the warnings of ctx.warn and of the returned list', async () => {
    const plain = await run(Validator, { object: widget() });
    expect(plain.result).toEqual({ outcome: 'allowed', response: { uid: plain.uid, allowed: true, warnings: ['from ctx'] } });
    const warned = await run(Validator, { object: widget({ mode: 'warn' }) });
    expect(warned.result).toEqual({ outcome: 'allowed', response: { uid: warned.uid, allowed: true, warnings: ['from ctx', 'returned'] } });
  });

  it.each<[string, number, string | undefined, string]>([
    ['forbidden', 403, 'Forbidden', 'not you'],
    ['teapot', 418, undefined, 'no tea'],
    ['gone', 410, 'Expired', 'gone'],
  ])('denied (%s) with its code and reason', async (mode, code, reason, message) => {
    const { uid, result } = await run(Validator, { object: widget({ mode }) });
    expect(result).toEqual({ outcome: 'denied', response: { uid, allowed: false, status: status(code, reason, message) } });
  });

  it('Invalid: 422 with the kind, name and one cause per field error, as apimachinery NewInvalid', async () => {
    const { uid, result } = await run(Validator, { object: widget({ mode: 'invalid' }) });
    expect(result).toEqual({
      outcome: 'denied',
      response: {
        uid,
        allowed: false,
        status: {
          ...status(422, 'Invalid', 'Widget.example.io "w1" is invalid: [spec.size: Invalid value: 11: must be at most 10, spec.mode: Required value]'),
          details: {
            name: 'w1',
            group: 'example.io',
            kind: 'Widget',
            causes: [
              { reason: 'FieldValueInvalid', message: 'Invalid value: 11: must be at most 10', field: 'spec.size' },
              { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.mode' },
            ],
          },
        },
      },
    });
  });

  it.each<[string, string]>([
    ['throw', 'boom'],
    ['reject', 'async boom'],
    ['null', 'null'],
  ])('a handler that throws (%s) is a 500 naming the webhook', async (mode, detail) => {
    const { uid, result } = await run(Validator, { object: widget({ mode }) });
    expect(result).toEqual({
      outcome: 'error',
      response: { uid, allowed: false, status: status(500, 'InternalError', `internal error in webhook validate-widget.example.io (/validate-widget): ${detail}`) },
    });
  });

  it('calls the method of the operation with its objects; an operation with no method is allowed', async () => {
    const old = widget({ size: 1 });
    const now = widget({ size: 2 });
    await run(Validator, { operation: 'UPDATE', oldObject: old, object: now });
    expect(calls).toEqual([['update', old, now]]);
    await run(Validator, { operation: 'DELETE', oldObject: old });
    expect(calls).toEqual([['delete', old]]);
    await run(Validator, { operation: 'CONNECT', options: { kind: 'PodExecOptions' } });
    expect(calls).toEqual([['connect', { kind: 'PodExecOptions' }]]);
    const { uid, result } = await run(CreateOnly, { operation: 'DELETE', oldObject: old });
    expect(result).toEqual({ outcome: 'allowed', response: { uid, allowed: true } });
  });
});

describe('admit: the deadline', () => {
  it('under Fail: 504 naming the webhook and the deadline', async () => {
    const { uid, result } = await run(Validator, { object: widget({ mode: 'slow' }) }, { deadlineMs: 20 });
    expect(result).toEqual({
      outcome: 'timeout',
      response: { uid, allowed: false, status: status(504, 'Timeout', 'webhook validate-widget.example.io (/validate-widget) did not answer within 20 ms') },
    });
  });

  it('under Ignore: allowed, with the warnings so far and the reason', async () => {
    const { uid, result } = await run(SlowIgnored, { object: widget() }, { deadlineMs: 1000, waitedMs: 980 });
    expect(result).toEqual({
      outcome: 'timeout',
      response: { uid, allowed: true, warnings: ['started', 'webhook validate-ignore.example.io (/validate-ignore) did not answer within 1000 ms; allowed because its failurePolicy is Ignore'] },
    });
  });

  it('failedCallResponse: denied with the code under Fail, allowed with the message as a warning under Ignore', () => {
    expect(failedCallResponse(webhookOf(Validator)!, 'u', 413, 'too big')).toEqual({ uid: 'u', allowed: false, status: status(413, 'RequestEntityTooLarge', 'too big') });
    expect(failedCallResponse(webhookOf(SlowIgnored)!, 'u', 413, 'too big', ['w'])).toEqual({ uid: 'u', allowed: true, warnings: ['w', 'too big; allowed because its failurePolicy is Ignore'] });
  });
});

describe('admit: defaulters', () => {
  it('a change is a JSON Patch, encoded in the response and kept as operations', async () => {
    const { uid, result } = await run(Defaulter, { object: widget() });
    const patch = [{ op: 'add', path: '/spec/size', value: 1 }];
    expect(result).toEqual({ outcome: 'allowed', response: { uid, allowed: true, patch: encodePatch(patch as never), patchType: 'JSONPatch' }, patch });
    const replaced = await run(Defaulter, { object: widget({ mode: 'replace' }) });
    expect(replaced.result.patch).toEqual([
      { op: 'remove', path: '/spec/mode' },
      { op: 'add', path: '/spec/size', value: 5 },
    ]);
  });

  it('no change, no patch', async () => {
    const { uid, result } = await run(Defaulter, { object: widget({ size: 3 }) });
    expect(result).toEqual({ outcome: 'allowed', response: { uid, allowed: true } });
  });

  it('DELETE and CONNECT are allowed without calling default()', async () => {
    for (const input of [{ operation: 'DELETE', oldObject: widget() }, { operation: 'CONNECT' }] as const) {
      const { uid, result } = await run(Defaulter, input);
      expect(result).toEqual({ outcome: 'allowed', response: { uid, allowed: true } });
      expect(calls).toEqual([]);
    }
  });

  it('a write without an object is a 400; default() returning a non-object is a 500', async () => {
    const missing = await run(Defaulter, { operation: 'CREATE' });
    expect(missing.result).toEqual({
      outcome: 'denied',
      response: { uid: missing.uid, allowed: false, status: status(400, 'BadRequest', 'CREATE request for webhook /mutate-widget carries no object') },
    });
    const wrong = await run(Defaulter, { object: widget({ mode: 'number' }) });
    expect(wrong.result).toEqual({
      outcome: 'error',
      response: {
        uid: wrong.uid,
        allowed: false,
        status: status(500, 'InternalError', 'internal error in webhook mutate-widget.example.io (/mutate-widget): default() returned number; return nothing or the object'),
      },
    });
  });
});

@Webhook({ path: '/validate-logged', mutating: false, rules })
class Logging {
  validateCreate(_obj: KubernetesObject, ctx: AdmissionContext) {
    ctx.log.debug({ step: 1 }, 'off at info');
    ctx.log.info({ step: 2 }, 'checked');
    ctx.log.child({ part: 'inner' }).warn('from a child');
  }
}

describe('admit: ctx.log', () => {
  it('writes the enabled levels with the request bindings, and nothing for the disabled ones', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ level: 'info', base: undefined, timestamp: false }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const webhook = webhookOf(Logging)!;
    const request = admissionRequest({ object: widget(), namespace: 'a', name: 'w1' }, webhook);
    await admit(webhook, new Logging(), request, { log, kube, objects: new MemoryObjects({}) });
    const bindings = { webhook: '/validate-logged', uid: request.uid, operation: 'CREATE', resource: 'widgets', namespace: 'a', name: 'w1' };
    expect(lines).toEqual([
      { level: 30, ...bindings, step: 2, msg: 'checked' },
      { level: 40, ...bindings, part: 'inner', msg: 'from a child' },
    ]);
  });
});
