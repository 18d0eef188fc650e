import { Denied, Invalid, Webhook, assertValid, field, formatProblemPath, labelSelectorProblems, type AdmissionContext, type CustomValidator, type FieldError, type Warnings } from 'shaper-gen';
import { MAX_WEIGHT, MIN_WEIGHT, type Assignment } from '../api/assignment.js';
import { GROUP, PROTECTED_LABEL, VERSION } from '../api/group.js';
import { PROFILES, type Profile } from '../api/profile.js';

/**
 * An Assignment must point at a Profile that exists in its namespace, select
 * something, keep its profileRef for life, and cannot be deleted while
 * labelled protected.
 */
@Webhook({
  path: '/validate-assignment',
  mutating: false,
  rules: [{ groups: [GROUP], versions: [VERSION], resources: ['assignments'], operations: ['CREATE', 'UPDATE', 'DELETE'], scope: 'Namespaced' }],
  // Fail: admitting an Assignment to a missing Profile, or deleting a protected one, is worse than a retry.
  failurePolicy: 'Fail',
  // The Profile lookup only reads: no side effects, dry-run requests are fine.
  sideEffects: 'None',
  // Reads come from the cache; a miss reads the API server: 10 s covers a slow one without holding requests for the 30 s maximum.
  timeoutSeconds: 10,
  // Profiles are read from the server's informer cache (the chart's ClusterRole gets get, list and watch on them).
  cache: [PROFILES],
})
export class AssignmentValidator implements CustomValidator<Assignment> {
  async validateCreate(assignment: Assignment, ctx: AdmissionContext): Promise<Warnings> {
    assertValid(specErrors(assignment));
    await this.requireProfile(assignment, ctx);
    return weightWarnings(assignment);
  }

  validateUpdate(oldAssignment: Assignment, assignment: Assignment): Warnings {
    const errors = specErrors(assignment);
    const before = oldAssignment.spec?.profileRef?.name;
    const after = assignment.spec?.profileRef?.name;
    if (before !== undefined && after !== before) {
      errors.push(field.invalid('spec.profileRef.name', after ?? null, `field is immutable (was ${JSON.stringify(before)}); create a new Assignment instead`));
    }
    assertValid(errors);
    return weightWarnings(assignment);
  }

  validateDelete(oldAssignment: Assignment): Warnings {
    if (oldAssignment.metadata?.labels?.[PROTECTED_LABEL] === 'true') {
      throw Denied(`Assignment ${JSON.stringify(oldAssignment.metadata.name)} is protected: remove the ${PROTECTED_LABEL} label before deleting it`);
    }
  }

  private async requireProfile(assignment: Assignment, ctx: AdmissionContext): Promise<void> {
    const name = assignment.spec!.profileRef!.name!;
    const namespace = ctx.request.namespace ?? assignment.metadata?.namespace ?? 'default';
    if (!(await this.findProfile(namespace, name, ctx))) {
      throw Invalid(field.notFound('spec.profileRef.name', name, `Profile ${JSON.stringify(name)} does not exist in namespace ${JSON.stringify(namespace)}`));
    }
  }

  /** The Profile, or undefined. A Profile created just before the Assignment is found: a cache miss reads the API server. */
  protected findProfile(namespace: string, name: string, ctx: AdmissionContext): Promise<Profile | undefined> {
    return ctx.cache.get<Profile>(PROFILES, namespace, name);
  }
}

function specErrors(assignment: Assignment): FieldError[] {
  const errors: FieldError[] = [];
  const spec = assignment.spec;
  if (!spec?.profileRef?.name) errors.push(field.required('spec.profileRef.name', 'an Assignment must name the Profile it applies'));
  const selector = spec?.selector;
  if (!selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)) {
    errors.push(field.required('spec.selector', 'must select workloads with matchLabels or matchExpressions; an empty selector would match everything'));
  } else {
    for (const problem of labelSelectorProblems(selector)) errors.push(field.invalid(formatProblemPath(['spec', 'selector', ...problem.path]), undefined, problem.message));
  }
  const weight = spec?.weight;
  if (weight !== undefined && (!Number.isInteger(weight) || weight < MIN_WEIGHT || weight > MAX_WEIGHT)) {
    errors.push(field.invalid('spec.weight', weight, `must be a whole number from ${MIN_WEIGHT} to ${MAX_WEIGHT}`));
  }
  return errors;
}

function weightWarnings(assignment: Assignment): string[] {
  const weight = assignment.spec?.weight;
  if (weight === MIN_WEIGHT) return [`spec.weight is ${MIN_WEIGHT}, the minimum: this profile will barely apply`];
  if (weight === MAX_WEIGHT) return [`spec.weight is ${MAX_WEIGHT}, the maximum: this profile overrides every other assignment`];
  return [];
}
