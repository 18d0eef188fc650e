/** The chart templates `shaper-gen manifests` writes (besides the CRDs under templates/crds/): every other file of the chart is the user's. */
export const MUTATING_WEBHOOK_CONFIGURATION_FILE = 'mutating-webhook-configuration.yaml';
export const VALIDATING_WEBHOOK_CONFIGURATION_FILE = 'validating-webhook-configuration.yaml';
export const VALIDATING_POLICIES_FILE = 'validating-admission-policies.yaml';
export const MUTATING_POLICIES_FILE = 'mutating-admission-policies.yaml';
export const POLICY_ENFORCEMENT_FILE = '_policy-enforcement.tpl';
export const WEBHOOK_PATHS_FILE = '_webhook-paths.tpl';
export const RBAC_RULES_FILE = '_rbac-rules.tpl';

export const GENERATED_CHART_TEMPLATES: readonly string[] = [
  MUTATING_WEBHOOK_CONFIGURATION_FILE,
  VALIDATING_WEBHOOK_CONFIGURATION_FILE,
  VALIDATING_POLICIES_FILE,
  MUTATING_POLICIES_FILE,
  POLICY_ENFORCEMENT_FILE,
  WEBHOOK_PATHS_FILE,
  RBAC_RULES_FILE,
];
