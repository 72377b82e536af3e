import fc from 'fast-check';

/**
 * JSON Schema (as our OpenAPI 3.1 document writes it) → fast-check arbitraries. `validValue` stays inside the
 * schema (the server's own rules — catalogs, totals, existing ids — may still refuse it); `nearMiss` steps just
 * outside it (a required property dropped, an extra one, a wrong type, a boundary crossed, an enum misspelt);
 * `mixedValue` is mostly valid with a near-miss here and there, so generated bodies explore both sides.
 */
export type JsonSchema = { [k: string]: any };
export interface OpenApiDoc {
  components?: { schemas?: Record<string, JsonSchema> };
  [k: string]: any;
}

export interface SchemaArbitraryOptions {
  doc: OpenApiDoc;
  /** Extra candidates for a property, by its name (real ids, tokens, existing emails): mixed with the schema's own values. */
  hints?: Record<string, fc.Arbitrary<unknown>>;
  /** Longest string or array generated where the schema allows more (boundary values are tried separately). */
  maxGeneratedLength?: number;
}

const ODD_STRINGS = [
  '\u0000',
  'a\u0007b',
  '\ud800',
  '\udfff',
  '\u202eRTL',
  'e\u0301\u0301',
  'ＡＢＣ１２３',
  '🧾Ñandú',
  '   ',
  ' x ',
  '\t\n',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '0x1F',
  "' OR '1'='1",
  '<x/>',
  '&amp;',
  '|',
  '%00',
  '\\',
  '"',
  '{}',
  '[]',
];
const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, 1.5, '', 'x', [], {}, [null], { a: 1 }];

/** Follows `$ref`s (`#/components/schemas/X` or any JSON pointer into the document). */
export function resolve(schema: JsonSchema | undefined, doc: OpenApiDoc): JsonSchema {
  let s = schema ?? {};
  for (let i = 0; s.$ref && i < 32; i++) {
    const target = (s.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node: any, key) => node?.[key], doc);
    if (!target) throw new Error(`unresolvable $ref ${s.$ref}`);
    const { $ref: _ignored, ...rest } = s;
    s = { ...target, ...rest };
  }
  if (Array.isArray(s.allOf)) {
    // allOf of objects: one object with every branch's properties and requirements.
    const parts = s.allOf.map((p: JsonSchema) => resolve(p, doc));
    const { allOf: _a, ...rest } = s;
    s = parts.reduce(
      (acc: JsonSchema, p: JsonSchema) => ({
        // biome-ignore lint/performance/noAccumulatingSpread: a handful of allOf branches
        ...acc,
        ...p,
        properties: { ...acc.properties, ...p.properties },
        required: [...(acc.required ?? []), ...(p.required ?? [])],
      }),
      rest,
    );
  }
  return s;
}

/** The schema's types: `type` as string or list, `nullable` (3.0 style), or guessed from its keywords. */
function typesOf(s: JsonSchema): string[] {
  const types: string[] = Array.isArray(s.type) ? [...s.type] : s.type ? [s.type] : [];
  if (s.nullable === true && !types.includes('null')) types.push('null');
  if (types.length === 0) {
    if (s.properties || s.required) types.push('object');
    else if (s.items) types.push('array');
    else if (s.pattern !== undefined || s.minLength !== undefined || s.maxLength !== undefined || s.format) types.push('string');
  }
  return types;
}

/** The subschema a JSON path leads to (through properties, items, anyOf/oneOf branches), or undefined. */
function schemaAt(schema: JsonSchema, path: (string | number)[], doc: OpenApiDoc): JsonSchema | undefined {
  let s: JsonSchema | undefined = resolve(schema, doc);
  for (const key of path) {
    if (!s) return undefined;
    const branches: JsonSchema[] = [s, ...((s.anyOf ?? s.oneOf ?? []) as JsonSchema[]).map((b) => resolve(b, doc))];
    const next: JsonSchema | undefined =
      typeof key === 'number' ? branches.find((b) => b.items)?.items : branches.find((b) => b.properties?.[key])?.properties?.[key];
    s = next ? resolve(next, doc) : undefined;
  }
  return s;
}

const decimalString = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }).map(String),
  fc
    .tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 1, max: 6 }))
    .map(([i, f, d]) => `${i}.${String(f).padStart(6, '0').slice(0, d)}`),
  fc.integer({ min: 0, max: 100_000 }),
  fc.constantFrom('0', '1', '0.16', '0.160000', '1000.00', '17.2533'),
);
const decimalNearMiss = fc.constantFrom(
  '-1',
  '-0.01',
  '1.1234567',
  '1e3',
  '1,000.00',
  ' 1',
  '1.',
  '.5',
  'abc',
  '',
  '99999999999999999999.99',
  1e21,
  -5,
  0.1 + 0.2,
  Number.MAX_VALUE,
);

const anyJson = fc.jsonValue({ maxDepth: 2 });

export function createSchemaArbitraries(opts: SchemaArbitraryOptions) {
  const { doc } = opts;
  const hints = opts.hints ?? {};
  const cap = opts.maxGeneratedLength ?? 24;

  function hinted(name: string | undefined, own: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
    const hint = name !== undefined ? hints[name] : undefined;
    return hint ? fc.oneof({ arbitrary: hint, weight: 2 }, { arbitrary: own, weight: 1 }) : own;
  }

  /** A string the schema's own keywords accept. */
  function validString(s: JsonSchema): fc.Arbitrary<unknown> {
    const min = s.minLength ?? 0;
    const max = Math.min(s.maxLength ?? min + cap, min + cap);
    const own: fc.WeightedArbitrary<unknown>[] = [];
    if (s.format === 'binary') {
      // A file field of a multipart form: bytes (the test turns them into a file part).
      own.push({ arbitrary: fc.uint8Array({ maxLength: 512 }), weight: 6 });
    } else if (s.pattern !== undefined) {
      const re = new RegExp(s.pattern);
      own.push({ arbitrary: fc.stringMatching(re).filter((v) => v.length >= min && v.length <= (s.maxLength ?? Infinity)), weight: 6 });
    } else if (s.format === 'email') {
      own.push({ arbitrary: fc.emailAddress(), weight: 6 });
    } else if (s.format === 'uri' || s.format === 'url') {
      own.push({ arbitrary: fc.webUrl(), weight: 6 });
    } else if (s.format === 'date-time') {
      own.push({ arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), weight: 6 });
    } else if (s.format === 'uuid') {
      own.push({ arbitrary: fc.uuid(), weight: 6 });
    } else if (/decimal string/i.test(s.description ?? '')) {
      own.push({ arbitrary: decimalString, weight: 6 });
    } else {
      own.push({ arbitrary: fc.string({ minLength: min, maxLength: max }), weight: 3 });
      own.push({ arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }), weight: 1 });
      own.push({ arbitrary: fc.string({ minLength: min, maxLength: max, unit: 'binary' }), weight: 1 });
      // The boundaries themselves: exactly minLength and maxLength (in UTF-16 units, as zod counts).
      if (s.maxLength !== undefined) own.push({ arbitrary: fc.constantFrom('x'.repeat(s.maxLength), 'ñ'.repeat(s.maxLength)), weight: 1 });
      if (min > 0) own.push({ arbitrary: fc.constant('y'.repeat(min)), weight: 1 });
    }
    for (const example of [s.example, ...(s.examples ?? []), s.default]) {
      if (typeof example === 'string') own.push({ arbitrary: fc.constant(example), weight: 4 });
    }
    return fc.oneof(...own);
  }

  function validNumber(s: JsonSchema, integer: boolean): fc.Arbitrary<unknown> {
    const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e9);
    const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e9);
    const own: fc.Arbitrary<unknown>[] = [
      integer
        ? fc.integer({ min: Math.max(lo, Number.MIN_SAFE_INTEGER), max: Math.min(hi, Number.MAX_SAFE_INTEGER) })
        : fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
      fc.constantFrom(lo, hi),
    ];
    for (const example of [s.example, s.default]) if (typeof example === 'number') own.push(fc.constant(example));
    return fc.oneof(...own);
  }

  /** A value of the schema, with near-misses mixed in at each node with weight `miss` (0: never) against 24. */
  function value(schema: JsonSchema | undefined, miss: number, name?: string, depth = 0): fc.Arbitrary<unknown> {
    const s = resolve(schema, doc);
    const shape = hinted(name, validShape(s, miss, depth));
    if (miss <= 0) return shape;
    return fc.oneof({ arbitrary: shape, weight: 24 }, { arbitrary: nearMissOf(s, name, depth), weight: miss });
  }

  function validShape(s: JsonSchema, miss: number, depth: number): fc.Arbitrary<unknown> {
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    const branches = (s.oneOf ?? s.anyOf) as JsonSchema[] | undefined;
    if (branches) {
      const { oneOf: _o, anyOf: _a, discriminator: _d, ...base } = s;
      return fc.oneof(...branches.map((b) => value({ ...base, ...resolve(b, doc) }, miss, undefined, depth + 1)));
    }
    const types = typesOf(s);
    if (types.length === 0 || depth > 12) return anyJson;
    return fc.oneof(...types.map((type) => validOfType(s, type, miss, depth)));
  }

  function validOfType(s: JsonSchema, type: string, miss: number, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return validNumber(s, true);
      case 'number':
        return validNumber(s, false);
      case 'string':
        return validString(s);
      case 'array': {
        const minLength = s.minItems ?? 0;
        const maxLength = Math.min(s.maxItems ?? minLength + 3, minLength + 3);
        return fc.array(value(s.items, miss, undefined, depth + 1), { minLength, maxLength });
      }
      case 'object': {
        const props: Record<string, JsonSchema> = s.properties ?? {};
        const required = new Set<string>(s.required ?? []);
        const entries = Object.entries(props).map(([key, sub]) => {
          const v = value(sub, miss, key, depth + 1);
          // Optional properties appear about a third of the time: every one at once rarely makes sense together.
          return fc.tuple(fc.constant(key), required.has(key) ? v : fc.oneof({ arbitrary: fc.constant(undefined), weight: 2 }, { arbitrary: v, weight: 1 }));
        });
        return fc.tuple(...entries).map((kv) => Object.fromEntries(kv.filter(([, v]) => v !== undefined)));
      }
      default:
        return anyJson;
    }
  }

  /** Just outside the schema: the value a careless or hostile client would send instead. */
  function nearMissOf(s: JsonSchema, name: string | undefined, depth: number): fc.Arbitrary<unknown> {
    const types = typesOf(s);
    const misses: fc.Arbitrary<unknown>[] = [
      fc.constantFrom(...WRONG_TYPES.filter((v) => !types.includes(jsonType(v)) && !(v === null && types.includes('null')))),
    ];
    if (Array.isArray(s.enum)) {
      const strings = s.enum.filter((e: unknown): e is string => typeof e === 'string');
      misses.push(
        fc.constantFrom('x', 'ZZ', ...strings.flatMap((e: string) => [e.toLowerCase() === e ? e.toUpperCase() : e.toLowerCase(), ` ${e}`, `${e}\u0000`])),
      );
    }
    if (types.includes('string')) {
      const max = s.maxLength;
      const min = s.minLength ?? 0;
      misses.push(fc.constantFrom(...ODD_STRINGS), fc.constant('x'.repeat(10_000)), fc.string({ unit: 'binary', maxLength: 40 }));
      if (max !== undefined) misses.push(fc.constantFrom('x'.repeat(max + 1), '😀'.repeat(Math.ceil((max + 1) / 2))));
      if (min > 0) misses.push(fc.constant('z'.repeat(min - 1)));
      if (s.pattern !== undefined) {
        const re = new RegExp(s.pattern);
        misses.push(fc.tuple(fc.stringMatching(re), fc.constantFrom(' ', 'x', '-', 'Ñ', '\u0000', '0')).map(([v, c]) => v + c));
        misses.push(fc.stringMatching(re).map((v) => (v.toLowerCase() === v ? v.slice(1) : v.toLowerCase())));
      }
      if (/decimal string/i.test(s.description ?? '')) misses.push(decimalNearMiss);
      // A file field sent twice (a list of files is sent as repeated parts).
      if (s.format === 'binary') misses.push(fc.array(fc.uint8Array({ maxLength: 64 }), { minLength: 2, maxLength: 3 }));
      misses.push(fc.double().map(String), fc.integer());
    }
    if (types.includes('integer') || types.includes('number')) {
      const lo = s.minimum ?? s.exclusiveMinimum;
      const hi = s.maximum ?? s.exclusiveMaximum;
      // biome-ignore lint/correctness/noPrecisionLoss: a number too long for a double, on purpose
      const numbers: unknown[] = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0, 123456789012345678901234567890, '1', '1.0', '0x10'];
      if (lo !== undefined) numbers.push(s.exclusiveMinimum !== undefined ? lo : lo - 1);
      if (hi !== undefined) numbers.push(s.exclusiveMaximum !== undefined ? hi : hi + 1);
      if (types.includes('integer')) numbers.push(0.5, (lo ?? 0) + 0.5, 1e-7);
      misses.push(fc.constantFrom(...numbers), fc.double());
    }
    if (types.includes('boolean')) misses.push(fc.constantFrom('true', 'false', 1, 0, 'yes'));
    if (types.includes('array') && depth <= 12) {
      const item = value(s.items, 0, undefined, depth + 1);
      if ((s.minItems ?? 0) > 0) misses.push(fc.constant([]));
      if (s.maxItems !== undefined && s.maxItems <= 64) misses.push(fc.array(item, { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }));
      misses.push(item); // the item itself where a list was expected
      misses.push(fc.array(nearMissOf(resolve(s.items, doc), undefined, depth + 1), { minLength: 1, maxLength: 2 }));
    }
    if (types.includes('object') && depth <= 12) {
      const whole = validShape(s, 0, depth);
      const required: string[] = s.required ?? [];
      if (required.length) {
        misses.push(
          fc.tuple(whole, fc.nat()).map(([v, i]) => {
            const copy = { ...(v as object) } as Record<string, unknown>;
            delete copy[required[i % required.length]!];
            return copy;
          }),
        );
      }
      if (s.additionalProperties === false) {
        misses.push(
          fc.tuple(whole, fc.constantFrom('unexpected', 'tenant_id', 'id', 'Rfc', '', 'constructor', '__proto__'), anyJson).map(([v, k, x]) =>
            // Through JSON.parse, "__proto__" is an own property, as in a client's JSON.
            ({ ...(v as object), ...JSON.parse(`{${JSON.stringify(k)}:${JSON.stringify(x)}}`) }),
          ),
        );
      }
      // A property of the right name with a value outside its own schema.
      const keys = Object.keys(s.properties ?? {});
      if (keys.length) {
        misses.push(
          fc
            .tuple(whole, fc.constantFrom(...keys))
            .chain(([v, k]) => nearMissOf(resolve(s.properties[k], doc), k, depth + 1).map((bad) => ({ ...(v as object), [k]: bad }))),
        );
      }
    }
    if (name !== undefined && hints[name]) misses.push(hints[name]!.map((h) => (typeof h === 'string' ? h.toLowerCase() + ' ' : h)));
    return fc.oneof(...misses);
  }

  return {
    /** Inside the schema everywhere. */
    validValue: (schema: JsonSchema) => value(schema, 0),
    /** A near-miss of the whole value (for an object: one property dropped, added or wrong, at any depth). */
    nearMiss: (schema: JsonSchema) => nearMissOf(resolve(schema, doc), undefined, 0),
    /** Mostly valid, with near-misses at any depth (`rate` against 24 at each node). */
    mixedValue: (schema: JsonSchema, rate = 1) => value(schema, rate),
    /** The value at `path` of `base` replaced by a valid or near-miss value of the subschema there. */
    mutateAt: (schema: JsonSchema, base: unknown): fc.Arbitrary<unknown> => {
      const paths = jsonPaths(base).filter((p) => p.length > 0);
      if (paths.length === 0) return fc.constant(base);
      return fc.constantFrom(...paths).chain((path) => {
        const sub = schemaAt(schema, path, doc);
        const last = path[path.length - 1];
        const name = typeof last === 'string' ? last : undefined; // hints are by property name, not for list items
        const replacement = sub ? fc.oneof(value(sub, 0, name), nearMissOf(sub, name, path.length)) : fc.oneof(fc.constant(REMOVE), anyJson);
        return fc.oneof(replacement, fc.constant(REMOVE)).map((r) => replaceAt(base, path, r));
      });
    },
  };
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const REMOVE = Symbol('remove');

/** Every path to a node of a JSON value. */
function jsonPaths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v))
    return [at, ...Object.entries(v).flatMap(([k, c]) => jsonPaths(c, [...at, Array.isArray(v) ? Number(k) : k]))];
  return [at];
}

function replaceAt(v: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(v)) {
    const copy = [...v];
    if (rest.length === 0 && value === REMOVE) copy.splice(head as number, 1);
    else copy[head as number] = replaceAt(copy[head as number], rest, value);
    return copy;
  }
  const copy = { ...(v as Record<string, unknown>) };
  if (rest.length === 0 && value === REMOVE) delete copy[head as string];
  else copy[head as string] = replaceAt(copy[head as string], rest, value);
  return copy;
}
