/** contextFor: a handler's methods called directly, as Go tests call ValidateCreate(ctx, obj), decide as runWebhook does. */
import { describe, expect, it } from 'vitest';
import { AdmissionDenial, Forbidden, Invalid, Webhook, field, type AdmissionContext, type CustomValidator, type KubernetesObject } from 'shaper-gen';
import { contextFor, runWebhook } from 'shaper-gen/testing';
import { RequestContext } from '../../../../runtime/webhook/admission/context.js';

type CronJob = KubernetesObject & { spec: { schedule: string; suspend?: boolean } };

@Webhook({
  path: '/validate-cronjob',
  mutating: false,
  rules: [{ groups: ['batch.tutorial.kubebuilder.io'], versions: ['v1'], resources: ['cronjobs'], operations: ['CREATE', 'UPDATE'] }],
})
class CronJobValidator implements CustomValidator<CronJob> {
  validateCreate(cronJob: CronJob, ctx: AdmissionContext) {
    return this.check(cronJob, ctx);
  }

  validateUpdate(oldCronJob: CronJob, cronJob: CronJob, ctx: AdmissionContext) {
    if (oldCronJob.spec.schedule !== cronJob.spec.schedule) ctx.warn(`schedule changed from ${oldCronJob.spec.schedule}`);
    return this.check(cronJob, ctx);
  }

  private check(cronJob: CronJob, ctx: AdmissionContext) {
    ctx.log.info({ schedule: cronJob.spec.schedule }, 'validating');
    if (ctx.request.userInfo.username === 'intern') throw Forbidden(`${ctx.request.userInfo.username} may not ${ctx.request.operation.toLowerCase()} cron jobs`);
    if (cronJob.spec.schedule.split(' ').length !== 5) throw Invalid(field.invalid('spec.schedule', cronJob.spec.schedule, 'must have five fields'));
    return cronJob.spec.suspend ? ['the job is suspended'] : undefined;
  }
}

const cronJob = (spec: CronJob['spec']): CronJob => ({ kind: 'CronJob', metadata: { name: 'nightly', namespace: 'jobs' }, spec });
const thrownBy = (call: () => unknown): unknown => {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
};

describe('contextFor', () => {
  it("is the server's request context: the operation from the method, kind and name from the object, a test user", () => {
    const ctx = contextFor(CronJobValidator, 'validateUpdate', { oldObject: cronJob({ schedule: '0 1 * * *' }), object: cronJob({ schedule: '0 2 * * *' }), uid: 'u-1' });
    expect(ctx).toBeInstanceOf(RequestContext);
    const kind = { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' };
    const resource = { group: 'batch.tutorial.kubebuilder.io', version: 'v1', resource: 'cronjobs' };
    expect(ctx.request).toEqual({
      uid: 'u-1',
      kind,
      resource,
      subResource: undefined,
      requestKind: kind,
      requestResource: resource,
      requestSubResource: undefined,
      name: 'nightly',
      namespace: 'jobs',
      operation: 'UPDATE',
      userInfo: { username: 'test-user', groups: ['system:authenticated'] },
      dryRun: false,
      options: undefined,
    });
    expect(ctx.webhook.path).toBe('/validate-cronjob');
    expect(ctx.warnings).toEqual([]);
    expect(ctx.signal.aborted).toBe(false);
    expect(() => ctx.kube.api(Object)).toThrow(new Error('this handler uses ctx.kube; pass { kube } to runWebhook or contextFor'));
  });

  it('a validator called directly returns what runWebhook allows with', async () => {
    const validator = new CronJobValidator();
    const before = cronJob({ schedule: '0 1 * * *' });
    const after = cronJob({ schedule: '0 2 * * *', suspend: true });
    const ctx = contextFor(validator, 'validateUpdate', { oldObject: before, object: after });
    const returned = validator.validateUpdate(before, after, ctx);
    expect({ returned, warnings: ctx.warnings }).toEqual({ returned: ['the job is suspended'], warnings: ['schedule changed from 0 1 * * *'] });

    const decision = await runWebhook(validator, { oldObject: before, object: after });
    expect({ allowed: decision.allowed, warnings: decision.warnings }).toEqual({ allowed: true, warnings: [...ctx.warnings, ...returned!] });
  });

  it('a validator called directly throws the denial runWebhook answers with', async () => {
    const validator = new CronJobValidator();
    const invalid = cronJob({ schedule: 'often' });
    const denial = thrownBy(() => validator.validateCreate(invalid, contextFor(validator, 'validateCreate', { object: invalid })));
    const schedule = { field: 'spec.schedule', type: 'FieldValueInvalid', value: 'often', message: 'must have five fields' };
    expect(denial).toBeInstanceOf(AdmissionDenial);
    // eslint-disable-next-line @typescript-eslint/no-misused-spread -- its own fields are what is compared; Error's message is not enumerable, hence added
    expect({ ...(denial as AdmissionDenial), message: (denial as AdmissionDenial).message }).toEqual({
      name: 'AdmissionDenial',
      code: 422,
      reason: 'Invalid',
      message: 'spec.schedule: Invalid value: "often": must have five fields',
      causes: [schedule],
    });
    const decision = await runWebhook(validator, { object: invalid });
    expect({ allowed: decision.allowed, code: decision.code, reason: decision.reason, message: decision.message, causes: decision.causes }).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: 'CronJob.batch.tutorial.kubebuilder.io "nightly" is invalid: spec.schedule: Invalid value: "often": must have five fields',
      causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "often": must have five fields', field: 'spec.schedule' }],
    });

    const intern = { username: 'intern', groups: ['system:authenticated'] };
    const valid = cronJob({ schedule: '0 1 * * *' });
    expect(thrownBy(() => validator.validateCreate(valid, contextFor(validator, 'validateCreate', { object: valid, userInfo: intern })))).toEqual(Forbidden('intern may not create cron jobs'));
    const forbidden = await runWebhook(validator, { object: valid, userInfo: intern });
    expect({ code: forbidden.code, reason: forbidden.reason, message: forbidden.message }).toEqual({ code: 403, reason: 'Forbidden', message: 'intern may not create cron jobs' });
  });

  it("reads ctx.cache from the objects given, as runWebhook's options do", async () => {
    const PROFILES = { group: 'shaper.io', version: 'v1alpha1', resource: 'profiles' };
    @Webhook({ path: '/validate-assignment', mutating: false, rules: [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['assignments'], operations: ['CREATE'] }], cache: [PROFILES] })
    class AssignmentValidator {
      async validateCreate(_assignment: KubernetesObject, ctx: AdmissionContext) {
        if (!(await ctx.cache.get(PROFILES, ctx.request.namespace, 'gold'))) throw Invalid(field.notFound('spec.profile', 'gold'));
      }
    }
    const assignment = { kind: 'Assignment', metadata: { name: 'a', namespace: 'team' } };
    const profile = { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'gold', namespace: 'team' } };
    const ctx = contextFor(AssignmentValidator, 'validateCreate', { object: assignment }, { objects: { 'profiles.shaper.io': [profile] } });
    expect(await ctx.cache.get(PROFILES, 'team', 'gold')).toEqual(profile);
    await expect(new AssignmentValidator().validateCreate(assignment, ctx)).resolves.toBeUndefined();
    await expect(new AssignmentValidator().validateCreate(assignment, contextFor(AssignmentValidator, 'validateCreate', { object: assignment }))).rejects.toThrow(AdmissionDenial);
  });

  it('refuses a method the handler lacks and a class without @Webhook, in one line each', () => {
    expect(() => contextFor(CronJobValidator, 'validateDelete')).toThrow(new TypeError('shaper-gen/testing: CronJobValidator has no method validateDelete'));
    class Plain {
      validateCreate() {}
    }
    expect(() => contextFor(Plain, 'validateCreate')).toThrow(new TypeError('shaper-gen/testing: Plain is not decorated with @Webhook'));
  });
});
