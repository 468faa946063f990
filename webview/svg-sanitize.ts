// Turns Graphviz's SVG text into a DOM element without ever parsing it as HTML: it goes through the
// XML parser, active content is removed, and only then is it adopted into the page.

const FORBIDDEN_ELEMENTS = ['script', 'foreignObject', 'iframe', 'object', 'embed', 'audio', 'video', 'animate', 'set', 'animateMotion', 'animateTransform', 'style'];

class SvgParseError extends Error {}

export function sanitizeSvg(markup: string, target: Document): SVGSVGElement {
  const parsed = new DOMParser().parseFromString(markup, 'image/svg+xml');
  const root = parsed.documentElement;
  if (parsed.getElementsByTagName('parsererror').length > 0 || root.localName !== 'svg') throw new SvgParseError('Graphviz produced SVG that does not parse');
  for (const name of FORBIDDEN_ELEMENTS) for (const element of Array.from(parsed.getElementsByTagNameNS('*', name))) element.remove();
  for (const element of Array.from(parsed.getElementsByTagName('*'))) {
    for (const attribute of Array.from(element.attributes)) {
      const name = attribute.localName.toLowerCase();
      const isLink = name === 'href' || name === 'src';
      if (name.startsWith('on') || (isLink && !attribute.value.startsWith('#')) || name === 'style') element.removeAttributeNode(attribute);
    }
  }
  return target.importNode(root, true) as unknown as SVGSVGElement;
}
