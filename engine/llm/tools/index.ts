import type { AgentTool } from './agent-tool';
import { editFileTool, listDirTool, readFileTool, writeFileTool } from './file-tools';
import { globTool, grepTool } from './search-tools';
import { shellTool } from './shell-tool';

/** The workspace tools every agent session gets (report_outcome is handled by the loop itself). */
export const workspaceTools: readonly AgentTool[] = [readFileTool, writeFileTool, editFileTool, listDirTool, globTool, grepTool, shellTool];
