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
  /** On the name schemas: what kind of name it is ("a Kubernetes Secret name"); `description` says what it allows. */
  title?: string;
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
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$':
    'a DNS label: lowercase letters, digits and "-", starting and ending with a letter or digit',
  '^[-0-9a-zA-Z]{1,64}$':
    'an object\'s uid (letters, digits and "-", at most 64)',
  '^[-0-9a-zA-Z]{1,64}(,[-0-9a-zA-Z]{1,64}){0,99}$':
    'at most 100 Cluster uids separated by commas (each letters, digits and "-", at most 64)',
  '^[0-9a-fA-F-]{36}$':
    'a subscription id (a GUID such as 00000000-0000-0000-0000-000000000000)',
};

/**
 * The name fields in the words of the forms that fill them (the adoption and migration wizards, the create form);
 * other fields are named by their schema's title ("a Kubernetes Secret name": "Secret name").
 */
const FIELD_WORDS: Record<string, string> = {
  managementCluster: 'Management cluster',
  namespace: 'Namespace',
  targetNamespace: 'Target namespace',
  credentialSecret: 'Credential Secret name',
  credentialSecretName: 'Credential Secret name',
};

/** What the discriminator of a body selects, in words: `action` an action, a job's `type` a job. */
const DISCRIMINATOR_WORDS: Record<string, string> = {
  action: 'action',
  type: 'job',
};

/** A name rule's violations: the pattern, or the length. */
const NAME_RULE =
  /^must (match pattern ".*"|NOT have (fewer|more) than \d+ characters)$/;

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
  if (s.title && s.description)
    return `${s.title} (${s.description.trim().replace(/\.$/, '')})`;
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
  const own = resolve(p?.schema);
  return {
    name:
      param === undefined ? `the ${kind}s` : `${kind} ${fieldName(segments)}`,
    schema: p
      ? schemaAt(
          // A name schema says itself what it allows; the parameter's description says what the value is for.
          p.description && !own?.title
            ? { ...own, description: p.description }
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

const ONE_OF_RULE = 'must match exactly one schema in oneOf';
const NOT_AN_OBJECT = 'The request body must be a JSON object';

/** One Ajv error, split: where (request part), the pointer's segments, and the rule. */
interface AjvError {
  where: Where;
  segments: string[];
  rule: string;
}

/**
 * "<pointer> <rule>", the pointer starting at "request". A body with a discriminator (a job's `type`, a day-2
 * `action`) is validated on its own: its pointers lack `body` ("request/params/namespace" is the body's
 * `params.namespace` when the route has no such parameter and the body has that field; "request" alone is the body).
 */
function parseAjvError(
  text: string,
  op: ValidatedOperation | undefined,
  req: ValidatedRequest,
): AjvError | undefined {
  const m = /^request((?:\/[^\s]*)?) (.+)$/s.exec(text.trim());
  if (!m) return undefined;
  const all = m[1]
    .split('/')
    .filter(Boolean)
    .map(s => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const [first, ...rest] = all;
  const inBody = (key: string | undefined) =>
    key !== undefined &&
    !!req.body &&
    typeof req.body === 'object' &&
    key in (req.body as object);
  if (first === 'body' && !inBody('body'))
    return { where: 'body', segments: rest, rule: m[2] };
  if (
    (first === 'query' || first === 'params' || first === 'headers') &&
    ((rest[0] !== undefined && parameter(op, first, rest[0])) || !inBody(first))
  )
    return { where: first, segments: rest, rule: m[2] };
  return { where: 'body', segments: all, rule: m[2] };
}

/** What to call a name field: the form's words, else its schema's title ("a Kubernetes Secret name": "Secret name"). */
function nameFieldWords(segments: string[], schema: Schema): string {
  const last = segments[segments.length - 1];
  const words = last === undefined ? undefined : FIELD_WORDS[last];
  if (words) return words;
  const noun = (schema.title ?? 'name')
    .replace(/^an? /, '')
    .replace(/^(Kubernetes|Cluster API) /, '');
  return noun.charAt(0).toUpperCase() + noun.slice(1);
}

/** The body's discriminator and its value, when the body was validated against one branch of a oneOf. */
function discriminated(
  op: ValidatedOperation | undefined,
  body: unknown,
): { property: string; value: string; noun: string } | undefined {
  const d = resolve(bodySchema(op))?.discriminator;
  const value =
    d && body && typeof body === 'object'
      ? (body as Record<string, unknown>)[d.propertyName]
      : undefined;
  if (!d || typeof value !== 'string') return undefined;
  return {
    property: d.propertyName,
    value,
    noun: DISCRIMINATOR_WORDS[d.propertyName] ?? d.propertyName,
  };
}

/** One Ajv error in the sender's words; undefined when it is not one the validator writes. */
function explainOne(
  e: AjvError,
  op: ValidatedOperation | undefined,
  req: ValidatedRequest,
): string | undefined {
  const { where, segments, rule } = e;
  const at = locate(where, segments, op, req);

  const required = /^must have required property '(.+)'$/.exec(rule);
  if (required) {
    const child = locate(where, [...segments, required[1]], op, req);
    const tag =
      where === 'body' && !segments.length
        ? discriminated(op, req.body)
        : undefined;
    // "pool is required for the scale action: set it to the name of one of the cluster's pools"
    return `${child.name} is ${
      tag ? `required for the ${tag.value} ${tag.noun}` : 'missing'
    }: set it to ${describeSchema(child.schema)}`;
  }
  if (rule === 'must NOT have additional properties') {
    const known = Object.keys(resolve(at.schema)?.properties ?? {});
    const sent = valueAt(where === 'body' ? req.body : req.query, segments);
    const unknown =
      sent && typeof sent === 'object' && !Array.isArray(sent)
        ? Object.keys(sent).filter(k => !known.includes(k))
        : [];
    const tag =
      where === 'body' && !segments.length
        ? discriminated(op, req.body)
        : undefined;
    if (tag && unknown.length) {
      // "Unknown field "extra" for the pause action: it takes only action, planDigest"
      return `Unknown field${unknown.length === 1 ? '' : 's'} ${unknown
        .map(k => `"${k}"`)
        .join(', ')} for the ${tag.value} ${
        tag.noun
      }: it takes only ${known.join(', ')}`;
    }
    const what = unknown.length
      ? `${unknown.map(k => `"${k}"`).join(', ')} ${
          unknown.length === 1 ? 'is not a field' : 'are not fields'
        } of ${at.name}`
      : `${at.name} has a field it does not take`;
    return known.length
      ? `${what}: remove it (the fields are ${known.join(', ')})`
      : `${what}: remove it`;
  }
  if (where === 'body' && !segments.length && rule === 'must be object')
    return NOT_AN_OBJECT;
  const s = resolve(at.schema);
  // A Kubernetes name: what kind of name, and what such a name allows.
  if (s?.title && s.description && NAME_RULE.test(rule)) {
    const long =
      /more than/.test(rule) && typeof at.value === 'string'
        ? ` (it has ${at.value.length})`
        : '';
    return `${nameFieldWords(segments, s)} ${quote(at.value)} is not ${
      s.title
    }: ${s.description.trim().replace(/\.$/, '')}${long}`;
  }
  // An unencoded "+01:00" in a query string arrives as " 01:00" (a "+" there is a space).
  const plus =
    where === 'query' &&
    rule === 'must match format "date-time"' &&
    typeof at.value === 'string' &&
    / \d\d:?\d\d$/.test(at.value)
      ? ' (a "+" in a URL is a space: write it %2B, or give the time in UTC with Z)'
      : '';
  if (rule === ONE_OF_RULE || VALUE_RULE.test(rule))
    return `${at.name} is ${quote(at.value)}: it must be ${describeSchema(
      at.schema,
    )}${plus}`;
  return undefined;
}

/**
 * Ajv's errors for a value that matches none of a oneOf's options: one per option and one for the oneOf. Only the
 * last is kept, which says the value and what the options allow together.
 */
function withoutOneOfDetails(errors: AjvError[]): AjvError[] {
  const oneOfs = errors
    .filter(e => e.rule === ONE_OF_RULE)
    .map(e => `${e.where}/${e.segments.join('/')}`);
  return errors.filter(e => {
    if (e.rule === ONE_OF_RULE) return true;
    const at = `${e.where}/${e.segments.join('/')}`;
    return !oneOfs.some(o => at === o || at.startsWith(`${o}/`));
  });
}

/**
 * body-parser's strict mode (express.json) refuses a body that is valid JSON but neither an object nor a list with
 * the message JSON.parse gives for its first character: `Unexpected token '"', ""just a string"" is not valid JSON`.
 * Returns the body's text when the message is that.
 */
function notAnObject(message: string): string | undefined {
  const m =
    /^Unexpected token '(.)', "(.*?)"(\.\.\.)? is not valid JSON$/s.exec(
      message,
    );
  if (!m) return undefined;
  const text = m[2].trimStart();
  return text.startsWith(m[1]) && !'{['.includes(m[1])
    ? `${m[2]}${m[3] ?? ''}`
    : undefined;
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
  const reserved =
    /^Parameter '(.+)' must be url encoded\. Its value may not contain reserved characters\.$/.exec(
      message,
    );
  if (reserved)
    return `query parameter ${reserved[1]} has characters that must be URL-encoded (such as : / ? # & = +): encode its value, e.g. with encodeURIComponent`;
  // The validator's own check of a discriminator (a day-2 `action`, a job's `type`), before Ajv's.
  const tag =
    /^'(.+)' must be equal to one of the allowed values: (.*?)\.?$/s.exec(
      message,
    );
  if (tag) {
    const body = req.body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return NOT_AN_OBJECT;
    const value = (body as Record<string, unknown>)[tag[1]];
    return value === undefined
      ? `${tag[1]} is missing: set it to one of ${tag[2]}`
      : `${tag[1]} is ${quote(value)}: it must be one of ${tag[2]}`;
  }
  // body-parser's PayloadTooLargeError (413), which the validator's error transformer turns into an InputError too.
  if (message === 'request entity too large')
    return 'The request body is larger than this request takes: send less at once (for a fleet run: fewer clusters, or several runs)';
  // express.json's SyntaxError, which the validator's error transformer turns into an InputError too.
  const notObject = notAnObject(message);
  if (notObject !== undefined)
    return `${NOT_AN_OBJECT}, not ${
      notObject.length > 60 ? `${notObject.slice(0, 57)}...` : notObject
    }`;
  if (/\bJSON\b/.test(message) && /position|Unexpected|Expected/.test(message))
    return `The request body is not valid JSON (${message})`;

  // Ajv joins its errors with ", "; each starts with the data variable "request".
  const parsed = message
    .split(/, (?=request[/ ])/)
    .map(p => parseAjvError(p, op, req));
  if (parsed.some(e => e === undefined)) return undefined;
  const explained = withoutOneOfDetails(parsed as AjvError[]).map(e =>
    explainOne(e, op, req),
  );
  if (explained.some(e => e === undefined)) return undefined;
  return [...new Set(explained)].join('; ');
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
