// Generates syntaxes/attractor-dot.tmLanguage.json from the attribute table, so the highlighter
// knows exactly the attributes the engine knows. `--check` fails when the committed file is stale.
import fs from 'node:fs';
import path from 'node:path';
import { attributeTable } from '../engine/model/attributes';
import { shapes } from '../engine/model/handler-types';

const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternation = (names: readonly string[]) => [...names].sort((a, b) => b.length - a.length).map(escape).join('|');

const attractorKeys = attributeTable.filter((s) => s.type.kind !== 'graphviz').map((s) => s.name);
const graphvizKeys = attributeTable.filter((s) => s.type.kind === 'graphviz').map((s) => s.name);
const conditionKeys = attributeTable.filter((s) => s.type.kind === 'condition').map((s) => s.name);
const commandKeys = attributeTable.filter((s) => s.type.kind === 'command').map((s) => s.name);
const textKeys = attributeTable.filter((s) => s.type.kind === 'text' || s.name === 'label').map((s) => s.name);

const variables = { match: '\\$\\{[A-Za-z_][A-Za-z0-9_.]*\\}|\\$[A-Za-z_][A-Za-z0-9_]*', name: 'variable.other.attractor' };
const escapes = { match: '\\\\.', name: 'constant.character.escape.dot' };

const quotedWith = (keys: readonly string[], inner: object[], contentName: string) => ({
  begin: `(?<![A-Za-z0-9_.])(${alternation(keys)})\\s*(=)\\s*(")`,
  beginCaptures: {
    '1': { name: 'support.type.property-name.attractor.dot' },
    '2': { name: 'keyword.operator.assignment.dot' },
    '3': { name: 'punctuation.definition.string.begin.dot' },
  },
  end: '"',
  endCaptures: { '0': { name: 'punctuation.definition.string.end.dot' } },
  contentName,
  patterns: [escapes, ...inner],
});

const grammar = {
  $schema: 'https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json',
  name: 'Attractor DOT',
  scopeName: 'source.dot.attractor',
  fileTypes: ['dot', 'gv'],
  patterns: [
    { include: '#comments' },
    { include: '#keywords' },
    { include: '#condition-attribute' },
    { include: '#command-attribute' },
    { include: '#text-attribute' },
    { include: '#attribute-key' },
    { include: '#shape-value' },
    { include: '#strings' },
    { include: '#html' },
    { include: '#edge-operator' },
    { include: '#constants' },
    { include: '#identifiers' },
    { include: '#punctuation' },
  ],
  repository: {
    comments: {
      patterns: [
        { begin: '/\\*', end: '\\*/', name: 'comment.block.dot' },
        { match: '//.*$', name: 'comment.line.double-slash.dot' },
        { match: '^\\s*#.*$', name: 'comment.line.number-sign.dot' },
      ],
    },
    keywords: { match: '\\b(?i:strict|digraph|graph|subgraph|node|edge)\\b', name: 'storage.type.dot' },
    'condition-attribute': quotedWith(
      conditionKeys,
      [
        { match: '&&', name: 'keyword.operator.logical.attractor' },
        { match: '!=|=', name: 'keyword.operator.comparison.attractor' },
        { match: '\\b(outcome|preferred_label)\\b', name: 'variable.language.attractor' },
        { match: '\\bcontext(\\.)[A-Za-z_][A-Za-z0-9_.]*', name: 'variable.other.context.attractor' },
        { match: '\\b(success|partial_success|retry|fail|skipped)\\b', name: 'constant.language.status.attractor' },
      ],
      'meta.condition.attractor',
    ),
    'command-attribute': quotedWith(commandKeys, [variables], 'meta.embedded.shell.attractor'),
    'text-attribute': quotedWith(textKeys, [variables], 'string.quoted.double.dot'),
    'attribute-key': {
      patterns: [
        { match: `(?<![A-Za-z0-9_.])(${alternation(attractorKeys)})(?=\\s*=)`, name: 'support.type.property-name.attractor.dot' },
        { match: `(?<![A-Za-z0-9_.])(${alternation(graphvizKeys)})(?=\\s*=)`, name: 'support.type.property-name.graphviz.dot' },
        { match: '(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.]*(?=\\s*=)', name: 'variable.other.property.dot' },
      ],
    },
    'shape-value': {
      match: `(?<=shape\\s*=\\s*"?)(${alternation(shapes.map((s) => s.shape))})\\b`,
      name: 'constant.language.shape.attractor',
    },
    strings: { begin: '"', end: '"', name: 'string.quoted.double.dot', patterns: [escapes, variables] },
    html: { begin: '<', end: '>', name: 'invalid.illegal.html-label.attractor' },
    'edge-operator': { match: '->|--', name: 'keyword.operator.edge.dot' },
    constants: {
      patterns: [
        { match: '\\b(true|false)\\b', name: 'constant.language.boolean.dot' },
        { match: '(?<![A-Za-z_])-?\\d+(\\.\\d+)?(ms|s|m|h|d)?\\b', name: 'constant.numeric.dot' },
      ],
    },
    identifiers: { match: '[A-Za-z_][A-Za-z0-9_]*', name: 'entity.name.tag.node.dot' },
    punctuation: {
      patterns: [
        { match: '[{}]', name: 'punctuation.section.block.dot' },
        { match: '[\\[\\]]', name: 'punctuation.section.brackets.dot' },
        { match: '[;,]', name: 'punctuation.separator.dot' },
        { match: '=', name: 'keyword.operator.assignment.dot' },
      ],
    },
  },
};

const target = path.join(__dirname, '..', 'syntaxes', 'attractor-dot.tmLanguage.json');
const text = `${JSON.stringify(grammar, null, 2)}\n`;
if (process.argv.includes('--check')) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (current !== text) {
    console.error(`${path.relative(process.cwd(), target)} is stale: run node --import tsx scripts/generate-grammar.ts`);
    process.exit(1);
  }
} else {
  fs.writeFileSync(target, text);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}
