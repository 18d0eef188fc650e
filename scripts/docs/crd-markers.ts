/**
 * docs/reference/crd-markers.md from the marker table the generator reads
 * (generator/src/crd/marker-definitions.ts): every `@shaper:` marker,
 * where it goes, what argument it takes and what it writes into the CRD.
 */
import { MARKERS, PLACE_WORDS, type ArgumentSpec, type MarkerPlace } from '../../generator/src/crd/marker-definitions.ts';
import { code, generatedHeader, paragraph, table } from './markdown.ts';

const SECTIONS: readonly { readonly place: MarkerPlace; readonly title: string }[] = [
  { place: 'package', title: 'API package (group and version)' },
  { place: 'kind', title: 'Kind' },
  { place: 'schema', title: 'Schema (fields and the types they use)' },
];

/** How the argument is written, for the table. */
function argumentSyntax(spec: ArgumentSpec): string {
  switch (spec.kind) {
    case 'flag':
      return '—';
    case 'number':
      return code('<number>');
    case 'count':
      return code('<whole number>');
    case 'string':
      return code('<text>');
    case 'value':
      return code('<JSON or word>');
    case 'list':
      return code('<a>;<b>;…');
    case 'word':
      return spec.words.map((word) => code(word)).join(' | ');
    case 'keys': {
      const keys = Object.entries(spec.keys).map(([key, value]) => code(`${key}=…`) + (value.required ? ' (required)' : ''));
      return [...(spec.positional ? [spec.positional.map((word) => code(word)).join(' | ')] : []), ...keys].join(', ');
    }
  }
}

export function crdMarkersPage(): string {
  const sections = SECTIONS.flatMap(({ place, title }) => [
    `## ${title}`,
    '',
    `Written ${PLACE_WORDS[place]}.`,
    '',
    table(
      ['marker', 'argument', 'writes', 'meaning'],
      MARKERS.filter((marker) => marker.place === place).map((marker) => [
        code(`@shaper:${marker.name}`) + (marker.repeatable ? ' (repeatable)' : ''),
        argumentSyntax(marker.argument),
        marker.writes,
        marker.help,
      ]),
    ),
    '',
  ]);
  return `${[
    generatedHeader('CRD markers', ['generator/src/crd/marker-definitions.ts']),
    '',
    paragraph(`JSDoc tags that ${code('shaper-gen manifests')} reads to write a CustomResourceDefinition from TypeScript
      types, one per line: ${code('@shaper:<name> <argument>')}. A string with spaces at its ends is written as a JSON
      string (${code('"…"')}); in ${code('key=value')} arguments a value with spaces is quoted the same way. Any value may
      be ${code('{@link NAME}')} to use the value of the const NAME, evaluated at build time like ${code('@Webhook')}
      options. How types map to the schema, and a worked example: [the CRD guide](../guides/crds.md).`),
    '',
    ...sections,
  ]
    .join('\n')
    .trimEnd()}\n`;
}
