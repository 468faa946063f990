// Canonical §2.12 and §8: model_stylesheet selectors as the transform applies them — `*`, `.class`
// (written or derived from a subgraph's label), `#id` — by specificity, never over a node's own value;
// and §9.3's custom transforms after the built-ins.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { setAttribute, withNodeAttributes } from '../../../engine/model/graph';
import { preparePipeline } from '../../../engine/prepare';
import { parseStylesheet, resolveStyle, styleResolver } from '../../../engine/transform/stylesheet';
import type { Transform } from '../../../engine/transform/transform';

const source = `digraph styled {
  graph [model_stylesheet="* { llm_model: m-any; } .fast { llm_model: m-fast; reasoning_effort: low; } #special { llm_model: m-special; }"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  plain [prompt="p"]
  quick [prompt="q", class="fast"]
  special [prompt="s", class="fast"]
  own [prompt="o", class="fast", llm_model="m-own"]
  subgraph cluster_loop {
    label="fast"
    inner [prompt="i"]
  }
  start -> plain -> quick -> special -> own -> inner -> done
}`;

test("model_stylesheet: #id beats .class beats *, a node's own attribute beats them all, a subgraph label is a class", () => {
  const { graph, diagnostics } = preparePipeline(source);
  assert.deepEqual(diagnostics.filter((d) => d.severity === 'error'), []);
  const model = (id: string) => graph?.nodes.get(id)?.attributes.get('llm_model')?.value;
  assert.equal(model('plain'), 'm-any');
  assert.equal(model('quick'), 'm-fast');
  assert.equal(graph?.nodes.get('quick')?.attributes.get('reasoning_effort')?.value, 'low');
  assert.equal(model('special'), 'm-special');
  assert.equal(model('own'), 'm-own');
  assert.equal(model('inner'), 'm-fast');
});

test('custom transforms (canonical §9.3) run after the built-ins, in registration order', () => {
  const seen: string[] = [];
  const stamp = (suffix: string): Transform => ({
    name: `stamp${suffix}`,
    apply(graph) {
      seen.push(graph.nodes.get('plain')?.attributes.get('llm_model')?.value ?? '(none)');
      const updates = new Map([...graph.nodes.values()].filter((node) => node.attributes.has('prompt')).map((node) => {
        const prompt = node.attributes.get('prompt');
        return [node.id, setAttribute(node.attributes, { ...(prompt ?? { key: 'prompt', quoted: true }), value: `${prompt?.value ?? ''}${suffix}`, origin: 'transform' as const })];
      }));
      return { graph: withNodeAttributes(graph, updates), diagnostics: [] };
    },
  });
  const { graph } = preparePipeline(source, { transforms: [stamp('!'), stamp('?')] });
  assert.deepEqual(seen, ['m-any', 'm-any'], 'the stylesheet (a built-in) has run before either');
  assert.equal(graph?.nodes.get('plain')?.attributes.get('prompt')?.value, 'p!?');
  assert.equal(preparePipeline(source).graph?.nodes.get('plain')?.attributes.get('prompt')?.value, 'p');
});

test('the graph-wide style resolver gives every node what resolveStyle gives it alone, nodes matched by the same rules sharing one answer', () => {
  const names = fc.constantFrom('a', 'b', 'box', 'diamond', 'fast');
  const selector = fc.oneof(fc.constant('*'), names, names.map((name) => `.${name}`), names.map((name) => `#${name}`));
  const declaration = fc.tuple(fc.constantFrom('llm_model', 'llm_provider', 'reasoning_effort'), fc.constantFrom('x', 'y', 'z')).map(([property, value]) => `${property}: ${value};`);
  const sheet = fc.array(fc.tuple(selector, fc.array(declaration, { minLength: 1, maxLength: 3 })).map(([head, body]) => `${head} { ${body.join(' ')} }`), { maxLength: 6 });
  const target = fc.record({ id: names, shape: names, classes: fc.uniqueArray(names, { maxLength: 3 }) });
  fc.assert(
    fc.property(sheet, fc.array(target, { minLength: 1, maxLength: 8 }), (rules, targets) => {
      const stylesheet = parseStylesheet(rules.join(' '));
      const resolve = styleResolver(stylesheet);
      for (const node of targets) assert.deepEqual([...resolve(node)], [...resolveStyle(stylesheet, node)]);
    }),
    { numRuns: 300 },
  );
});
