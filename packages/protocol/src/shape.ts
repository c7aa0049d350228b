// The few constructors every schema here is written with: closed objects that say what they are,
// and arrays the TypeScript side keeps read-only.
import {
  type Static,
  type TLiteral,
  type TProperties,
  type TSchema,
  type TUnion,
  type TUnsafe,
  Type,
} from "@sinclair/typebox";

/** An object with exactly these properties (the vocabulary is closed: a new field is a new schema). */
export const strict = <P extends TProperties>(properties: P, description?: string) =>
  Type.Object(
    properties,
    description === undefined
      ? { additionalProperties: false }
      : { additionalProperties: false, description },
  );

/** One literal of each value: `Type.Union` of `Type.Literal`s. */
export const literals = <const V extends readonly string[]>(
  values: V,
  description?: string,
): TUnion<TLiteral<V[number]>[]> =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description === undefined ? {} : { description },
  );

/** An array whose TypeScript type is `readonly T[]` (the JSON Schema is the same as `Type.Array`). */
export const readonlyArray = <T extends TSchema>(item: T): TUnsafe<readonly Static<T>[]> =>
  Type.Unsafe<readonly Static<T>[]>(Type.Array(item));
