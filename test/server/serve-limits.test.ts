// What one client of `attractor serve` cannot take from the others: its event loop (a large
// submission to validate), its file descriptors (idle connections), its memory (finished runs).
// Through a real server process, as a client would.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { call } from './serve-harness';
import { started, workspaceWith } from './served-in-tests';

/** A chain of `nodes` tool nodes with no exit: seconds of validation for one error. */
function exitlessChain(nodes: number): string {
  const lines = ['digraph chain {', '  start [shape=Mdiamond]', '  start -> n0'];
  for (let i = 0; i < nodes; i++) lines.push(`  n${i} [shape=parallelogram, tool_command="true"]`, `  n${i} -> n${i + 1}`);
  lines.push('}');
  return lines.join('\n');
}

/** POSTs `body` as JSON; `sent` resolves once the whole body is written, `answered` with the reply. */
function post(url: string, body: unknown): { sent: Promise<void>; answered: Promise<{ status: number; body: Record<string, unknown> }> } {
  const text = JSON.stringify(body);
  let sent: () => void = () => undefined;
  const whenSent = new Promise<void>((resolve) => (sent = resolve));
  const answered = new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (response) => {
      let data = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (data += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(data) as Record<string, unknown> }));
    });
    request.on('error', reject);
    request.end(text, sent);
  });
  return { sent: whenSent, answered };
}

describe('attractor serve: one client cannot stall the others', () => {
  it('answers other clients while it validates a large submission (off its event loop)', async () => {
    const dir = workspaceWith('attractor-serve-big-', {});
    const { url } = await started(dir, '--max-body', String(8 * 1024 * 1024));
    const order: string[] = [];
    const big = post(`${url}/pipelines`, { dot: exitlessChain(60_000) });
    const submitted = big.answered.then((reply) => {
      order.push('submission');
      return reply;
    });
    await big.sent;
    // The body is in; its validation takes seconds. Another client asks meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const listed = await call(`${url}/pipelines`);
    order.push('list');
    assert.equal(listed.status, 200);
    const reply = await submitted;
    assert.equal(reply.status, 422, JSON.stringify(reply.body).slice(0, 500));
    assert.ok((reply.body.diagnostics as { rule: string }[]).some((d) => d.rule === 'terminal_node'));
    assert.deepEqual(order, ['list', 'submission'], 'the list was answered while the submission was validated');
  });
});
