import path from 'node:path';
import { attractorify } from './attractorify';
import type { ChatModel, ChatTurn } from './chat-model';
import { configureModelHelp, vscodeChatModel } from './chat-model';
import type { Cancellation, ChatDeps, ChatHistoryTurn, ChatRequestLike, ResponseStreamLike } from './chat-types';
import { formatLintResult, lintEntries, lintPipelineTool } from './lint-tool';
import { analyzePipeline, formatFacts } from './pipeline-facts';
import type { PipelineToolInput } from './pipeline-input';
import { runPipelineTool } from './run-tool';
import { workspaceSummary } from './workspace-summary';
import { READ_LIMITS, readFileChecked } from '../../engine/io/read-file-checked';

/** The chat's selected model when there is one, else our configured provider, else none. */
function chooseModel(request: ChatRequestLike, deps: ChatDeps, cancel: Cancellation): ChatModel | undefined {
  if (request.model && deps.messages) return vscodeChatModel(request.model, deps.messages, cancel.token);
  return deps.providerModel();
}

/** Prior turns as plain text: requests, and the markdown of responses. */
function conversationOf(history: readonly ChatHistoryTurn[]): ChatTurn[] {
  return history.flatMap((turn): ChatTurn[] => {
    if ('prompt' in turn) return [{ role: 'user', text: `${turn.command ? `/${turn.command} ` : ''}${turn.prompt}` }];
    const text = turn.response.map(markdownOf).filter(Boolean).join('');
    return text ? [{ role: 'assistant', text }] : [];
  });
}

function markdownOf(part: unknown): string {
  const value = (part as { value?: unknown }).value;
  if (typeof value === 'string') return value;
  const inner = (value as { value?: unknown } | undefined)?.value;
  return typeof inner === 'string' ? inner : '';
}

/**
 * `/run file.dot key=value …`, `/lint file.dot`, `/explain file.dot`: a named file, else the
 * active `.dot` editor.
 */
function pipelineTarget(prompt: string, deps: ChatDeps): PipelineToolInput | undefined {
  const words = prompt.trim().split(/\s+/).filter(Boolean);
  const params = Object.fromEntries(words.flatMap((word) => {
    const match = /^([A-Za-z_][\w.]*)=(.*)$/.exec(word);
    return match ? [[match[1] as string, match[2] as string]] : [];
  }));
  const file = words.find((word) => word.endsWith('.dot')) ?? deps.activePipeline()?.path;
  if (!file) return undefined;
  return { dot_file: file, ...(Object.keys(params).length > 0 ? { params } : {}) };
}

const noTarget = 'Name a pipeline (`/run pipeline.dot goal="…"`) or open a `.dot` file in the editor first.';

export async function handleChatRequest(request: ChatRequestLike, history: readonly ChatHistoryTurn[], stream: ResponseStreamLike, cancel: Cancellation, deps: ChatDeps): Promise<{ readonly metadata: { readonly command: string } }> {
  const command = request.command ?? 'ask';
  const done = { metadata: { command } };
  if (command === 'lint' || command === 'run') {
    const target = pipelineTarget(request.prompt, deps);
    if (!target) {
      stream.markdown(noTarget);
      return done;
    }
    if (command === 'lint') {
      stream.markdown(formatLintResult(lintPipelineTool(target, deps.workspaceRoot())));
      return done;
    }
    const result = await runPipelineTool(target, { trusted: deps.trusted(), workspaceRoot: deps.workspaceRoot(), runner: deps.runner, signal: cancel.signal, onProgress: (line) => stream.progress(line) });
    const summary = result.status === 'refused' ? `**Not run:** ${result.failure_reason}` : `**${result.status}**${result.failure_reason ? `: ${result.failure_reason}` : ''} after ${result.iterations} iteration(s)`;
    stream.markdown(`${summary}\n\n\`\`\`json\n${JSON.stringify(result, null, 2)}\n\`\`\`\n`);
    return done;
  }
  if (command === 'explain') {
    await explain(request, stream, cancel, deps);
    return done;
  }
  const model = chooseModel(request, deps, cancel);
  if (!model) {
    stream.markdown(configureModelHelp);
    return done;
  }
  const conversation = conversationOf(history);
  if (command === 'attractorify') {
    await attractorify({ request: request.prompt, conversation, workspace: workspaceSummary(deps.workspaceRoot()), expertPrompt: deps.expertPrompt() }, model, stream, cancel);
    return done;
  }
  for await (const chunk of model.complete(deps.expertPrompt(), [...conversation, { role: 'user', text: request.prompt }], cancel.signal)) stream.markdown(chunk);
  return done;
}

async function explain(request: ChatRequestLike, stream: ResponseStreamLike, cancel: Cancellation, deps: ChatDeps): Promise<void> {
  const target = pipelineTarget(request.prompt, deps);
  const active = deps.activePipeline();
  if (!target?.dot_file) {
    stream.markdown(noTarget);
    return;
  }
  const file = path.resolve(deps.workspaceRoot() ?? process.cwd(), target.dot_file);
  let source = active && path.resolve(active.path) === file ? active.text : undefined;
  try {
    source ??= readFileChecked(file, READ_LIMITS.pipeline);
  } catch (error) {
    stream.markdown((error as Error).message);
    return;
  }
  const analysis = analyzePipeline(source, file);
  if (!analysis.ok) {
    stream.markdown(`\`${path.basename(file)}\` does not parse:\n${lintEntries(analysis.diagnostics).map((d) => `- line ${d.line ?? '?'}: ${d.message}`).join('\n')}`);
    return;
  }
  const facts = formatFacts(analysis.facts);
  const model = chooseModel(request, deps, cancel);
  if (!model) {
    stream.markdown(`${facts}\n\n_${configureModelHelp.split('\n')[0]} The facts above come from the parser and linter alone._`);
    return;
  }
  const question = [
    `Explain the pipeline \`${path.basename(file)}\` to its author: what it converges on, its routes, its gates (are they deterministic and external to the worker?), its budgets, and what each lint finding means and how to fix it. Then apply the three-question test to it.`,
    request.prompt.replace(/\S+\.dot\b/, '').trim() ? `They ask: ${request.prompt}` : '',
    `Facts computed by the parser and linter (trust these over your reading of the source):\n${facts}`,
    `Source:\n\`\`\`dot\n${source}\n\`\`\``,
  ].filter(Boolean).join('\n\n');
  for await (const chunk of model.complete(deps.expertPrompt(), [{ role: 'user', text: question }], cancel.signal)) stream.markdown(chunk);
}
