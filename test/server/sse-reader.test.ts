import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseReader, type SseMessage } from '../../host/protocol/sse-reader';

test('SSE messages split at any chunk boundary, with CR, LF or CRLF line ends, comments and multi-line data', () => {
  const stream = ': keep-alive\r\n\r\nid: 1\r\nevent: run:start\r\ndata: {"a":1}\r\n\r\nid: 2\rdata: line one\rdata:line two\r\rdata: no id\n\n';
  for (let size = 1; size <= stream.length; size++) {
    const messages: SseMessage[] = [];
    const reader = new SseReader((message) => messages.push(message));
    for (let at = 0; at < stream.length; at += size) reader.push(stream.slice(at, at + size));
    assert.deepEqual(
      messages,
      [
        { id: '1', event: 'run:start', data: '{"a":1}' },
        { id: '2', event: 'message', data: 'line one\nline two' },
        // The last id holds until another one is set.
        { id: '2', event: 'message', data: 'no id' },
      ],
      `chunks of ${size}`,
    );
  }
});
