import assert from 'node:assert/strict';
import type { Diagnostic, Fix } from '../../../engine/model/diagnostics';
import type { PrepareOptions } from '../../../engine/prepare';
import { preparePipeline } from '../../../engine/prepare';

/** lint() through the real pipeline (parse → transform → lint), as the CLI and language server run it. */
export function lintText(text: string, options: PrepareOptions = {}): Diagnostic[] {
  return [...preparePipeline(text, { mode: 'lint', ...options }).diagnostics];
}

export function validateText(text: string, options: PrepareOptions = {}): Diagnostic[] {
  return [...preparePipeline(text, { mode: 'validate', ...options }).diagnostics];
}

/** A pipeline with start and done nodes around `body`. */
export function pipeline(body: string, name = 'G'): string {
  return `digraph ${name} {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${body}\n}\n`;
}

export function byRule(diagnostics: readonly Diagnostic[], rule: string): Diagnostic[] {
  return diagnostics.filter((d) => d.rule === rule || d.code === rule);
}

/** The single diagnostic of `rule`; fails when there is none or more than one. */
export function single(text: string, rule: string, options: PrepareOptions = {}): Diagnostic {
  const found = byRule(lintText(text, options), rule);
  assert.equal(found.length, 1, `expected one ${rule}, got ${JSON.stringify(found.map((d) => d.message))}`);
  return found[0] as Diagnostic;
}

export function none(text: string, rule: string, options: PrepareOptions = {}): void {
  const found = byRule(lintText(text, options), rule);
  assert.deepEqual(found.map((d) => d.message), [], `expected no ${rule}`);
}

/** The source text a diagnostic's range covers, and where it starts (0-based line, character). */
export function located(text: string, diagnostic: Diagnostic): { text: string; line: number; character: number } {
  assert.ok(diagnostic.range, `${diagnostic.rule} has no range`);
  return { text: text.slice(diagnostic.range.start.offset, diagnostic.range.end.offset), line: diagnostic.range.start.line, character: diagnostic.range.start.character };
}

function applyFix(text: string, fix: Fix): string {
  const edits = [...fix.edits].sort((a, b) => b.range.start.offset - a.range.start.offset);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.range.start.offset) + edit.newText + out.slice(edit.range.end.offset);
  return out;
}

/** Applies the diagnostic's fix and checks the rule no longer fires; returns the repaired text. */
export function assertFixRepairs(text: string, diagnostic: Diagnostic, options: PrepareOptions = {}): string {
  assert.ok(diagnostic.fix, `${diagnostic.rule} offers no fix`);
  const repaired = applyFix(text, diagnostic.fix);
  const after = lintText(repaired, options);
  assert.deepEqual(byRule(after, diagnostic.code ?? diagnostic.rule).map((d) => d.message), [], `fix "${diagnostic.fix.title}" left ${diagnostic.rule} in:\n${repaired}`);
  assert.deepEqual(after.filter((d) => d.rule === 'syntax'), [], `fix broke the syntax:\n${repaired}`);
  return repaired;
}
