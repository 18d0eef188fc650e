/**
 * Options this project names otherwise than the Kubernetes API does, by the
 * API's name: a user who writes a rule as every YAML policy does
 * (`apiGroups`, `apiVersions`) is told the name here in one line
 * (check.ts, checkKeys), not that "groups" is missing.
 */
import type { ApiSpellings } from './check.js';

/** admissionregistration.k8s.io's RuleWithOperations and NamedRuleWithOperations. */
export const RULE_SPELLINGS: ApiSpellings = { apiGroups: 'groups', apiVersions: 'versions' };

/** rbac.authorization.k8s.io's PolicyRule. */
export const RBAC_RULE_SPELLINGS: ApiSpellings = { apiGroups: 'groups' };

/** A policy's `spec.matchConstraints.resourceRules`, which the decorators take as `rules`. */
export const POLICY_SPELLINGS: ApiSpellings = { resourceRules: 'rules' };
