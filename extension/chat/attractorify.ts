import type { ChatModel, ChatTurn } from './chat-model';
import { collect } from './chat-model';
import type { Cancellation, ResponseStreamLike } from './chat-types';
import { savePipelineCommand } from './chat-types';
import { lintEntries } from './lint-tool';
import { analyzePipeline, convergenceProblems } from './pipeline-facts';

export interface AttractorifyInput {
  readonly request: string;
  readonly conversation: readonly ChatTurn[];
  readonly workspace: string;
  readonly expertPrompt: string;
}

/** The model's answer, read against the protocol the expert prompt asks for. */
export type Draft = { readonly verdict: 'no pipeline'; readonly text: string } | { readonly verdict: 'pipeline'; readonly text: string; readonly dot: string | undefined };

function readDraft(answer: string): Draft {
  const verdict = /VERDICT:\s*(no pipeline|pipeline)/i.exec(answer)?.[1]?.toLowerCase();
  const dot = /```(?:dot|graphviz)?\s*\n(digraph[\s\S]*?)```/.exec(answer)?.[1];
  const text = answer.replace(/^.*VERDICT:.*\n?/im, '').trim();
  if (verdict === 'no pipeline' || (verdict === undefined && dot === undefined)) return { verdict: 'no pipeline', text };
  return { verdict: 'pipeline', text, dot };
}

/** Lint errors plus the structural half of the three-question test; empty when the draft may be shown as is. */
function draftProblems(dot: string | undefined): string[] {
  if (dot === undefined) return ['the answer has no ```dot block with the digraph'];
  const analysis = analyzePipeline(dot);
  if (!analysis.ok) return lintEntries(analysis.diagnostics).map((d) => `line ${d.line ?? '?'}: ${d.rule}: ${d.message}`);
  const errors = lintEntries(analysis.facts.diagnostics.filter((d) => d.severity === 'error')).map((d) => `line ${d.line ?? '?'}: ${d.code ?? d.rule}: ${d.message}`);
  return [...errors, ...convergenceProblems(analysis.facts)];
}

function userMessage(input: AttractorifyInput): string {
  const conversation = input.conversation.map((turn) => `${turn.role === 'user' ? 'User' : 'Assistant'}: ${turn.text}`).join('\n\n');
  return [
    '/attractorify: decide whether the work in this session wants an Attractor pipeline, and draft one if it does.',
    input.request.trim() ? `The user adds: ${input.request.trim()}` : '',
    `Conversation so far:\n${conversation || '(empty)'}`,
    `Workspace:\n${input.workspace}`,
    'Answer in the form your instructions give (first line VERDICT: ...).',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/**
 * Asks the model, lints any draft with our own linter, feeds errors back once, and shows the
 * result with buttons to save it (which opens the graph view).
 */
export async function attractorify(input: AttractorifyInput, model: ChatModel, stream: ResponseStreamLike, cancel: Cancellation): Promise<Draft> {
  stream.progress(`Applying the three-question test with ${model.name}…`);
  const turns: ChatTurn[] = [{ role: 'user', text: userMessage(input) }];
  let answer = await collect(model.complete(input.expertPrompt, turns, cancel.signal));
  let draft = readDraft(answer);
  let problems = draft.verdict === 'pipeline' ? draftProblems(draft.dot) : [];
  if (problems.length > 0) {
    stream.progress('The draft did not pass the linter; asking for a corrected one…');
    turns.push({ role: 'assistant', text: answer }, { role: 'user', text: `Our linter rejected the draft:\n${problems.map((p) => `- ${p}`).join('\n')}\nFix these and answer again in the same form.` });
    answer = await collect(model.complete(input.expertPrompt, turns, cancel.signal));
    draft = readDraft(answer);
    problems = draft.verdict === 'pipeline' ? draftProblems(draft.dot) : [];
  }
  if (draft.verdict === 'no pipeline') {
    stream.markdown(`**Verdict: no pipeline.** A pipeline would be ceremony here.\n\n${draft.text}`);
    return draft;
  }
  const prose = draft.text.replace(/```(?:dot|graphviz)?\s*\n[\s\S]*?```/, '').trim();
  stream.markdown(`**Verdict: pipeline.**\n\n${prose}\n\n\`\`\`dot\n${(draft.dot ?? '').trimEnd()}\n\`\`\`\n`);
  if (problems.length > 0) {
    stream.markdown(`\n**The draft still fails our checks**, so it is not offered for saving:\n${problems.map((p) => `- ${p}`).join('\n')}\n`);
    return draft;
  }
  const analysis = analyzePipeline(draft.dot ?? '');
  const warnings = analysis.ok ? lintEntries(analysis.facts.diagnostics) : [];
  stream.markdown(warnings.length === 0 ? '\nLinted with Attractor\'s own rules: no findings.\n' : `\nLinted: no errors; ${warnings.map((d) => `line ${d.line ?? '?'} \`${d.code ?? d.rule}\` ${d.message}`).join('; ')}\n`);
  const name = analysis.ok && analysis.facts.name ? analysis.facts.name : 'pipeline';
  stream.button({ command: savePipelineCommand, title: 'Save and open graph view', arguments: [draft.dot, `${name}.dot`] });
  return draft;
}
