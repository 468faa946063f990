import type { AttributeSpec, ValueType } from '../../engine/model/attributes';

function describeValueType(type: ValueType): string {
  switch (type.kind) {
    case 'enum':
      return `${type.values.map((v) => v.value).join(' | ')}${type.open ? ' | …' : ''}`;
    case 'integer':
      return type.min !== undefined ? `integer ≥ ${type.min}` : 'integer';
    case 'number':
      return `number${type.min !== undefined ? ` ≥ ${type.min}` : ''}${type.max !== undefined ? ` ≤ ${type.max}` : ''}`;
    case 'duration':
      return `duration (bare number = ${type.bareUnit})`;
    case 'node-ref':
      return 'node id';
    case 'node-ref-list':
      return 'node ids';
    case 'key-list':
      return 'context keys, comma-separated';
    case 'path-list':
      return 'paths, comma-separated';
    case 'graphviz':
      return 'Graphviz attribute';
    default:
      return type.kind;
  }
}

export function describeType(spec: AttributeSpec): string {
  return `${spec.scopes.join('/')} · ${describeValueType(spec.type)}`;
}

/** Markdown for completion documentation and hover, straight from the attribute table. */
export function attributeDocumentation(spec: AttributeSpec): string {
  const lines = [`**${spec.name}** — ${describeValueType(spec.type)}`, '', spec.doc, ''];
  if (spec.aliasOf) lines.push(`Legacy spelling of \`${spec.aliasOf}\`.`, '');
  const facts = [`Applies to: ${spec.scopes.join(', ')}`];
  if (spec.default !== undefined && spec.default !== '') facts.push(`Default: \`${spec.default}\``);
  if (spec.handlers) facts.push(`Handlers: ${spec.handlers.join(', ')}`);
  facts.push(`Spec: ${spec.reference}`);
  lines.push(facts.join(' · '));
  return lines.join('\n');
}
