// A visit's changed file as a diff, and "re-run from here", over attractor serve's HTTP API: the
// routes the browser app uses for the trace panel's files and for time travel, against a real server.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { call, readEvents } from './serve-harness';
import { started, submit, workspaceWith } from './served-in-tests';

/** Writes a text file, a binary one and one past the diff's size limit, then edits the text file. */
const files = `digraph files {
  start [shape=Mdiamond]
  write [shape=parallelogram, tool_command="seq 1 3 > notes.txt && head -c 64 /dev/zero > blob.bin && seq 1 300000 > big.txt"]
  edit [shape=parallelogram, tool_command="seq 2 4 > notes.txt"]
  done [shape=Msquare]
  start -> write -> edit -> done
}`;

async function ran(url: string, body: Record<string, unknown>): Promise<string> {
  const id = await submit(url, body);
  const events = await readEvents(`${url}/pipelines/${id}/events`);
  assert.equal(events.at(-1)?.data.status, 'success', JSON.stringify(events.at(-1)));
  return id;
}

const diffOf = (url: string, id: string, query: Record<string, string>) => call(`${url}/pipelines/${id}/visit/diff?${new URLSearchParams(query)}`);

describe('attractor serve: a visit\'s file diffs and re-runs from a visit', () => {
  it('answers one changed file\'s diff from the run\'s snapshots; a binary or too large file is named, a path outside the visit refused', async () => {
    const dir = workspaceWith('attractor-serve-diff-', { 'files.dot': files });
    const { url } = await started(dir);
    const id = await ran(url, { path: 'files.dot' });

    const edited = await diffOf(url, id, { iteration: '0', node: 'edit', path: 'notes.txt' });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.kind, 'text');
    assert.equal(edited.body.change, 'changed');
    const lines = String(edited.body.diff).split('\n');
    assert.ok(lines.includes('-1') && lines.includes('+4') && lines.includes(' 2'), String(edited.body.diff));

    const added = await diffOf(url, id, { iteration: '0', node: 'write', visit: '1', path: 'notes.txt' });
    assert.equal(added.body.change, 'added');
    assert.match(String(added.body.diff), /^\+3$/m);
    assert.deepEqual((await diffOf(url, id, { iteration: '0', node: 'write', path: 'blob.bin' })).body, { kind: 'binary', path: 'blob.bin', change: 'added' });
    const big = await diffOf(url, id, { iteration: '0', node: 'write', path: 'big.txt' });
    assert.equal(big.status, 200);
    assert.equal(big.body.kind, 'too-large');
    assert.ok((big.body.bytes as number) > (big.body.limit as number), JSON.stringify(big.body));

    // Only the files the visit changed are read, and only from the snapshots: never a path of the host.
    for (const escape of ['../../../../etc/passwd', '/etc/passwd', 'a/../../files.dot', '']) {
      const refused = await diffOf(url, id, { iteration: '0', node: 'edit', path: escape });
      assert.equal(refused.status, 400, `${escape}: ${JSON.stringify(refused.body)}`);
    }
    const untouched = await diffOf(url, id, { iteration: '0', node: 'edit', path: 'files.dot' });
    assert.equal(untouched.status, 404, JSON.stringify(untouched.body));
    assert.match(String(untouched.body.error), /did not change files\.dot/);
    assert.equal((await diffOf(url, id, { iteration: '0', node: 'nowhere', path: 'notes.txt' })).status, 404);
    assert.equal((await diffOf(url, id, { iteration: '0', node: 'edit' })).status, 400, 'the path is required');
  });

  it('re-runs a finished run from a visit as a new run; files changed since are listed and kept unless the caller says to discard them', async () => {
    const dir = workspaceWith('attractor-serve-rerun-', { 'files.dot': files });
    const { url } = await started(dir);
    const id = await ran(url, { path: 'files.dot' });
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, 'mine\n');

    const asked = await call(`${url}/pipelines/${id}/rerun`, { body: { iteration: 0, node: 'edit' } });
    assert.equal(asked.status, 409, JSON.stringify(asked.body));
    assert.deepEqual(asked.body.changes, [{ kind: 'changed', path: 'notes.txt' }]);
    assert.equal(asked.body.cwd, dir);
    assert.match(String(asked.body.error), /1 change\(s\) the run did not make/);
    assert.equal(fs.readFileSync(notes, 'utf8'), 'mine\n', 'nothing was changed');

    const crossOrigin = await call(`${url}/pipelines/${id}/rerun`, { body: { iteration: 0, node: 'edit', discardChanges: true }, headers: { origin: 'http://evil.example' } });
    assert.equal(crossOrigin.status, 403, JSON.stringify(crossOrigin.body));
    assert.equal(fs.readFileSync(notes, 'utf8'), 'mine\n');

    const rerun = await call(`${url}/pipelines/${id}/rerun`, { body: { iteration: 0, node: 'edit', discardChanges: true } });
    assert.equal(rerun.status, 202, JSON.stringify(rerun.body));
    const branch = rerun.body.id as string;
    assert.notEqual(branch, id);
    assert.deepEqual(rerun.body.rerun, { from: id, nodeId: 'edit', visit: 1, discarded: 1, undo: path.join(dir, '.attractor-runs', branch) });
    const events = await readEvents(`${url}/pipelines/${branch}/events`);
    assert.equal(events.at(-1)?.data.status, 'success');
    assert.deepEqual(
      events.filter((event) => event.type === 'node:start').map((event) => event.data.nodeId),
      ['edit', 'done'],
      'the branch walks on from before the chosen visit',
    );
    assert.equal(fs.readFileSync(notes, 'utf8'), '2\n3\n4\n');
    const listed = (await call(`${url}/pipelines`)).body.pipelines as Array<{ id: string; status: string }>;
    assert.deepEqual(listed.map((run) => [run.id, run.status]), [[id, 'success'], [branch, 'success']]);

    assert.equal((await call(`${url}/pipelines/${id}/rerun`, { body: { iteration: 0, node: 'nowhere' } })).status, 404);
    assert.equal((await call(`${url}/pipelines/${id}/rerun`, { body: { iteration: 0, node: 'edit', extra: 1 } })).status, 400);
  });
});
