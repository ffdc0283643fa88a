// The OpenAPI document, finished once for every route: operation() gives each operation its
// operationId, security and response headers; this module turns the document @fastify/swagger
// writes into one a generated client uses as is (docs/api.md, "The OpenAPI document"):
// - every schema with a `title` (a name such as `Term`) becomes components.schemas.<title>,
//   and each operation's answer gets a name of its own (MakeAccountAnswer) when its schema
//   has none (request bodies stay in place: see below);
// - a union of string constants is written as an `enum`;
// - a oneOf with a discriminator gets its mapping to the named members;
// - the response headers (X-Request-Id on all, Idempotent-Replayed on replays, Retry-After on
//   429 and 503, and each operation's own X-Billrun-* headers) are declared;
// - a schema the runtime serializes loosely (a bill line's trace) is documented by the
//   precise schema registered here for its title.
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';

/** The operationId of a route: the last segment of a business operation's path in camelCase
 * (make-account → makeAccount, /auth/login → login); for a REST route (the sandbox), the
 * method and the path's words (GET /sandbox/plants/{id} → getSandboxPlantsById). */
export function operationIdOf(method: string, path: string, rest = false): string {
  const segments = path.split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  const camel = (s: string) => s.replace(/[-_.]+([a-zA-Z0-9])/g, (_m, c: string) => c.toUpperCase());
  const pascal = (s: string) => {
    const c = camel(s);
    return c.charAt(0).toUpperCase() + c.slice(1);
  };
  if (!rest && method === 'POST' && /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(last)) return camel(last);
  const words = segments.map((s) => {
    const param = /^[{:]([^}]+)}?$/.exec(s);
    return param ? `By${pascal(param[1]!)}` : pascal(s);
  });
  return method.toLowerCase() + words.join('');
}

const IDS = new WeakMap<object, Map<string, string>>();

/**
 * Claims an operationId for one route of a server: two routes with the same id stop the
 * server at start, naming both (give one an explicit `operationId` in its operation()).
 */
export function claimOperationId(app: FastifyInstance, id: string, route: string): void {
  const server: object = app.server ?? app;
  let ids = IDS.get(server);
  if (!ids) IDS.set(server, (ids = new Map()));
  const other = ids.get(id);
  if (other !== undefined && other !== route) {
    throw new Error(`operationId ${id} of ${route} is already the operationId of ${other}: give one of them an explicit operationId`);
  }
  ids.set(id, route);
}

/** The extension key on which operation() hands an operation's own response headers to finishDocument. */
export const HEADERS_KEY = 'x-billrun-headers';
/** The same for headers an operation sets on a refusal too (an import's id). */
export const FAILURE_HEADERS_KEY = 'x-billrun-failure-headers';
/** The extension key marking an operation that accepts Idempotency-Key. */
export const IDEMPOTENT_KEY = 'x-billrun-idempotent';
/** The extension key listing the media types of a streamed body (its requestBody is written from them). */
export const STREAM_KEY = 'x-billrun-stream';

const DOCUMENTED = new Map<string, TSchema>();
/**
 * Documents the schema titled `title` as `schema`: for a value the runtime serializes as any
 * JSON (no schema to drop fields by), whose shape is nonetheless fixed by a TypeScript type
 * (the schema's module checks both agree at compile time).
 */
export function documentAs(title: string, schema: TSchema): void {
  DOCUMENTED.set(title, schema);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const NAME = /^[A-Z][A-Za-z0-9]*$/;
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const DESCRIPTIONS: Record<string, string> = {
  '2': 'Done: the answer in the success envelope (a create names the new record in an X-Billrun-*-Id header)',
  '4': 'Refused, nothing changed: error.code says why and error.details names each bad field',
  '5': 'A fault of the server (INTERNAL) or the database is unreachable (UNAVAILABLE); nothing was decided, retry',
};

const COMMON_HEADERS = {
  RequestId: {
    description: 'The request id, also on every log line of the request: the one the client sent in X-Request-Id, or a new UUID.',
    schema: { type: 'string' },
  },
  IdempotentReplayed: {
    description: 'Present, and `true`, when the answer is the replay of an earlier request with the same Idempotency-Key: nothing was done again.',
    schema: { type: 'string', enum: ['true'] },
  },
  RetryAfter: {
    description: 'On 429 RATE_LIMITED and 503 UNAVAILABLE: seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
} as const;

/** The document @fastify/swagger wrote, finished (see the top of this file). Pure: a new object. */
export function finishDocument(input: Json): Json {
  const doc = structuredClone(input);
  const components = (isObject(doc.components) ? doc.components : (doc.components = {})) as Json;
  const schemas: Json = isObject(components.schemas) ? components.schemas : {};
  components.schemas = schemas;
  components.headers = { ...(isObject(components.headers) ? components.headers : {}), ...COMMON_HEADERS };
  const ref = (name: string) => `#/components/schemas/${name}`;

  const hoist = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(hoist);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k.startsWith('~')) continue; // TypeBox's own marks
      out[k] = k === 'properties' && isObject(v) ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p, hoist(s)])) : hoist(v);
    }
    asEnum(out);
    const title = out.title;
    if (typeof title === 'string' && NAME.test(title)) {
      const documented = DOCUMENTED.get(title);
      const body = documented ? (hoist(structuredClone(documented)) as Json) : out;
      body.title = title;
      const kept = schemas[title];
      if (kept !== undefined && JSON.stringify(kept) !== JSON.stringify(body)) {
        throw new Error(`Two different schemas are titled ${title}: give one another title`);
      }
      schemas[title] = body;
      mapDiscriminator(body, schemas);
      return { $ref: ref(title) };
    }
    mapDiscriminator(out, schemas);
    return out;
  };

  const paths = (isObject(doc.paths) ? doc.paths : {}) as Record<string, Json>;
  for (const item of Object.values(paths)) {
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const name = typeof op.operationId === 'string' ? pascal(op.operationId) : undefined;
      const own = (isObject(op[HEADERS_KEY]) ? op[HEADERS_KEY] : {}) as Record<string, string>;
      const onFailure = (isObject(op[FAILURE_HEADERS_KEY]) ? op[FAILURE_HEADERS_KEY] : {}) as Record<string, string>;
      const idempotent = op[IDEMPOTENT_KEY] === true;
      const streamed = Array.isArray(op[STREAM_KEY]) ? (op[STREAM_KEY] as string[]) : undefined;
      delete op[HEADERS_KEY];
      delete op[FAILURE_HEADERS_KEY];
      delete op[IDEMPOTENT_KEY];
      delete op[STREAM_KEY];
      if (streamed && op.requestBody === undefined) {
        // A streamed body has no JSON schema for Fastify to check: it is the file itself.
        const file = { type: 'string', description: 'The file itself, read as it arrives (no JSON envelope).' };
        op.requestBody = { required: true, content: Object.fromEntries(streamed.map((t) => [t, { schema: file }])) };
      }

      const body = op.requestBody;
      if (isObject(body) && isObject(body.content)) {
        for (const media of Object.values(body.content)) {
          if (!isObject(media) || !isObject(media.schema)) continue;
          // Left in place, not named: a generator reads `default` in a request body as "may be
          // left out", but in components.schemas as "always there" (openapi-typescript's
          // defaultNonNullable), which would make every defaulted field required to send. The
          // body's type is named by its operation (operations['makeAccount']).
          media.schema = hoist(media.schema);
        }
      }
      if (Array.isArray(op.parameters)) op.parameters = op.parameters.map((p: unknown) => (isObject(p) && isObject(p.schema) ? { ...p, schema: hoist(p.schema) } : p));

      const responses = (isObject(op.responses) ? op.responses : {}) as Record<string, Json>;
      for (const [status, response] of Object.entries(responses)) {
        const success = /^2/.test(status);
        if (isObject(response.content)) {
          for (const media of Object.values(response.content)) {
            if (!isObject(media) || !isObject(media.schema)) continue;
            if (name && success && media.schema.title === undefined && media.schema.type === 'object') media.schema.title = `${name}Answer`;
            media.schema = hoist(media.schema);
          }
        }
        if (response.description === 'Default Response') response.description = DESCRIPTIONS[status.charAt(0)] ?? response.description;
        const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
        if (success) {
          for (const [h, description] of Object.entries(own)) headers[h] = { description, schema: { type: 'string' } };
        }
        if (status === '4XX') for (const [h, description] of Object.entries(onFailure)) headers[h] = { description, schema: { type: 'string' } };
        if (idempotent && (success || status === '4XX')) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
        if (status === '4XX' || status === '5XX') headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
        response.headers = { ...(isObject(response.headers) ? response.headers : {}), ...headers };
      }
    }
  }
  // Named schemas in a stable order, so the generated client's file changes only with them.
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return doc;
}

/** A union of string constants, written as an enum (a generated client makes it a union of literals either way; a reader sees one list). */
function asEnum(s: Json): void {
  if (s.type === undefined && Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every((v) => typeof v === 'string')) s.type = 'string';
  const members = s.anyOf ?? s.oneOf;
  if (!Array.isArray(members) || members.length === 0) return;
  // A member is one string: { const } or, as @fastify/swagger writes a const, { enum: [one] }.
  const one = (m: unknown): string | undefined => {
    if (!isObject(m) || !Object.keys(m).every((k) => k === 'const' || k === 'enum' || k === 'type')) return undefined;
    if (typeof m.const === 'string') return m.const;
    return Array.isArray(m.enum) && m.enum.length === 1 && typeof m.enum[0] === 'string' ? m.enum[0] : undefined;
  };
  const values = members.map(one);
  if (!values.every((v) => v !== undefined)) return;
  delete s.anyOf;
  delete s.oneOf;
  s.type = 'string';
  s.enum = values;
}

/** A oneOf told apart by a property: each member named, and the mapping from the property's value to it. */
function mapDiscriminator(s: Json, schemas: Json): void {
  const d = s.discriminator;
  if (!isObject(d) || typeof d.propertyName !== 'string' || !Array.isArray(s.oneOf)) return;
  const mapping: Record<string, string> = {};
  for (const m of s.oneOf) {
    const target = isObject(m) && typeof m.$ref === 'string' ? (schemas[m.$ref.split('/').at(-1)!] as Json | undefined) : undefined;
    const prop: Json | undefined = target && isObject(target.properties) ? (target.properties[d.propertyName] as Json | undefined) : undefined;
    const value: unknown = prop?.const ?? (Array.isArray(prop?.enum) && prop.enum.length === 1 ? prop.enum[0] : undefined);
    if (typeof value !== 'string') return;
    mapping[value] = m.$ref;
  }
  d.mapping = mapping;
}

/** The schema under a name of the OpenAPI document (components.schemas.<title>), so a generated client names its type. */
export function named<T extends TSchema>(title: string, schema: T): T {
  // A copy with every property of the original, TypeBox's own non-enumerable marks included
  // (a plain spread drops them, and Type.Omit of the copy would then see no properties).
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T;
  (copy as { title?: string }).title = title;
  return copy;
}
