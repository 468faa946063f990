// Opening a pipeline in a fresh language server, ours and dot-language-support's side by side over
// stdio in the same run, in interleaved rounds (the order of the two alternates each round):
// start-up (spawn → initialize answered, and → a one-node document's diagnostics, which needs the
// checker worker), then from didOpen of the pipeline: its first diagnostics, and (in another fresh
// server) its first completion; the same opens again in a server that has opened files before (the
// first warm round untimed). At 5,000 nodes also completion after edits that add tokens (an
// attribute and its value typed into a node's list, then removed), p50 / p95 on both servers.
import os from 'node:os';
import path from 'node:path';
import { CompletionRequest } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { languageServerEnvOverrides, languageServerExecArgv } from '../host/language-server-limits';
import { ensureTestBundle, LspClient } from '../test/language-server/lsp-client';
import { node24 } from '../test/node24';
import { completionProbes, generatePipeline } from './language-server/generate-pipeline';
import { median, quantile, tokenEdit } from './language-server/typing';
import type { BenchReport } from './report';

const sizes = [25, 250, 5000];
const rounds = Number(process.env.ROUNDS ?? 7);
const typingEdits = 40;
/** The first edits after open run code the JIT has not compiled yet: reported apart. */
const warmingEdits = 6;
const dlsServer = path.resolve(__dirname, 'language-server', 'dot-language-support-server.mjs');

type Side = 'ours' | 'dls';

interface Fresh {
  readonly client: LspClient;
  /** Spawn → initialize answered. */
  readonly initialized: number;
  /** Spawn → a one-node document's diagnostics published (the checker worker is up). */
  readonly ready: number;
}

async function startFresh(side: Side, node: string): Promise<Fresh> {
  const start = performance.now();
  const client =
    side === 'ours' ? await LspClient.start({ diagnosticsDelayMs: 150 }, undefined, languageServerExecArgv, process.execPath, languageServerEnvOverrides) : await LspClient.start({}, dlsServer, [], node);
  const initialized = performance.now() - start;
  const probe = 'file:///bench/start-up.dot';
  await client.open(probe, 'digraph start_up { a }\n');
  await client.diagnosticsFor(probe);
  return { client, initialized, ready: performance.now() - start };
}

const minimum = (values: readonly number[]): number => Number(Math.min(...values).toFixed(3));

export default async function bench(): Promise<BenchReport> {
  ensureTestBundle();
  const node = node24();
  const loadBefore = os.loadavg()[0] ?? 0;
  const samples = new Map<string, number[]>();
  const record = (name: string, value: number): void => {
    samples.set(name, [...(samples.get(name) ?? []), value]);
  };
  const files = sizes.map((size) => {
    const text = generatePipeline(size);
    const [probe] = completionProbes(text, size);
    return { size, text, position: TextDocument.create('file:///x.dot', 'dot', 1, text).positionAt(probe?.offset ?? 0) };
  });

  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['ours', 'dls'] : ['dls', 'ours'];
    for (const { size, text, position } of files) {
      for (const side of order) {
        const uri = `file:///bench/open-${size}.dot`;
        const forDiagnostics = await startFresh(side, node);
        record(`${side} start-up: initialize answered`, forDiagnostics.initialized);
        record(`${side} start-up: a one-node document's diagnostics`, forDiagnostics.ready);
        let start = performance.now();
        await forDiagnostics.client.open(uri, text);
        await forDiagnostics.client.diagnosticsFor(uri);
        record(`${side} first diagnostics ${size}`, performance.now() - start);
        await forDiagnostics.client.stop();

        const forCompletion = await startFresh(side, node);
        start = performance.now();
        await forCompletion.client.open(uri, text);
        await forCompletion.client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position });
        record(`${side} first completion ${size}`, performance.now() - start);
        await forCompletion.client.stop();
      }
    }
  }

  // The same opens in a server that has been up and has opened files before (under fresh uris).
  const warm = await Promise.all((['ours', 'dls'] as const).map(async (side) => ({ side, ...(await startFresh(side, node)) })));
  for (let round = 0; round < rounds + 1; round++) {
    for (const { size, text, position } of files) {
      for (const { side, client } of round % 2 === 0 ? warm : [...warm].reverse()) {
        const uri = `file:///bench/warm-${size}-${round}.dot`;
        let start = performance.now();
        await client.open(uri, text);
        await client.diagnosticsFor(uri);
        if (round > 0) record(`${side} warm first diagnostics ${size}`, performance.now() - start);
        await client.close(uri);
        start = performance.now();
        await client.open(`${uri}?completion`, text);
        await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri: `${uri}?completion` }, position });
        if (round > 0) record(`${side} warm first completion ${size}`, performance.now() - start);
        await client.diagnosticsFor(`${uri}?completion`);
        await client.close(`${uri}?completion`);
      }
    }
  }
  await Promise.all(warm.map(({ client }) => client.stop()));

  // Typing into a 5,000-node file open in both servers, one edit each in turn.
  const large = generatePipeline(5000);
  const [probe] = completionProbes(large, 5000);
  const probeOffset = probe?.offset ?? 0;
  // Into the list of the node three lines above the probe's: the edit lands before the probe.
  let lineStart = probeOffset;
  for (let line = 0; line < 4; line++) lineStart = large.lastIndexOf('\n', lineStart - 1);
  const editAt = large.indexOf('[', lineStart) + 1;
  const servers = await Promise.all((['ours', 'dls'] as const).map(async (side) => ({ side, ...(await startFresh(side, node)) })));
  const uri = 'file:///bench/typing-5000.dot';
  for (const { client } of servers) {
    await client.open(uri, large);
    await client.diagnosticsFor(uri);
  }
  const documents = new Map(servers.map(({ side }) => [side, TextDocument.create(uri, 'dot', 1, large)]));
  for (let k = 0; k < typingEdits; k++) {
    for (const { side, client } of k % 2 === 0 ? servers : [...servers].reverse()) {
      const typed = tokenEdit(documents.get(side) as TextDocument, k, editAt);
      documents.set(side, typed.document);
      await client.change(uri, [typed.change]);
      const start = performance.now();
      await client.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: typed.document.positionAt(probeOffset + typed.shift) });
      record(`${side} completion after an edit that adds tokens${k < warmingEdits ? ', warming' : ''}`, performance.now() - start);
    }
  }
  await Promise.all(servers.map(({ client }) => client.stop()));

  const figures: Record<string, number | string> = {};
  const pair = (name: string, ours: string, dls: string): void => {
    const a = samples.get(ours) ?? [];
    const b = samples.get(dls) ?? [];
    figures[`${name}, ours / dls, min (ms)`] = `${minimum(a)} / ${minimum(b)} (×${(minimum(a) / minimum(b)).toFixed(2)})`;
    figures[`${name}, ours / dls, median (ms)`] = `${median(a)} / ${median(b)} (×${(median(a) / median(b)).toFixed(2)})`;
  };
  pair('start-up: spawn → initialize answered', 'ours start-up: initialize answered', 'dls start-up: initialize answered');
  pair("start-up: spawn → a one-node document's diagnostics (server and checker worker up)", "ours start-up: a one-node document's diagnostics", "dls start-up: a one-node document's diagnostics");
  for (const size of sizes) {
    pair(`first diagnostics from didOpen, fresh server, ${size} nodes`, `ours first diagnostics ${size}`, `dls first diagnostics ${size}`);
    pair(`first completion from didOpen, fresh server, ${size} nodes`, `ours first completion ${size}`, `dls first completion ${size}`);
  }
  for (const size of sizes) {
    pair(`first diagnostics from didOpen, warm server, ${size} nodes`, `ours warm first diagnostics ${size}`, `dls warm first diagnostics ${size}`);
    pair(`first completion from didOpen, warm server, ${size} nodes`, `ours warm first completion ${size}`, `dls warm first completion ${size}`);
  }
  for (const side of ['ours', 'dls'] as const) {
    const typing = samples.get(`${side} completion after an edit that adds tokens`) ?? [];
    figures[`completion after an edit that adds tokens, 5000 nodes, ${side}, p50 / p95 (ms)`] = `${quantile(typing, 0.5)} / ${quantile(typing, 0.95)}`;
    const warming = samples.get(`${side} completion after an edit that adds tokens, warming`) ?? [];
    figures[`completion after each of the first ${warmingEdits} such edits after open, 5000 nodes, ${side}, min / max (ms)`] = `${minimum(warming)} / ${Number(Math.max(...warming).toFixed(3))}`;
  }
  return {
    name: 'language-server open',
    figures,
    notes: `${rounds} interleaved rounds (a fresh server per figure, the order of ours and dls alternating); ours as the extension starts it (${languageServerExecArgv.join(' ')}, without ${Object.keys(languageServerEnvOverrides).join(', ')}) on Node ${process.versions.node}, dot-language-support 2.2.3 behind a stdio server (bench/language-server/dot-language-support-server.mjs: parse + validate on open and change, completion from the parsed file) on Node 24; each server answers a one-node document before the pipeline is opened; typing: ${typingEdits} edits at 5,000 nodes alternating between the two servers, each followed by a completion in a list three statements below, the first ${warmingEdits} reported apart; load average ${loadBefore.toFixed(1)} before, ${(os.loadavg()[0] ?? 0).toFixed(1)} after`,
  };
}
