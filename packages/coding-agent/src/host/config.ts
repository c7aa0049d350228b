// An extension's configuration from the user and (trusted) project layers, per its declared scope.
// Layers are validated as written (a layered extension's partial layer schema), `resolve` sees the
// raw layers, and defaults are applied once, after: the one merge rule of config/merge.ts.
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { type TSchema, Type, TypeGuard } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { err, ok, type Result } from "neverthrow";
import { mergeLayers } from "../config/merge.js";
import { errnoMessage } from "../fs/errno.js";
import type { ConfigControl } from "./runtime.js";

export interface ExtensionConfigLayers {
  /** extensions.<id>.config from ~/.keel/config.json, by extension id. */
  user: Record<string, unknown>;
  /** The project's and project-local files merged, by extension id; undefined unless trusted. */
  project: Record<string, unknown> | undefined;
  /** The host's layer for this session (`CodingAgentOptions.extensionConfig`), by extension id. */
  session?: Record<string, unknown>;
  userFile: string;
  projectFile: string;
}

/** Why an extension's configuration cannot be used: a layer or the resolved value fails its schema, or resolve() threw. */
export interface ExtensionConfigError {
  type: "extension_config";
  message: string;
}

const refused = (message: string) => err<never, ExtensionConfigError>({ type: "extension_config", message });

function firstError(schema: TSchema, value: unknown): string {
  const first = [...Value.Errors(schema, value)][0];
  return `${first?.path ?? ""} ${first?.message ?? "is invalid"}`;
}

/** What one file may hold: the declared layer schema, or the resolved schema with every key optional. */
function layerSchemaOf(definition: ExtensionDefinition): TSchema {
  const spec = definition.configuration!;
  if (spec.scope === "layered" && spec.layerSchema) return spec.layerSchema;
  if (spec.scope === "layered" && TypeGuard.IsObject(spec.schema)) return Type.Partial(spec.schema);
  return spec.schema;
}

export function resolveExtensionConfig(
  definition: ExtensionDefinition,
  layers: ExtensionConfigLayers,
): Result<ConfigControl, ExtensionConfigError> {
  const spec = definition.configuration;
  if (!spec) {
    return ok({
      current: () => undefined,
      userBase: () => undefined,
      adopt: () => refused(`extension ${definition.id} declares no configuration`),
    });
  }
  const id = definition.id;
  const layerSchema = layerSchemaOf(definition);
  const where = (file: string) => `${file}: /extensions/${id}/config`;

  // Only the layers the scope reads are validated: a project must not be able to knock out a
  // user-scoped extension with configuration it was never going to read.
  const checkLayer = (value: unknown, file: string): string | undefined => {
    if (value === undefined) return undefined;
    // A single-scope file is the whole configuration over the defaults; a layer is what it holds.
    const candidate =
      spec.scope === "layered"
        ? value
        : Value.Default(spec.schema, mergeLayers(structuredClone(spec.default), value));
    return Value.Check(layerSchema, candidate)
      ? undefined
      : `${where(file)}${firstError(layerSchema, candidate)}`;
  };
  let user = spec.scope === "project" ? undefined : layers.user[id];
  const project = spec.scope === "user" ? undefined : layers.project?.[id];
  const userProblem = checkLayer(user, layers.userFile);
  if (userProblem) return refused(userProblem);
  const projectProblem = checkLayer(project, layers.projectFile);
  if (projectProblem) return refused(projectProblem);
  const session = layers.session?.[id];
  const sessionProblem = checkLayer(session, "the host's session configuration");
  if (sessionProblem) return refused(sessionProblem);

  const finish = (raw: unknown, what: string): Result<unknown, ExtensionConfigError> => {
    const value = Value.Default(spec.schema, mergeLayers(structuredClone(spec.default), raw));
    if (Value.Check(spec.schema, value)) return ok(value);
    return refused(`${what}: /extensions/${id}/config${firstError(spec.schema, value)}`);
  };
  const resolveWith = (userLayer: unknown): Result<unknown, ExtensionConfigError> => {
    if (spec.scope === "user")
      return finish(mergeLayers(userLayer, session), `the configuration in ${layers.userFile}`);
    if (spec.scope === "project")
      return finish(mergeLayers(project, session), `the configuration in ${layers.projectFile}`);
    const resolve = spec.scope === "layered" ? spec.resolve : undefined;
    if (resolve) {
      let resolved: unknown;
      try {
        resolved = resolve({
          user: userLayer as never,
          project: project as never,
          ...(session !== undefined ? { session: session as never } : {}),
        });
      } catch (e) {
        return refused(`resolve() of extension ${id} threw: ${errnoMessage(e)}`);
      }
      return finish(resolved, "the resolved configuration");
    }
    return finish(mergeLayers(mergeLayers(userLayer, project), session), "the merged configuration");
  };

  const first = resolveWith(user);
  if (first.isErr()) return err(first.error);
  let current = first.value;
  return ok({
    current: () => current,
    userBase: () => Value.Default(spec.schema, mergeLayers(structuredClone(spec.default), user)),
    adopt: (next, write) => {
      const problem = checkLayer(next, layers.userFile);
      if (problem) return refused(problem);
      const resolved = resolveWith(next);
      if (resolved.isErr()) return err(resolved.error);
      const failed = write();
      if (failed) return refused(failed);
      user = next;
      current = resolved.value;
      return ok(current);
    },
  });
}
