import { ValidatingPolicy } from 'shaper-gen';

/** ConfigMaps that opt in with the label must name their team in a label; the API server checks it itself, with no webhook call. */
export const OPT_IN_LABEL = 'policies.example.com/validate';
export const TEAM_LABEL = 'example.com/team';

@ValidatingPolicy({
  rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE', 'UPDATE'] }],
  objectSelector: { matchLabels: { [OPT_IN_LABEL]: 'true' } },
  validations: [
    {
      expression: `'${TEAM_LABEL}' in object.metadata.labels && object.metadata.labels['${TEAM_LABEL}'] != ''`,
      message: `ConfigMaps labelled ${OPT_IN_LABEL}=true must name their team in the label ${TEAM_LABEL}`,
    },
  ],
})
export class ConfigMapTeamPolicy {}
