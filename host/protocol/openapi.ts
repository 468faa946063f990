// GET /openapi.json: the OpenAPI 3.1 document of every route in the server's table, its bodies and
// answers described by the JSON Schema of the checks the server and its clients validate with.
import { engineVersion } from '../../engine/runtime/version';
import { schemaOf, type JsonSchema } from './guards';
import { refusal } from './serve-schemas';
import { serveRoutes, type Operation } from './serve-routes';

export function openApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [operationId, route] of Object.entries(serveRoutes) as Array<[string, Operation]>) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(operationId, route);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'attractor serve', version: engineVersion, description: 'Attractor pipelines run for HTTP clients (canonical §9.5 and its extensions, specs/EXTENSIONS.md SV1).' },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: { Refusal: schemaOf(refusal) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'required by a server bound beyond loopback or given --token-file' } },
    },
    // A loopback server without a token asks for none.
    security: [{ bearer: [] }, {}],
  };
}

function operation(operationId: string, route: Operation): Record<string, unknown> {
  const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  const queryParams = Object.entries(route.query ?? {}).map(([name, { check, description, required }]) => ({ name, in: 'query', description, required: required === true, schema: schemaOf(check) }));
  const parameters = [...pathParams, ...queryParams];
  const responses: Record<string, unknown> = {};
  for (const [status, reply] of Object.entries(route.replies)) {
    responses[status] = { description: reply.description, content: 'json' in reply ? { 'application/json': { schema: schemaOf(reply.json) } } : { [reply.media]: {} } };
  }
  responses.default = { description: 'a refusal (400 malformed, 401 no token, 403 not allowed, 404 no such run, 405 another method, 413 too large, 415 not JSON)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Refusal' } } } };
  return {
    operationId,
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body) } } } } : {}),
    responses,
  };
}
