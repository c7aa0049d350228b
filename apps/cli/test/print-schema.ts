// The shipped schema (dist/print.v1.schema.json, as the package publishes it) compiled with Ajv:
// every test that reads print mode's json or stream-json output checks each line against it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv, type ValidateFunction } from "ajv";

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "../dist/print.v1.schema.json");

let compiled: Record<"StreamLine" | "JsonOutput" | "InputLine" | "any", ValidateFunction> | undefined;

export function validators() {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(SCHEMA_FILE, "utf8")) as { $id: string };
  const ajv = new Ajv({ strict: true, allErrors: true });
  ajv.addSchema(schema);
  const get = (fragment: string) => {
    const v = ajv.getSchema(`${schema.$id}${fragment}`);
    if (!v) throw new Error(`the schema has no ${fragment}`);
    return v;
  };
  compiled = {
    StreamLine: get("#/definitions/StreamLine"),
    JsonOutput: get("#/definitions/JsonOutput"),
    InputLine: get("#/definitions/InputLine"),
    any: get(""),
  };
  return compiled;
}

/** Throws, naming the line and what the schema says, unless `value` is valid for `which`. */
export function assertValid(
  value: unknown,
  which: "StreamLine" | "JsonOutput" | "InputLine" | "any" = "any",
): void {
  const validate = validators()[which];
  if (validate(value)) return;
  // anyOf errors list every branch; the ones about the branch of the line's own type say why.
  const type = (value as { type?: unknown }).type;
  const errors = (validate.errors ?? []).map(
    (e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`,
  );
  throw new Error(
    `a ${String(type)} line does not match the ${which} schema:\n${JSON.stringify(value).slice(0, 600)}\n${errors.slice(0, 12).join("\n")}`,
  );
}
