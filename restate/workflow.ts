import * as restate from '@restatedev/restate-sdk';
import { isStartNode } from '../engine/model/handler-types';
import { isRecord } from '../engine/model/json';
import { KeptWorkspaceStores } from '../engine/runtime/kept-workspace-stores';
import { parseDot } from '../engine/parse/dot-parser';
import type { HumanQuestion } from '../engine/runtime/events';
import type { Answer } from '../engine/runtime/interviewer';
import { parseAnswer } from '../host/protocol/serve-api';
import { advanceRun, cancelRun, type StepEngine, type StepOutcome } from './durable-step';
import type { GateAnswers } from './one-visit';
import { parseRunRequest, type DurableRunResult } from '../host/restate/run-request';
import { RESTATE_SERVICE } from '../host/restate/restate-address';

/** How a run on Restate ended, as `run` returns it and `…/attach` hands it to whoever waits. */
/**
 * The engine as a Restate workflow, one per run (the workflow key is the run id): `run` walks the
 * pipeline one durable step (`ctx.run`) per node visit; a human gate (of the main walk, a fan-out
 * branch or a sub-pipeline) is a durable promise that the
 * shared `answer` handler resolves; Restate's cancel (of the invocation, or through the shared
 * `cancel` handler) settles the run directory as `cancelled`. A run's step taken on the worker that
 * took its last one goes on from the workspace store that step left (KeptWorkspaceStores).
 */
export function attractorWorkflow(worker: StepEngine) {
  const engine: StepEngine = { ...worker, workspaceStores: worker.workspaceStores ?? new KeptWorkspaceStores() };
  return restate.workflow({
    name: RESTATE_SERVICE,
    handlers: {
      run: async (ctx: restate.WorkflowContext, input: unknown): Promise<DurableRunResult> => {
        let request;
        try {
          request = parseRunRequest(input);
        } catch (error) {
          throw new restate.TerminalError((error as Error).message, { errorCode: 400 });
        }
        ctx.set('invocation', ctx.request().id);
        // The step this process walks now: a cancel stops it here, where its tools run.
        const cancel = new AbortController();
        let inFlight: Promise<StepOutcome> | undefined;
        try {
          // The answers of the gates met since the main walk's last boundary: the node in flight may ask several.
          let answers: GateAnswers = {};
          // Each step is named in Restate's journal (and UI) for the node visit it runs: `build@2`.
          const visits = new Map<string, number>();
          const visit = (node: string): string => `${node}@${visits.set(node, (visits.get(node) ?? 0) + 1).get(node)}`;
          let name = visit(startNodeId(request.source));
          for (let step = 1; ; step++) {
            const given = answers;
            const outcome = await ctx.run(name, () => (inFlight = advanceRun(ctx.key, request, engine, `gate-${step}`, given, cancel.signal)));
            if (outcome.kind === 'finished') return outcome;
            if (outcome.kind === 'refused') throw new restate.TerminalError(outcome.reason, { errorCode: 422 });
            if (outcome.kind === 'advanced') {
              answers = {};
              name = visit(outcome.at);
            }
            if (outcome.kind === 'gate') {
              answers = { ...answers, [outcome.key]: [...(answers[outcome.key] ?? []), await awaitAnswer(ctx, outcome.question)] };
              // The same visit again, with the answer.
              name = `${name.replace(/ \(answered.*$/, '')} (answered ${outcome.question.nodeId})`;
            }
          }
        } catch (error) {
          if (!(error instanceof restate.CancelledError)) throw error;
          // Restate gives up on the step at once, but its walk goes on in this process until it is told:
          // stopped, it kills the node's process groups and settles the checkpoint `cancelled`.
          cancel.abort();
          await inFlight?.catch(() => undefined);
          await ctx.run('cancel', () => cancelRun(request, engine));
          return { kind: 'finished', status: 'cancelled' };
        }
      },
      /** The gate the run waits at, or null. */
      gate: async (ctx: restate.WorkflowSharedContext): Promise<HumanQuestion | null> => {
        const open = await ctx.get<HumanQuestion>('gate');
        // The run clears its gate only once it has taken the answer: until then an answered gate is not open.
        if (!open || (await ctx.promise<Answer>(open.id).peek()) !== undefined) return null;
        return open;
      },
      /** Restate's cancel of the run, for a client that reaches only the ingress (`attractor serve --on`). */
      cancel: async (ctx: restate.WorkflowSharedContext): Promise<void> => {
        const invocation = await ctx.get<string>('invocation');
        if (!invocation) throw new restate.TerminalError(`the run ${ctx.key} has not started`, { errorCode: 409 });
        ctx.invocation(restate.InvocationIdParser.fromString(invocation)).cancel();
      },
      /** `{"gate": id, "choice"|"text"|"skipped": …}`: the body of `attractor serve`'s answer plus the gate it answers. */
      answer: async (ctx: restate.WorkflowSharedContext, input: unknown): Promise<void> => {
        const { gate, answer } = parseGateAnswer(input);
        const open = await ctx.get<HumanQuestion>('gate');
        if (open?.id !== gate) throw new restate.TerminalError(`gate ${gate} is not open (the run waits at ${open ? open.id : 'no gate'})`, { errorCode: 409 });
        if ((await ctx.promise<Answer>(gate).peek()) !== undefined) throw new restate.TerminalError(`gate ${gate} was already answered`, { errorCode: 409 });
        await ctx.promise<Answer>(gate).resolve(answer);
      },
    },
  });
}

async function awaitAnswer(ctx: restate.WorkflowContext, question: HumanQuestion): Promise<Answer> {
  ctx.set('gate', question);
  const asked = ctx.promise<Answer>(question.id).get();
  let answer: Answer;
  try {
    answer = await (question.timeoutMs !== undefined ? asked.orTimeout(question.timeoutMs) : asked);
  } catch (error) {
    if (!(error instanceof restate.TimeoutError)) throw error;
    answer = { kind: 'timeout' };
  }
  ctx.clear('gate');
  return answer;
}

/** The start node's id, from the submitted source alone (so the same on every replay of the journal). */
function startNodeId(source: string): string {
  const graph = parseDot(source).graph;
  return [...(graph?.nodes.values() ?? [])].find(isStartNode)?.id ?? 'start';
}

function parseGateAnswer(input: unknown): { gate: string; answer: Answer } {
  if (!isRecord(input) || typeof input.gate !== 'string') throw new restate.TerminalError('an answer is {"gate": id, "choice"|"text"|"skipped": …}', { errorCode: 400 });
  const { gate, ...rest } = input;
  try {
    return { gate, answer: parseAnswer(rest).answer };
  } catch (error) {
    throw new restate.TerminalError((error as Error).message, { errorCode: 400 });
  }
}
