import { InputError } from '@backstage/errors';
import type express from 'express';
import { spec } from '../schema/openapi.generated';

/**
 * The OpenAPI validator (express-openapi-validator, through @backstage/backend-openapi-utils) answers bad input with
 * Ajv's text, e.g. "request/body/pools/0 must have required property 'replicas'": a JSON pointer and a rule. This
 * module says the same in the words of the person who sent the request: the field as they wrote it
 * (`pools[0].replicas`), the value they sent, and what to put there instead, read from the route's schema in
 * openapi.yaml. Only the text changes: the answer stays a 400 and nothing else of the error is touched.
 */

/** The subset of JSON Schema / OpenAPI the spec uses and the explanations read. */
interface Schema {
  $ref?: string;
  type?: string;
  description?: string;
  enum?: readonly unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  required?: readonly string[];
  properties?: Readonly<Record<string, Schema>>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: readonly Schema[];
  anyOf?: readonly Schema[];
  discriminator?: {
    propertyName: string;
    mapping?: Readonly<Record<string, string>>;
  };
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  description?: string;
  schema?: Schema;
}

/** One operation of the spec: its parameters and its JSON request body. */
export interface ValidatedOperation {
  parameters?: readonly Parameter[];
  requestBody?: {
    content?: Readonly<Record<string, { schema?: Schema }>>;
  };
}

/** What a request carried, to quote the value that was refused and to name unknown fields. */
export interface ValidatedRequest {
  body?: unknown;
  query?: unknown;
  params?: unknown;
}

type Where = 'body' | 'query' | 'params' | 'headers';

/** Where a parameter is (`in` of the spec) and what to call it, by the validator's name of the request part. */
const PARAMETER_PLACES: Record<Where, { in: string; kind: string }> = {
  body: { in: 'body', kind: 'field' },
  query: { in: 'query', kind: 'query parameter' },
  params: { in: 'path', kind: 'path segment' },
  headers: { in: 'header', kind: 'header' },
};

/** Patterns of the spec that have no description there, in words (the rest are quoted as they are). */
const PATTERN_WORDS: Record<string, string> = {
  '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$':
    'a Kubernetes name: lowercase letters, digits, "-" and ".", starting and ending with a letter or digit',
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$':
    'a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  '^[-0-9a-zA-Z]{1,64}$':
    'an object\'s uid (letters, digits and "-", at most 64)',
  '^[0-9a-fA-F-]{36}$':
    'a subscription id (a GUID such as 00000000-0000-0000-0000-000000000000)',
};

const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time in ISO 8601, e.g. 2026-01-31T12:00:00Z',
};

/** Follows `#/components/...` references into the spec. */
function resolve<T extends { $ref?: string }>(
  node: T | undefined,
): T | undefined {
  let current: unknown = node;
  for (let hops = 0; hops < 10; hops++) {
    const ref = (current as { $ref?: string } | undefined)?.$ref;
    if (!ref?.startsWith('#/')) return current as T | undefined;
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (at, key) => (at as Record<string, unknown> | undefined)?.[key],
        spec,
      );
  }
  return undefined;
}

function range(
  min: number | undefined,
  max: number | undefined,
  unit = '',
): string {
  if (min !== undefined && max !== undefined)
    return ` from ${min} to ${max}${unit}`;
  if (min !== undefined) return ` of at least ${min}${unit}`;
  if (max !== undefined) return ` of at most ${max}${unit}`;
  return '';
}

/** What a value must be, in words, from its schema. */
export function describeSchema(raw: Schema | undefined): string {
  const s = resolve(raw);
  if (!s) return 'a valid value';
  if (s.enum) return `one of ${s.enum.map(v => String(v)).join(', ')}`;
  switch (s.type) {
    case 'integer':
      return `a whole number${range(s.minimum, s.maximum)}`;
    case 'number':
      return `a number${range(s.minimum, s.maximum)}`;
    case 'boolean':
      return 'true or false';
    case 'array': {
      const items = resolve(s.items);
      const of = items ? `, each ${describeSchema(items)}` : '';
      const count =
        s.minItems !== undefined && s.maxItems !== undefined
          ? ` of ${s.minItems} to ${s.maxItems} items`
          : range(s.minItems, s.maxItems, ' items');
      return `a list${count}${of}`;
    }
    case 'object': {
      const fields = Object.keys(s.properties ?? {});
      return fields.length
        ? `an object with the fields ${fields.join(', ')}`
        : 'an object';
    }
    default: {
      if (s.format && FORMAT_WORDS[s.format]) return FORMAT_WORDS[s.format];
      if (s.pattern && PATTERN_WORDS[s.pattern])
        return PATTERN_WORDS[s.pattern];
      const digits = s.pattern && /^\^\[0-9\]\{1,(\d+)\}\$$/.exec(s.pattern);
      if (digits) return `a whole number of at most ${digits[1]} digits`;
      if (s.description) return s.description.trim().replace(/\.$/, '');
      const length =
        s.minLength === 1 && s.maxLength === undefined
          ? 'non-empty text'
          : `text${range(s.minLength, s.maxLength, ' characters')}`;
      return s.pattern ? `${length} matching ${s.pattern}` : length;
    }
  }
}

/** `pools/0/replicas` as a person writes it: `pools[0].replicas`. */
function fieldName(segments: string[]): string {
  return segments.reduce(
    (name, seg) =>
      /^\d+$/.test(seg)
        ? `${name}[${seg}]`
        : [name, seg].filter(Boolean).join('.'),
    '',
  );
}

function quote(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function valueAt(root: unknown, segments: string[]): unknown {
  return segments.reduce<unknown>(
    (at, key) =>
      at !== null && typeof at === 'object'
        ? (at as Record<string, unknown>)[key]
        : undefined,
    root,
  );
}

/** The branch of a oneOf/anyOf the value is meant for: by its discriminator, else the one that has `next`. */
function branch(
  raw: Schema | undefined,
  value: unknown,
  next?: string,
): Schema | undefined {
  const s = resolve(raw);
  const options = s?.oneOf ?? s?.anyOf;
  if (!s || !options) return s;
  const d = s.discriminator;
  const tag =
    d && value && typeof value === 'object'
      ? (value as Record<string, unknown>)[d.propertyName]
      : undefined;
  if (d && typeof tag === 'string') {
    const ref = d.mapping?.[tag];
    const picked = ref
      ? resolve({ $ref: ref })
      : options.map(o => resolve(o)).find(o => o?.properties?.[d.propertyName]);
    if (picked) return picked;
  }
  return (
    options
      .map(o => resolve(o))
      .find(o => next !== undefined && o?.properties?.[next]) ?? s
  );
}

function schemaAt(
  root: Schema | undefined,
  segments: string[],
  rootValue?: unknown,
): Schema | undefined {
  let s = branch(root, rootValue, segments[0]);
  let value = rootValue;
  for (const [i, seg] of segments.entries()) {
    if (!s) return undefined;
    value = valueAt(value, [seg]);
    if (s.type === 'array' || s.items) s = resolve(s.items);
    else if (s.properties?.[seg]) s = resolve(s.properties[seg]);
    else if (typeof s.additionalProperties === 'object')
      s = resolve(s.additionalProperties);
    else return undefined;
    s = branch(s, value, segments[i + 1]);
  }
  return s;
}

function bodySchema(op: ValidatedOperation | undefined): Schema | undefined {
  return op?.requestBody?.content?.['application/json']?.schema;
}

function parameter(
  op: ValidatedOperation | undefined,
  where: Where,
  name: string,
): Parameter | undefined {
  const location = PARAMETER_PLACES[where].in;
  return (op?.parameters ?? [])
    .map(p => resolve(p))
    .find(p => p?.in === location && p.name === name);
}

/** The schema, value and name of the field a pointer such as `body/pools/0/replicas` designates. */
function locate(
  where: Where,
  segments: string[],
  op: ValidatedOperation | undefined,
  req: ValidatedRequest,
): { name: string; schema?: Schema; value: unknown } {
  if (where === 'body') {
    return {
      name: segments.length ? fieldName(segments) : 'the request body',
      schema: schemaAt(bodySchema(op), segments, req.body),
      value: valueAt(req.body, segments),
    };
  }
  const [param, ...rest] = segments;
  const p = param === undefined ? undefined : parameter(op, where, param);
  const kind = PARAMETER_PLACES[where].kind;
  return {
    name:
      param === undefined ? `the ${kind}s` : `${kind} ${fieldName(segments)}`,
    schema: p
      ? schemaAt(
          p.description
            ? { ...resolve(p.schema), description: p.description }
            : p.schema,
          rest,
        )
      : undefined,
    value: valueAt(where === 'params' ? req.params : req.query, segments),
  };
}

/** Ajv's rules about a value (type, enum, pattern, format, range, length, list size); others are left as they are. */
const VALUE_RULE =
  /^must (be (integer|number|string|boolean|object|array|null)|be equal to one of the allowed values(: .*)?|match (pattern|format) ".*"|be [<>]=? -?[\d.]+|be multiple of -?[\d.]+|NOT have (fewer|more) than \d+ (characters|items|properties)|NOT have duplicate items.*)$/;

/** One Ajv error ("<pointer> <rule>") in the sender's words; undefined when it is not one the validator writes. */
function explainOne(
  text: string,
  op: ValidatedOperation | undefined,
  req: ValidatedRequest,
): string | undefined {
  const m = /^request\/(body|query|params|headers)((?:\/[^\s]*)?) (.+)$/s.exec(
    text.trim(),
  );
  if (!m) return undefined;
  let where = m[1] as Where;
  let segments = m[2]
    .split('/')
    .filter(Boolean)
    .map(s => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // A body with a discriminator is validated on its own: its pointers lack `body` ("request/params/namespace" is
  // the body's `params.namespace` when the route has no such parameter and the body has that field).
  if (
    where !== 'body' &&
    !(segments[0] !== undefined && parameter(op, where, segments[0])) &&
    req.body &&
    typeof req.body === 'object' &&
    where in req.body
  ) {
    segments = [where, ...segments];
    where = 'body';
  }
  const rule = m[3];
  const at = locate(where, segments, op, req);

  const required = /^must have required property '(.+)'$/.exec(rule);
  if (required) {
    const child = locate(where, [...segments, required[1]], op, req);
    return `${child.name} is missing: set it to ${describeSchema(
      child.schema,
    )}`;
  }
  if (rule === 'must NOT have additional properties') {
    const known = Object.keys(resolve(at.schema)?.properties ?? {});
    const sent = valueAt(where === 'body' ? req.body : req.query, segments);
    const unknown =
      sent && typeof sent === 'object' && !Array.isArray(sent)
        ? Object.keys(sent).filter(k => !known.includes(k))
        : [];
    const what = unknown.length
      ? `${unknown.map(k => `"${k}"`).join(', ')} ${
          unknown.length === 1 ? 'is not a field' : 'are not fields'
        } of ${at.name}`
      : `${at.name} has a field it does not take`;
    return known.length
      ? `${what}: remove it (the fields are ${known.join(', ')})`
      : `${what}: remove it`;
  }
  if (!VALUE_RULE.test(rule)) return undefined;
  return `${at.name} is ${quote(at.value)}: it must be ${describeSchema(
    at.schema,
  )}`;
}

/**
 * The validator's message in the words of the person who sent the request, one sentence per problem; undefined
 * when the message is not one of the validator's (it then stays as it is).
 */
export function explainValidationMessage(
  message: string,
  op: ValidatedOperation | undefined,
  req: ValidatedRequest,
): string | undefined {
  const unknownQuery = /^Unknown query parameter '(.+)'$/.exec(message);
  if (unknownQuery) {
    const known = (op?.parameters ?? [])
      .map(p => resolve(p))
      .filter(p => p?.in === 'query')
      .map(p => p!.name);
    return `"${
      unknownQuery[1]
    }" is not a query parameter of this request: remove it${
      known.length ? ` (it takes ${known.join(', ')})` : ' (it takes none)'
    }`;
  }
  const emptyQuery = /^Empty value found for query parameter '(.+)'$/.exec(
    message,
  );
  if (emptyQuery)
    return `query parameter ${emptyQuery[1]} is empty: give it a value or leave it out`;
  // express.json's SyntaxError, which the validator's error transformer turns into an InputError too.
  if (/\bJSON\b/.test(message) && /position|Unexpected|Expected/.test(message))
    return `The request body is not valid JSON (${message})`;

  // Ajv joins its errors with ", "; each starts with the data variable "request".
  const parts = message.split(/, (?=request\/)/);
  const explained = parts.map(p => explainOne(p, op, req));
  if (explained.some(e => e === undefined)) return undefined;
  return explained.join('; ');
}

/** What express-openapi-validator leaves on a request it matched to a route of the spec. */
interface OpenApiRequestMetadata {
  openApiRoute?: string;
  pathParams?: Record<string, string>;
  schema?: ValidatedOperation;
}

function operationOf(req: express.Request): ValidatedOperation | undefined {
  const meta = (req as { openapi?: OpenApiRequestMetadata }).openapi;
  if (!meta?.schema) return undefined;
  // Path-level parameters (none today) would be listed on the path item, not on the operation.
  const item = meta.openApiRoute
    ? (spec.paths as Record<string, { parameters?: readonly Parameter[] }>)[
        meta.openApiRoute
      ]
    : undefined;
  return {
    ...meta.schema,
    parameters: [
      ...(item?.parameters ?? []),
      ...(meta.schema.parameters ?? []),
    ],
  };
}

/**
 * Rewrites the 400s of the OpenAPI validator (the InputErrors @backstage/backend-openapi-utils makes of them) in the
 * sender's words. Mount it right after the validated router is created, before any route: it then only ever sees
 * the validator's errors (and the body parser's), and passes everything else on unchanged.
 */
export function explainValidationErrors(): express.ErrorRequestHandler {
  return (error, req, _res, next) => {
    if (!(error instanceof Error) || error.name !== 'InputError') {
      next(error);
      return;
    }
    const meta = (req as { openapi?: OpenApiRequestMetadata }).openapi;
    const text = explainValidationMessage(error.message, operationOf(req), {
      body: req.body,
      query: req.query,
      params: meta?.pathParams ?? req.params,
    });
    next(text ? new InputError(text) : error);
  };
}
