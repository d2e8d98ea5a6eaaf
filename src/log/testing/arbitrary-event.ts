import fc from "fast-check";
import type { z } from "zod";
import { type EventKind, NewEvent } from "../event";

/**
 * fast-check generators for log events, built from the log's own schema (`NewEvent`), so a
 * kind added to the log is generated with no change here. Strings include invisible and
 * layout-changing characters, lone surrogates and strings longer than the log keeps (so the
 * writer's cuts are exercised); numbers keep to each field's checks.
 */

// Internal zod 4 shapes read here: the def's `type` and the fields each type carries.
interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  out?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string>;
  checks?: { _zod: { def: { check: string; format?: string; value?: number; inclusive?: boolean } } }[];
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const awkward = fc.constantFrom(
  "",
  " ",
  "\u202e",
  "\u200b",
  "\u2028",
  "\u0085",
  "\ud800",
  "é",
  "\u0000",
  '"',
  "\\",
  "\n",
  "*",
  "%2A",
  "null",
);
const text = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.array(awkward, { maxLength: 6 }).map((parts) => parts.join("")) },
  { weight: 1, arbitrary: fc.string({ minLength: 2100, maxLength: 2400 }) },
);

function numberOf(def: Def): fc.Arbitrary<number> {
  let integer = false;
  let min: number | undefined;
  let max: number | undefined;
  for (const check of def.checks ?? []) {
    const c = check._zod.def;
    if (c.check === "number_format" && (c.format === "safeint" || c.format === "int32")) integer = true;
    if (c.check === "greater_than" && c.value !== undefined) min = c.inclusive ? c.value : c.value + (integer ? 1 : Number.EPSILON);
    if (c.check === "less_than" && c.value !== undefined) max = c.inclusive ? c.value : c.value - (integer ? 1 : Number.EPSILON);
  }
  if (integer)
    return fc.oneof(
      fc.integer({ min: min ?? -1000, max: max ?? 100_000 }),
      fc.integer({ min: min ?? Number.MIN_SAFE_INTEGER, max: max ?? Number.MAX_SAFE_INTEGER }),
    );
  // JSON has no -0: the writer writes it as 0.
  return fc.double({ noNaN: true, noDefaultInfinity: true, min: min ?? -1e12, max: max ?? 1e12 }).map((n) => (Object.is(n, -0) ? 0 : n));
}

/** A generator of the values a zod schema (of the kinds the log uses) accepts. */
export function arbitraryOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const shape = def.shape ?? {};
      const required = Object.keys(shape).filter((key) => defOf(shape[key]!).type !== "optional");
      return fc.record(Object.fromEntries(Object.entries(shape).map(([key, value]) => [key, arbitraryOf(value)])), {
        requiredKeys: required,
      });
    }
    case "string":
      return text;
    case "number":
      return numberOf(def);
    case "boolean":
      return fc.boolean();
    case "literal":
      return fc.constantFrom(...(def.values ?? []));
    case "enum":
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case "optional":
    case "default":
      return arbitraryOf(def.innerType!);
    case "nullable":
      return fc.option(arbitraryOf(def.innerType!), { nil: null });
    case "array":
      return fc.oneof(
        { weight: 4, arbitrary: fc.array(arbitraryOf(def.element!), { maxLength: 4 }) },
        { weight: 1, arbitrary: fc.array(arbitraryOf(def.element!), { minLength: 20, maxLength: 40 }) },
      );
    case "record":
      return fc.dictionary(text, arbitraryOf(def.valueType!), { maxKeys: 5 }) as fc.Arbitrary<unknown>;
    case "union":
      return fc.oneof(...(def.options ?? []).map(arbitraryOf));
    case "pipe":
      // A preprocess: what the writer writes is what its output schema accepts.
      return arbitraryOf(def.out!);
    default:
      throw new Error(`arbitraryOf: no generator for a zod ${def.type}`);
  }
}

/** Every kind the log writes, each with its generator. */
export const EVENT_ARBITRARIES: ReadonlyMap<EventKind, fc.Arbitrary<NewEvent>> = new Map(
  NewEvent.options.map((option) => [option.shape.kind.value, arbitraryOf(option) as fc.Arbitrary<NewEvent>]),
);

/** Any event of any kind, every kind equally likely. */
export const arbitraryEvent: fc.Arbitrary<NewEvent> = fc.oneof(...EVENT_ARBITRARIES.values());
