import type { CodergenBackend, CodergenResult, PreflightProblem } from './backend';

/** No provider configured: model-free graphs still walk; any LLM node stops the launch, loudly. */
export class UnconfiguredBackend implements CodergenBackend {
  readonly name = 'none';

  constructor(private readonly hint: string) {}

  preflight(nodes: Parameters<CodergenBackend['preflight']>[0]): PreflightProblem[] {
    return nodes.map(({ node, model }) => ({ nodeId: node.id, provider: model.provider ?? 'unset', message: this.hint }));
  }

  async run(): Promise<CodergenResult> {
    throw new Error(this.hint);
  }
}
