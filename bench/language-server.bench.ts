// Time to first diagnostics and completion latency through the real stdio server, side by side
// with dot-language-support (the core of dot-language-server) on the same generated files.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { languageServerExecArgv } from '../host/language-server-limits';
import { ensureTestBundle, LspClient } from '../test/language-server/lsp-client';
import { node24 } from '../test/node24';
import { completionProbes, generatePipeline } from './language-server/generate-pipeline';
import { median, quantile, typingEdit } from './language-server/typing';
import type { BenchReport } from './report';

const sizes = [100, 1000, 5000];
const typingEdits = 60;
const runs = 7;
/** Untimed rounds first: the server's JIT warms up on the first opens. */
const warmup = 3;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export default async function bench(): Promise<BenchReport> {
  ensureTestBundle();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-ls-bench-'));
  const files = sizes.map((size) => {
    const file = path.join(dir, `pipeline-${size}.dot`);
    const text = generatePipeline(size);
    fs.writeFileSync(file, text);
    return { size, file, text, probes: completionProbes(text, size) };
  });
  const figures: Record<string, number | string> = {};
  // As the extension starts it: with its heap caps.
  const client = await LspClient.start({ diagnosticsDelayMs: 150 }, undefined, languageServerExecArgv);
  const mainThreadClient = await LspClient.start({ diagnosticsDelayMs: 150, checkInWorker: false }, undefined, languageServerExecArgv);
  try {
    for (const { size, file, text, probes } of files) {
      // First diagnostics: didOpen of a fresh uri until its publishDiagnostics arrives; the two
      // checker placements alternate so machine load affects both alike.
      const firstDiagnostics = { worker: [] as number[], main: [] as number[] };
      for (let k = 0; k < runs + warmup; k++) {
        for (const [placement, server] of [['worker', client], ['main', mainThreadClient]] as const) {
          const uri = pathToFileURL(file).href + `?run=${k}`;
          const start = performance.now();
          await server.open(uri, text);
          await server.diagnosticsFor(uri);
          if (k >= warmup) firstDiagnostics[placement].push(performance.now() - start);
          // Ten 5,000-node documents left open would not fit the server's capped heap (and are not the scenario).
          await server.close(uri);
        }
      }
      figures[`first diagnostics ${size} nodes (ms)`] = median(firstDiagnostics.worker);
      figures[`first diagnostics, checker on the main thread, ${size} nodes (ms)`] = median(firstDiagnostics.main);

      // First completion: didOpen of a fresh uri, then completion at once (before any check finished).
      const firstCompletion: number[] = [];
      for (let k = 0; k < runs + warmup; k++) {
        const uri = pathToFileURL(file).href + `?first=${k}`;
        const start = performance.now();
        await client.open(uri, text);
        await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: TextDocument.create(uri, 'dot', 1, text).positionAt(probes[0]?.offset ?? 0) });
        if (k >= warmup) firstCompletion.push(performance.now() - start);
        await client.diagnosticsFor(uri);
        await client.close(uri);
      }
      figures[`first completion after open ${size} nodes (ms)`] = median(firstCompletion);

      // Completion while typing: an edit, then completion at a probe, timed together.
      const uri = pathToFileURL(file).href;
      await client.open(uri, text);
      await client.diagnosticsFor(uri);
      let document = TextDocument.create(uri, 'dot', 1, text);
      for (const probe of probes) {
        const latencies: number[] = [];
        for (let k = 0; k < runs + warmup; k++) {
          const typed = typingEdit(document, k);
          document = typed.document;
          const position = document.positionAt(probe.offset + typed.shift);
          const start = performance.now();
          await client.change(uri, [typed.change]);
          await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
          if (k >= warmup) latencies.push(performance.now() - start);
        }
        figures[`completion (${probe.name}) after an edit ${size} nodes (ms)`] = median(latencies);
      }

      // Typing: an edit every 40 ms with a completion after each, and a 400 ms pause every ten
      // edits in which a background check finishes and its model reaches the main thread.
      const [probe] = probes;
      if (probe) {
        const typing: number[] = [];
        for (let k = 0; k < typingEdits; k++) {
          const typed = typingEdit(document, k);
          document = typed.document;
          await client.change(uri, [typed.change]);
          const start = performance.now();
          await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: document.positionAt(probe.offset + typed.shift) });
          typing.push(performance.now() - start);
          await sleep(k % 10 === 9 ? 400 : 40);
        }
        figures[`completion while typing ${size} nodes, p50 / p95 (ms)`] = `${quantile(typing, 0.5)} / ${quantile(typing, 0.95)}`;
      }
    }
  } finally {
    await client.stop();
    await mainThreadClient.stop();
  }

  const side = spawnSync(node24(), [path.resolve('bench/language-server/dot-language-support-side.mjs'), JSON.stringify(files.map((f) => ({ file: f.file, offsets: f.probes.map((p) => p.offset) })))], { encoding: 'utf8' });
  if (side.status === 0) {
    const results = JSON.parse(side.stdout) as { file: string; diagnostics: number; completions: number[] }[];
    results.forEach((result, k) => {
      const { size, probes } = files[k] as (typeof files)[number];
      figures[`dot-language-support parse+validate ${size} nodes (ms)`] = result.diagnostics;
      probes.forEach((probe, p) => (figures[`dot-language-support parse+completion (${probe.name}) ${size} nodes (ms)`] = result.completions[p] ?? 'n/a'));
    });
  } else figures['dot-language-support'] = `failed: ${side.stderr.slice(0, 200)}`;
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    name: 'language-server',
    figures,
    notes:
      `ours: real server over stdio JSON-RPC started with ${languageServerExecArgv.join(' ')}, load average ${os.loadavg()[0]?.toFixed(1)}; didOpen → publishDiagnostics (parse + transform + full lint; worker thread by default, main thread alongside) and didChange + completion round trips, median of 7; dot-language-support 2.2.3 in-process under Node 24 (parse + its two checks / parse + completion, no RPC). Targets at 1,000 nodes: completion < 50 ms, full diagnostics < 200 ms. Figures are wall-clock on a shared 2-core machine: compare columns from the same run.`,
  };
}
