// Language server memory: a 5,000-node pipeline opened, checked, completed in and closed 12 times
// under fresh uris, then the server process's resident memory (main thread and checker worker
// together) and its peak, read from /proc. Bounded means: closing a document gives its memory back.
import fs from 'node:fs';
import os from 'node:os';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { languageServerExecArgv } from '../host/language-server-limits';
import { ensureTestBundle, LspClient } from '../test/language-server/lsp-client';
import { completionProbes, generatePipeline } from './language-server/generate-pipeline';
import type { BenchReport } from './report';

const NODES = 5000;
const CYCLES = 12;

/** VmRSS and VmHWM (peak) of a process, in MB. */
function residentMemory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

async function openCloseCycles(execArgv: readonly string[]): Promise<{ rss: number; peak: number }> {
  const text = generatePipeline(NODES);
  const [probe] = completionProbes(text, NODES);
  const client = await LspClient.start({ diagnosticsDelayMs: 150 }, undefined, execArgv);
  try {
    const pid = client.process.pid;
    if (pid === undefined) throw new Error('the language server did not start');
    for (let k = 0; k < CYCLES; k++) {
      const uri = `file:///bench/memory-${k}.dot`;
      await client.open(uri, text);
      await client.diagnosticsFor(uri);
      if (probe) await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: TextDocument.create(uri, 'dot', 1, text).positionAt(probe.offset) });
      await client.close(uri);
    }
    return residentMemory(pid);
  } finally {
    await client.stop();
  }
}

export default async function bench(): Promise<BenchReport> {
  ensureTestBundle();
  const capped = await openCloseCycles(languageServerExecArgv);
  const uncapped = await openCloseCycles([]);
  return {
    name: 'language-server memory',
    figures: {
      [`rss after opening/closing a ${NODES}-node file ${CYCLES} times, as the extension starts it (MB)`]: capped.rss,
      [`peak rss over those ${CYCLES} cycles, as the extension starts it (MB)`]: capped.peak,
      [`rss after the same, Node's default heap limit (MB)`]: uncapped.rss,
      [`peak rss, Node's default heap limit (MB)`]: uncapped.peak,
    },
    notes: `server and checker worker together (/proc VmRSS, VmHWM); each cycle: didOpen, first diagnostics, one completion, didClose; "as the extension starts it" = with ${languageServerExecArgv.join(' ')} (host/language-server-limits.ts); load average ${os.loadavg()[0]?.toFixed(1)}`,
  };
}
