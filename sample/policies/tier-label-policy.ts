import { ValidatingPolicy } from 'shaper-gen';
import { TIER_LABEL } from '../api/group.js';

/**
 * Workloads select Profiles by the tier label: where a Deployment or a Pod
 * carries it, its value must be a tier that exists.
 */
@ValidatingPolicy({
  rules: [
    { groups: ['apps'], versions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] },
    { groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE', 'UPDATE'] },
  ],
  objectSelector: { matchExpressions: [{ key: TIER_LABEL, operator: 'Exists' }] },
  validations: [
    {
      expression: `object.metadata.labels['${TIER_LABEL}'] in ['bronze', 'silver', 'gold']`,
      messageExpression: `'label ${TIER_LABEL} must be one of bronze, silver, gold, got ' + object.metadata.labels['${TIER_LABEL}']`,
    },
  ],
})
export class TierLabelPolicy {}
