/**
 * model_stylesheet (canonical §8): `Selector { property: value; ... }` rules with selectors
 * `*`, a shape name, `.class` or `#id`; specificity * < shape < .class < #id; a later rule wins
 * ties; explicit node attributes always win.
 */
import { appendTo } from '../model/append-to';

type Selector =
  | { readonly kind: 'universal' }
  | { readonly kind: 'shape'; readonly shape: string }
  | { readonly kind: 'class'; readonly className: string }
  | { readonly kind: 'id'; readonly id: string };

export const stylesheetProperties = ['llm_model', 'llm_provider', 'reasoning_effort'] as const;
export type StylesheetProperty = (typeof stylesheetProperties)[number];

export interface Declaration {
  readonly property: StylesheetProperty;
  readonly value: string;
  /** Offsets into the stylesheet text. */
  readonly start: number;
  readonly end: number;
}

interface StyleRule {
  readonly selector: Selector;
  readonly selectorText: string;
  readonly declarations: readonly Declaration[];
  readonly start: number;
  readonly end: number;
  /** Position among the rules, for "later wins". */
  readonly order: number;
}

interface StylesheetError {
  readonly message: string;
  readonly start: number;
  readonly end: number;
}

export interface Stylesheet {
  readonly rules: readonly StyleRule[];
  readonly errors: readonly StylesheetError[];
}

export function parseStylesheet(text: string): Stylesheet {
  const rules: StyleRule[] = [];
  const errors: StylesheetError[] = [];
  let i = 0;
  const n = text.length;
  const skip = () => {
    for (;;) {
      while (i < n && /\s/.test(text[i] ?? '')) i++;
      if (text.startsWith('/*', i)) {
        const end = text.indexOf('*/', i + 2);
        i = end < 0 ? n : end + 2;
      } else return;
    }
  };
  const readWord = (pattern: RegExp): string => {
    const start = i;
    while (i < n && pattern.test(text[i] ?? '')) i++;
    return text.slice(start, i);
  };

  while (true) {
    skip();
    if (i >= n) break;
    const ruleStart = i;
    const selector = readSelector();
    if (!selector) {
      const end = text.indexOf('}', i);
      errors.push({ message: `expected a selector (*, a shape, .class or #id) but found \`${text[i]}\``, start: i, end: i + 1 });
      i = end < 0 ? n : end + 1;
      continue;
    }
    const selectorText = text.slice(ruleStart, i);
    skip();
    if (text[i] !== '{') {
      errors.push({ message: `expected \`{\` after selector \`${selectorText}\``, start: i, end: Math.min(i + 1, n) });
      const end = text.indexOf('}', i);
      i = end < 0 ? n : end + 1;
      continue;
    }
    i++;
    const declarations: Declaration[] = [];
    let closed = false;
    while (i < n) {
      skip();
      if (text[i] === '}') {
        i++;
        closed = true;
        break;
      }
      if (text[i] === ';') {
        i++;
        continue;
      }
      const declStart = i;
      const property = readWord(/[A-Za-z0-9_-]/);
      skip();
      if (!property || text[i] !== ':') {
        errors.push({ message: property ? `expected \`:\` after \`${property}\`` : `expected a property but found \`${text[i]}\``, start: declStart, end: Math.max(i, declStart + 1) });
        while (i < n && text[i] !== ';' && text[i] !== '}') i++;
        continue;
      }
      i++;
      skip();
      let value: string;
      if (text[i] === '"' || text[i] === "'") {
        const quote = text[i];
        const close = text.indexOf(quote ?? '"', i + 1);
        if (close < 0) {
          errors.push({ message: 'unterminated string value', start: i, end: n });
          i = n;
          break;
        }
        value = text.slice(i + 1, close);
        i = close + 1;
      } else {
        const valueStart = i;
        while (i < n && text[i] !== ';' && text[i] !== '}') i++;
        value = text.slice(valueStart, i).trim();
      }
      if (!(stylesheetProperties as readonly string[]).includes(property)) {
        errors.push({ message: `unknown property \`${property}\`: a stylesheet sets only ${stylesheetProperties.join(', ')}`, start: declStart, end: declStart + property.length });
      } else if (!value) {
        errors.push({ message: `\`${property}\` needs a value`, start: declStart, end: i });
      } else {
        declarations.push({ property: property as StylesheetProperty, value, start: declStart, end: i });
      }
    }
    if (!closed) errors.push({ message: `rule \`${selectorText}\` is missing its closing \`}\``, start: ruleStart, end: n });
    rules.push({ selector, selectorText, declarations, start: ruleStart, end: i, order: rules.length });
  }
  return { rules, errors };

  function readSelector(): Selector | undefined {
    const c = text[i];
    if (c === '*') {
      i++;
      return { kind: 'universal' };
    }
    if (c === '.') {
      i++;
      const className = readWord(/[A-Za-z0-9_-]/);
      return className ? { kind: 'class', className } : undefined;
    }
    if (c === '#') {
      i++;
      const id = readWord(/[A-Za-z0-9_]/);
      return id ? { kind: 'id', id } : undefined;
    }
    if (c !== undefined && /[A-Za-z_]/.test(c)) return { kind: 'shape', shape: readWord(/[A-Za-z0-9_]/) };
    return undefined;
  }
}

export interface StyleTarget {
  readonly id: string;
  readonly shape: string;
  readonly classes: readonly string[];
}

/** A stylesheet's rules by what their selector names, each list in rule order: a node is matched against its own. */
interface RuleIndex {
  readonly universal: readonly StyleRule[];
  readonly byShape: ReadonlyMap<string, readonly StyleRule[]>;
  readonly byClass: ReadonlyMap<string, readonly StyleRule[]>;
  readonly byId: ReadonlyMap<string, readonly StyleRule[]>;
}

// A parsed stylesheet is immutable: its index is made once, on the first node styled with it.
const indexes = new WeakMap<Stylesheet, RuleIndex>();

function indexOf(stylesheet: Stylesheet): RuleIndex {
  let index = indexes.get(stylesheet);
  if (!index) {
    const universal: StyleRule[] = [];
    const byShape = new Map<string, StyleRule[]>();
    const byClass = new Map<string, StyleRule[]>();
    const byId = new Map<string, StyleRule[]>();
    for (const rule of stylesheet.rules) {
      const { selector } = rule;
      if (selector.kind === 'universal') universal.push(rule);
      else if (selector.kind === 'shape') appendTo(byShape, selector.shape, rule);
      else if (selector.kind === 'class') appendTo(byClass, selector.className, rule);
      else appendTo(byId, selector.id, rule);
    }
    index = { universal, byShape, byClass, byId };
    indexes.set(stylesheet, index);
  }
  return index;
}

/** The rules that match `target`, least specific first and in rule order within a specificity (later wins). */
function matchingRules(stylesheet: Stylesheet, target: StyleTarget): readonly StyleRule[] {
  const index = indexOf(stylesheet);
  const byShape = index.byShape.get(target.shape);
  const byId = index.byId.get(target.id);
  if (target.classes.length === 0 && !byShape && !byId) return index.universal;
  const classRules = target.classes.flatMap((className) => index.byClass.get(className) ?? []);
  if (target.classes.length > 1) classRules.sort((a, b) => a.order - b.order);
  return [...index.universal, ...(byShape ?? []), ...classRules, ...(byId ?? [])];
}

/** The declaration that wins a property on a node, and the rule it came from. */
interface Winner {
  readonly declaration: Declaration;
  readonly rule: StyleRule;
}

/** The winning declaration per property for one node, with the rule it came from. */
export function resolveStyle(stylesheet: Stylesheet, target: StyleTarget): Map<StylesheetProperty, Winner> {
  return winnersOf(matchingRules(stylesheet, target));
}

function winnersOf(rules: readonly StyleRule[]): Map<StylesheetProperty, Winner> {
  const winners = new Map<StylesheetProperty, Winner>();
  for (const rule of rules) for (const declaration of rule.declarations) winners.set(declaration.property, { declaration, rule });
  return winners;
}

/**
 * resolveStyle for every node of a graph: the winners depend only on which rules match, so nodes
 * matched by the same rules (most of a graph: `*` alone, or one class) share one answer, read only.
 */
export function styleResolver(stylesheet: Stylesheet): (target: StyleTarget) => ReadonlyMap<StylesheetProperty, Winner> {
  const { universal } = indexOf(stylesheet);
  const byRules = new Map<readonly StyleRule[] | string, ReadonlyMap<StylesheetProperty, Winner>>();
  return (target) => {
    const rules = matchingRules(stylesheet, target);
    // A node no selector but `*` names gets the universal list itself; other lists are made per node and known by their rules.
    const key = rules === universal ? universal : rules.map((rule) => rule.order).join(',');
    let winners = byRules.get(key);
    if (!winners) {
      winners = winnersOf(rules);
      byRules.set(key, winners);
    }
    return winners;
  };
}
