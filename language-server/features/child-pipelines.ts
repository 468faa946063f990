/**
 * Workspace awareness for `dot_file` sub-pipelines: a parent shows whether its children are
 * valid, children that are not open still get their diagnostics, and the server knows which
 * open parents to re-check when a child changes.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import type { Diagnostic } from '../../engine/model/diagnostics';
import { valueSpanOf } from '../../engine/model/graph';
import type { SourceRange } from '../../engine/model/source';
import type { Checker } from '../analysis/checker';
import type { DocumentView } from '../analysis/document-analysis';
import { locatedModel } from '../analysis/document-analysis';
import { toLspRange } from '../lsp-convert';
import { toLspDiagnostic } from './diagnostics';

export interface ChildReference {
  readonly nodeId: string;
  readonly path: string;
  readonly uri: string;
  readonly range: SourceRange;
}

/** Whether a text can name a sub-pipeline at all: most do not, and need neither a view nor the model's graphs after a check. */
export function mayReferenceChildren(text: string): boolean {
  return text.includes('dot_file');
}

export async function childReferences(analysis: DocumentView): Promise<ChildReference[]> {
  if (!mayReferenceChildren(analysis.text) || !analysis.sourcePath) return [];
  const graphs = await locatedModel(analysis)?.graphs();
  if (!graphs) return [];
  const dir = path.dirname(analysis.sourcePath);
  const references: ChildReference[] = [];
  for (const node of graphs.parsed.nodes.values()) {
    const attribute = node.attributes.get('dot_file');
    const valueSpan = attribute && valueSpanOf(attribute);
    if (!attribute?.value.trim() || !valueSpan || attribute.origin !== 'explicit') continue;
    const childPath = path.resolve(dir, attribute.value.trim());
    references.push({ nodeId: node.id, path: childPath, uri: pathToFileURL(childPath).href, range: analysis.lineIndex.rangeOf(valueSpan) });
  }
  return references;
}

export interface ChildCheck {
  readonly reference: ChildReference;
  /** The child's own diagnostics, located in the child. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Lints each child (its open text when `readText` has it, else the file); unreadable children are the lint rules' business. */
export async function checkChildren(references: readonly ChildReference[], readText: (reference: ChildReference) => string | undefined, checker: Checker): Promise<ChildCheck[]> {
  const checks: ChildCheck[] = [];
  for (const reference of references) {
    const text = readText(reference);
    if (text === undefined) continue;
    const diagnostics = await checker.check({ uri: reference.uri, version: 0, text, sourcePath: reference.path, diagnosticsOnly: true }).diagnostics;
    if (diagnostics) checks.push({ reference, diagnostics });
  }
  return checks;
}

/** A diagnostic on the parent's `dot_file` value when the child pipeline would not pass validation. */
export function parentDiagnostic(check: ChildCheck, parentUri: string, rulesDocUri: string | undefined): LspDiagnostic | undefined {
  const errors = check.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0];
  if (!first) return undefined;
  const name = path.basename(check.reference.path);
  const diagnostic: Diagnostic = {
    rule: 'child_pipeline',
    severity: 'error',
    message: `Sub-pipeline \`${name}\` of node \`${check.reference.nodeId}\` has ${errors.length} error${errors.length === 1 ? '' : 's'}: ${first.message}`,
    nodeId: check.reference.nodeId,
    range: check.reference.range,
  };
  const related = errors.flatMap((error) => (error.range ? [{ message: error.message, location: { uri: check.reference.uri, range: toLspRange(error.range) } }] : []));
  return { ...toLspDiagnostic(diagnostic, parentUri, rulesDocUri, check.reference.range), ...(related.length > 0 ? { relatedInformation: related } : {}) };
}
