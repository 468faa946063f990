import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { assertFixRepairs, located, none, pipeline, single } from './lint-helpers';

describe('handler rules', () => {
  it('prompt_on_llm_nodes: a box with neither prompt nor label', () => {
    const text = pipeline('  work\n  start -> work -> done');
    const d = single(text, 'prompt_on_llm_nodes');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'work', line: 3, character: 2 });
    none(pipeline('  work [label="Write the report"]\n  start -> work -> done'), 'prompt_on_llm_nodes');
  });

  it('tool_command_requires_tool_handler: a command on a non-tool node; the fix makes it a tool node', () => {
    const text = pipeline('  check [tool_command="make test"]\n  start -> check -> done');
    const d = single(text, 'tool_command_requires_tool_handler');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: 'tool_command="make test"', line: 3, character: 9 });
    assert.match(assertFixRepairs(text, d), /check \[shape=parallelogram, tool_command/);
    const boxed = pipeline('  check [shape=box, tool_command="make test"]\n  start -> check -> done');
    assert.match(assertFixRepairs(boxed, single(boxed, 'tool_command_requires_tool_handler')), /shape=parallelogram/);
    none(pipeline('  check [shape=parallelogram, tool_command="make test"]\n  start -> check -> done'), 'tool_command_requires_tool_handler');
    none(pipeline('  check [type="deploy", tool_command="make test"]\n  start -> check -> done'), 'tool_command_requires_tool_handler');
  });

  it('must_write_placement: must_write on a node that writes nothing; the fix removes it', () => {
    const text = pipeline('  work [prompt="x"]\n  route [shape=diamond, must_write="report.md"]\n  start -> work -> route -> done');
    const d = single(text, 'must_write_placement');
    assert.equal(d.severity, 'warning');
    assert.deepEqual(located(text, d), { text: 'must_write="report.md"', line: 4, character: 24 });
    assert.match(assertFixRepairs(text, d), /route \[shape=diamond\]/);
    none(pipeline('  work [prompt="x", must_write="report.md"]\n  start -> work -> done'), 'must_write_placement');
  });

  it('folder_requires_dot_file: a folder node without its child', () => {
    const text = pipeline('  sub [shape=folder]\n  start -> sub -> done');
    const d = single(text, 'folder_requires_dot_file');
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: 'sub', line: 3, character: 2 });
    none(pipeline('  sub [shape=folder, dot_file="child.dot"]\n  start -> sub -> done'), 'folder_requires_dot_file');
  });

  it('dot_file_exists: resolved beside the .dot file', () => {
    const sourcePath = path.resolve('/pipelines/parent.dot');
    const text = pipeline('  sub [shape=folder, dot_file="child.dot"]\n  start -> sub -> done');
    const d = single(text, 'dot_file_exists', { sourcePath, fileExists: () => false });
    assert.equal(d.severity, 'error');
    assert.deepEqual(located(text, d), { text: '"child.dot"', line: 3, character: 30 });
    assert.match(d.message, /\/pipelines\/child\.dot/);
    none(text, 'dot_file_exists', { sourcePath, fileExists: (file) => file === path.resolve('/pipelines/child.dot') });
  });
});
