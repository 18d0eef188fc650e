/** runWebhook on test objects without apiVersion or kind: the kind the API server would send, or a refusal that says what to set. */
import { describe, expect, it } from 'vitest';
import { Invalid, Webhook, field, type CustomValidator, type KubernetesObject, type RuleOptions } from 'shaper-gen';
import { runWebhook } from 'shaper-gen/testing';

type CronJob = KubernetesObject & { spec?: { schedule?: string } };

function scheduleValidator(rules: readonly RuleOptions[]) {
  @Webhook({ path: '/validate-cronjob', mutating: false, rules })
  class ScheduleValidator implements CustomValidator<CronJob> {
    validateCreate(cronJob: CronJob) {
      if (!/^(\S+\s+){4}\S+$/.test(cronJob.spec?.schedule ?? '')) throw Invalid(field.invalid('spec.schedule', cronJob.spec?.schedule, 'must be a cron schedule of five fields'));
    }
  }
  return ScheduleValidator;
}

const rule = (groups: string[], versions: string[], resources: string[]): RuleOptions => ({ groups, versions, resources, operations: ['CREATE'] });
const cronJob = (typeMeta: { apiVersion?: string; kind?: string } = {}): CronJob => ({ ...typeMeta, metadata: { name: 'nightly', namespace: 'jobs' }, spec: { schedule: 'often' } });

/** The complete decision for an invalid schedule, with the kind the API server puts into the message. */
function invalidSchedule(uid: string, group: string, kind: string, qualifiedKind: string) {
  const cause = { reason: 'FieldValueInvalid', message: 'Invalid value: "often": must be a cron schedule of five fields', field: 'spec.schedule' };
  const message = `${qualifiedKind} "nightly" is invalid: spec.schedule: Invalid value: "often": must be a cron schedule of five fields`;
  return {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message,
    causes: [cause],
    warnings: [],
    patch: [],
    patched: undefined,
    response: {
      uid,
      allowed: false,
      status: { metadata: {}, status: 'Failure', code: 422, reason: 'Invalid', message, details: { name: 'nightly', ...(group ? { group } : {}), kind, causes: [cause] } },
    },
  };
}

describe('runWebhook: the kind of a test object without apiVersion or kind', () => {
  it('takes group and version from the rules and the kind from the object (a custom resource)', async () => {
    const validator = scheduleValidator([rule(['batch.tutorial.kubebuilder.io'], ['v1'], ['cronjobs'])]);
    const decision = await runWebhook(validator, { object: cronJob({ kind: 'CronJob' }) });
    expect(decision).toEqual(invalidSchedule(decision.response.uid, 'batch.tutorial.kubebuilder.io', 'CronJob', 'CronJob.batch.tutorial.kubebuilder.io'));
  });

  it('takes all of it from the rules for a built-in resource, in the core group too', async () => {
    const batch = await runWebhook(scheduleValidator([rule(['batch'], ['v1'], ['cronjobs', 'cronjobs/status'])]), { object: cronJob() });
    expect(batch).toEqual(invalidSchedule(batch.response.uid, 'batch', 'CronJob', 'CronJob.batch'));
    const core = await runWebhook(scheduleValidator([rule([''], ['v1'], ['configmaps'])]), { object: cronJob() });
    expect(core).toEqual(invalidSchedule(core.response.uid, '', 'ConfigMap', 'ConfigMap'));
  });

  it.each<[string, RuleOptions[], CronJob, string]>([
    [
      'a custom resource without kind',
      [rule(['batch.tutorial.kubebuilder.io'], ['v1'], ['cronjobs'])],
      cronJob(),
      `kind: cronjobs.batch.tutorial.kubebuilder.io is not a built-in resource, and a kind's spelling (CronJob, not Cronjob) is not in its resource name`,
    ],
    ['several versions', [rule(['batch'], ['v1', 'v1beta1'], ['cronjobs'])], cronJob({ kind: 'CronJob' }), `apiVersion: the webhook's rules name the versions "v1", "v1beta1"`],
    ['groups across rules', [rule(['batch'], ['v1'], ['cronjobs']), rule(['apps'], ['v1'], ['deployments'])], cronJob(), `apiVersion: the webhook's rules name the groups "batch", "apps"`],
    ['several resources', [rule(['batch'], ['v1'], ['cronjobs', 'jobs'])], cronJob({ apiVersion: 'batch/v1' }), `kind: the webhook's rules name the resources "cronjobs", "jobs"`],
    ['a wildcard', [rule(['*'], ['v1'], ['cronjobs'])], cronJob(), `apiVersion: the webhook's rules name the groups "*"`],
  ])('refuses, saying what to set, when the rules cannot tell: %s', async (_case, rules, object, problem) => {
    await expect(runWebhook(scheduleValidator(rules), { object })).rejects.toThrow(
      new TypeError(`shaper-gen/testing: cannot tell the test object's ${problem}; set apiVersion and kind on the test object`),
    );
  });
});
