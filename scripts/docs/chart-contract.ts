/**
 * docs/reference/chart-contract.md: what the generated templates need from the
 * chart they are written into, from CHART_CONTRACT (the list `shaper-gen
 * manifests` checks, generator/src/chart/chart-contract.ts) and the JSDoc
 * on its keys; each value's meaning and default come from the sample chart's
 * values.yaml, as on the chart values page.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { CHART_CONTRACT, CHART_CONTRACT_HINT } from '../../generator/src/chart/chart-contract.ts';
import { readValueDocs } from './chart-values.ts';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';

const SOURCE = 'generator/src/chart/chart-contract.ts';
const VALUES_FILE = 'charts/shaper-webhooks/values.yaml';

/** CHART_CONTRACT's keys → their JSDoc. */
function contractComments(root: string): Map<string, string> {
  const file = path.join(root, SOURCE);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const comments = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'CHART_CONTRACT' && node.initializer) {
      let object: ts.Expression = node.initializer;
      while (ts.isAsExpression(object) || ts.isSatisfiesExpression(object)) object = object.expression;
      if (!ts.isObjectLiteralExpression(object)) return;
      for (const property of object.properties.filter(ts.isPropertyAssignment)) {
        const doc = ts
          .getJSDocCommentsAndTags(property)
          .filter(ts.isJSDoc)
          .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? '');
        comments.set(property.name.getText(source), paragraph(doc));
      }
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  for (const key of Object.keys(CHART_CONTRACT)) {
    if (!comments.get(key)) throw new Error(`scripts/docs: CHART_CONTRACT.${key} in ${SOURCE} has no JSDoc`);
  }
  return comments;
}

export function chartContractPage(root: string): string {
  const comments = contractComments(root);
  const values = new Map(readValueDocs(readFileSync(path.join(root, VALUES_FILE), 'utf8')).map((doc) => [doc.key, doc]));
  const rows = (keys: readonly string[]) =>
    keys.map((key) => {
      const doc = values.get(key);
      if (!doc) throw new Error(`scripts/docs: the chart contract names ${key}, which ${VALUES_FILE} does not declare`);
      return [code(key), doc.type, code(literal(doc.default)), doc.description || '—'];
    });
  const valueRows = rows(CHART_CONTRACT.values);
  const certificate = `<fullname>${CHART_CONTRACT.servingCertificateSuffix}`;
  const rbacHelper = `<chart>.${CHART_CONTRACT.rbacHelper}`;
  return `${[
    generatedHeader('Chart contract', [SOURCE, VALUES_FILE]),
    '',
    paragraph(`${code('shaper-gen manifests')} writes the webhook configurations into a Helm chart's ${code('templates/')}, and
      those templates rely on the chart around them. Before writing, it checks the chart for everything below and names
      what is missing, file by file, each message ending with ${code(CHART_CONTRACT_HINT)}.
      A chart from ${code('shaper-gen init')} has all of it; a hand-made or renamed chart needs it too.`),
    '',
    '## Values',
    '',
    paragraph(`${comments.get('values')!} The defaults and meanings are those of the sample's chart (${code(VALUES_FILE)};
      every key: [chart values](chart-values.md)).`),
    '',
    table(['key', 'type', 'default', 'description'], valueRows),
    '',
    paragraph(`${comments.get('crdValues')!} ([CRDs from TypeScript types](../guides/crds.md))`),
    '',
    table(['key', 'type', 'default', 'description'], rows(CHART_CONTRACT.crdValues)),
    '',
    '## Helpers',
    '',
    paragraph(`${comments.get('helpers')!} ${code('<chart name>')} is ${code('Chart.yaml')}'s ${code('name')}: rename the chart and its
      helpers together.`),
    '',
    ...CHART_CONTRACT.helpers.map((helper) => `- ${code(`define "<chart>.${helper}"`)}`),
    '',
    '## Serving certificate',
    '',
    paragraph(`${comments.get('servingCertificateSuffix')!} Some template must make a cert-manager ${code('Certificate')} named
      ${code(certificate)}; the generated configurations carry ${code(`cert-manager.io/inject-ca-from: <namespace>/${certificate}`)}
      when the ${code('caSource')} helper says ${code('cert-manager')}, and ${code('caBundle')} from ${code('webhook.caBundle')} when it
      says ${code('values')} (with ${code('self-managed')}, the server writes ${code('caBundle')} itself).`),
    '',
    '## RBAC rules',
    '',
    paragraph(`${comments.get('rbacHelper')!} Checked only when a webhook declares ${code('rbac')} or ${code('cache')}: some
      template other than the generated one must ${code(`include "${rbacHelper}"`)} (the scaffold's ${code('templates/rbac.yaml')}
      grants them to the server's ServiceAccount).`),
  ].join('\n')}\n`;
}
