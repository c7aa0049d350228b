// An extension's configuration from the user and (trusted) project layers, per its declared scope.
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { Value } from "@sinclair/typebox/value";

export interface ExtensionConfigLayers {
  /** extensions.<id>.config from ~/.keel/config.json. */
  user: Record<string, unknown>;
  /** extensions.<id>.config from the project's config; undefined unless the project is trusted. */
  project: Record<string, unknown> | undefined;
  userFile: string;
  projectFile: string;
}

export type ConfigOutcome = { ok: true; value: unknown } | { ok: false; message: string };

function check(definition: ExtensionDefinition, value: unknown, file: string): ConfigOutcome {
  const spec = definition.configuration!;
  const withDefaults = Value.Default(spec.schema, structuredClone(value));
  if (Value.Check(spec.schema, withDefaults)) return { ok: true, value: withDefaults };
  const first = [...Value.Errors(spec.schema, withDefaults)][0];
  return {
    ok: false,
    message: `${file}: /extensions/${definition.id}/config${first?.path ?? ""} ${first?.message ?? "is invalid"}`,
  };
}

export function resolveExtensionConfig(
  definition: ExtensionDefinition,
  layers: ExtensionConfigLayers,
): ConfigOutcome {
  const spec = definition.configuration;
  if (!spec) return { ok: true, value: undefined };
  const raw = (layer: Record<string, unknown> | undefined) => layer?.[definition.id];
  const validated = (value: unknown, file: string): ConfigOutcome =>
    value === undefined ? { ok: true, value: undefined } : check(definition, value, file);

  // Only the layers the scope reads are validated: a project must not be able to knock out a
  // user-scoped extension with configuration it was never going to read.
  const user: ConfigOutcome =
    spec.scope === "project" ? { ok: true, value: undefined } : validated(raw(layers.user), layers.userFile);
  if (!user.ok) return user;
  const project: ConfigOutcome =
    spec.scope === "user"
      ? { ok: true, value: undefined }
      : validated(raw(layers.project), layers.projectFile);
  if (!project.ok) return project;

  if (spec.scope === "user") return { ok: true, value: user.value ?? structuredClone(spec.default) };
  if (spec.scope === "project") return { ok: true, value: project.value ?? structuredClone(spec.default) };
  if (spec.scope === "layered" && spec.resolve) {
    const resolved = spec.resolve({ user: user.value as never, project: project.value as never });
    return check(definition, resolved, "resolved configuration");
  }
  const merge = (a: unknown, b: unknown): unknown =>
    isPlainObject(a) && isPlainObject(b) ? { ...a, ...b } : (b ?? a);
  // The layers as written are merged, then schema defaults fill the result: a default filled into
  // the project layer would otherwise override what the user set.
  const merged = merge(merge(structuredClone(spec.default), raw(layers.user)), raw(layers.project));
  return check(definition, merged, "merged configuration");
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
