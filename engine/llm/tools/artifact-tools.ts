import type { ArtifactAccess } from '../../runtime/backend';
import type { AgentTool, ToolContext } from './agent-tool';
import { numberArg, stringArg } from './agent-tool';
import { ToolError } from './tool-error';

/** The most of an artifact one retrieve_artifact call returns; `offset` reads on. */
const maxRetrieveChars = 64 * 1024;

function access(context: ToolContext, tool: string): ArtifactAccess {
  if (!context.artifacts) throw new ToolError(`${tool}: this run has no artifact store`);
  return context.artifacts;
}

/** Canonical §5.5 for the agent: store a large output under a name, for later nodes (and itself) to retrieve. */
const storeArtifactTool: AgentTool = {
  definition: {
    name: 'store_artifact',
    description:
      "Store a large text output of this stage (a report, a data dump) in the run's artifact store instead of the context. Returns its info; later stages retrieve it by id.",
    parameters: {
      type: 'object',
      properties: {
        id: { type: 'string', description: "1-128 letters, digits, '.', '_' or '-'; storing an id again replaces it." },
        name: { type: 'string', description: 'What the artifact is, for people reading the run.' },
        content: { type: 'string' },
      },
      required: ['id', 'content'],
    },
  },
  async execute(args, context) {
    const id = stringArg(args, 'id');
    const content = stringArg(args, 'content');
    if (id === undefined || content === undefined) throw new ToolError('store_artifact: `id` and `content` (strings) are required');
    try {
      return JSON.stringify(access(context, 'store_artifact').store(id, stringArg(args, 'name') ?? id, content));
    } catch (error) {
      throw error instanceof ToolError ? error : new ToolError(`store_artifact: ${(error as Error).message}`);
    }
  },
};

const retrieveArtifactTool: AgentTool = {
  definition: {
    name: 'retrieve_artifact',
    description: `Read an artifact of this run by id (list_artifacts shows them): its text, ${maxRetrieveChars} characters at a time from the 0-based \`offset\`.`,
    parameters: { type: 'object', properties: { id: { type: 'string' }, offset: { type: 'integer', minimum: 0 } }, required: ['id'] },
  },
  async execute(args, context) {
    const id = stringArg(args, 'id');
    if (id === undefined) throw new ToolError('retrieve_artifact: `id` (string) is required');
    let data: unknown;
    try {
      data = access(context, 'retrieve_artifact').retrieve(id);
    } catch (error) {
      throw error instanceof ToolError ? error : new ToolError(`retrieve_artifact: ${(error as Error).message}`);
    }
    const text = typeof data === 'string' ? data : JSON.stringify(data, null, 2);
    const offset = numberArg(args, 'offset') ?? 0;
    const part = text.slice(offset, offset + maxRetrieveChars);
    const rest = text.length - offset - part.length;
    return rest > 0 ? `${part}\n[${rest} more characters: retrieve_artifact with offset ${offset + part.length}]` : part;
  },
};

const listArtifactsTool: AgentTool = {
  definition: {
    name: 'list_artifacts',
    description: "The run's artifacts: id, name, size and the stage that stored each.",
    parameters: { type: 'object', properties: {} },
  },
  async execute(_args, context) {
    return JSON.stringify(access(context, 'list_artifacts').list());
  },
};

/** Given to agents of a run with an artifact store, beside the workspace tools. */
export const artifactTools: readonly AgentTool[] = [storeArtifactTool, retrieveArtifactTool, listArtifactsTool];
