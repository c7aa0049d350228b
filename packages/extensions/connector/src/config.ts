// The extension's configuration: per-connector settings and the approval policy, from the user's
// config file. A trusted project's layer is read only to narrow the policy; everything else in it
// is ignored and said once (a project must not redirect a token to its own server or widen a rule).
import { type Static, Type } from "@keel/extension-sdk";
import type { PolicyConfig, PolicyRule } from "./policy/policy.js";
import { SIDE_EFFECT_CLASSES } from "./sdk/connector.js";

const Rule = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]);

export const PolicySchema = Type.Object(
  {
    classes: Type.Optional(
      Type.Object(
        {
          read: Type.Optional(Rule),
          create: Type.Optional(Rule),
          update: Type.Optional(Rule),
          destructive: Type.Optional(Rule),
        },
        { additionalProperties: false },
      ),
    ),
    connectors: Type.Optional(Type.Record(Type.String(), Rule)),
    actions: Type.Optional(Type.Record(Type.String(), Rule)),
  },
  { additionalProperties: false, default: {} },
);

export const ConnectorSettingsSchema = Type.Object(
  {
    /** Default true; false hides the connector entirely (no catalog, no "not connected" line). */
    enabled: Type.Optional(Type.Boolean()),
    /** The API base URL: GitHub Enterprise (`https://ghe.example.com/api/v3`), a self-hosted instance. */
    baseUrl: Type.Optional(Type.String({ pattern: "^https?://" })),
    /** The environment variable holding the token (default per connector: GITHUB_TOKEN, LINEAR_API_KEY). */
    tokenEnv: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" })),
  },
  { additionalProperties: false },
);

export const ConnectorConfigSchema = Type.Object(
  {
    connectors: Type.Record(Type.String(), ConnectorSettingsSchema, { default: {} }),
    policy: PolicySchema,
    /** Connector packages to load: absolute paths (or ~/…) to their built entry files. */
    modules: Type.Array(Type.String(), { default: [] }),
    /** How long "allow this exact call" lasts. */
    exactCallMinutes: Type.Integer({ minimum: 1, maximum: 1440, default: 10 }),
    /**
     * Derived, never written: what a trusted project's layer contributed (its narrowing rules)
     * and what of it was ignored, for one diagnostic.
     */
    fromProject: Type.Optional(
      Type.Object(
        { policy: PolicySchema, ignored: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export type ConnectorConfig = Static<typeof ConnectorConfigSchema>;
export type ConnectorSettingsConfig = Static<typeof ConnectorSettingsSchema>;

export const DEFAULT_CONFIG: ConnectorConfig = {
  connectors: {},
  policy: {},
  modules: [],
  exactCallMinutes: 10,
};

/** What a file layer may hold: anything object-shaped, so a project's layer is classified below, not refused. */
export const LayerSchema = Type.Record(Type.String(), Type.Unknown());

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRule(value: unknown): value is PolicyRule {
  return value === "allow" || value === "ask" || value === "deny";
}

/** Keeps the rules of a project's policy that can only narrow (ask, deny); lists the rest as ignored. */
export function narrowingPolicy(raw: unknown): { policy: PolicyConfig; ignored: string[] } {
  const ignored: string[] = [];
  const policy: PolicyConfig = {};
  if (!isRecord(raw)) return { policy, ignored: ["policy (not an object)"] };
  const keep = (path: string, value: unknown): PolicyRule | undefined => {
    if (!isRule(value)) {
      ignored.push(`${path} (${JSON.stringify(value)} is not allow, ask or deny)`);
      return undefined;
    }
    if (value === "allow") {
      ignored.push(`${path}: "allow" (a project may only make the policy stricter)`);
      return undefined;
    }
    return value;
  };
  for (const [key, value] of Object.entries(raw)) {
    if (key === "classes" && isRecord(value)) {
      for (const [effect, rule] of Object.entries(value)) {
        if (!(SIDE_EFFECT_CLASSES as readonly string[]).includes(effect)) {
          ignored.push(`policy.classes.${effect} (no such class)`);
          continue;
        }
        const kept = keep(`policy.classes.${effect}`, rule);
        if (kept) policy.classes = { ...policy.classes, [effect]: kept };
      }
    } else if ((key === "connectors" || key === "actions") && isRecord(value)) {
      const out: Record<string, PolicyRule> = {};
      for (const [name, rule] of Object.entries(value)) {
        const kept = keep(`policy.${key}.${name}`, rule);
        if (kept) out[name] = kept;
      }
      if (Object.keys(out).length > 0) policy[key] = out;
    } else {
      ignored.push(`policy.${key} (not a policy section)`);
    }
  }
  return { policy, ignored };
}

/**
 * Layers → configuration. The user's layer is taken as written (the schema then validates it);
 * the project's contributes only narrowing policy rules, and says what it tried besides.
 */
export function resolveLayers(layers: {
  user: Record<string, unknown> | undefined;
  project: Record<string, unknown> | undefined;
}): Partial<ConnectorConfig> {
  const { fromProject: _derived, ...user } = layers.user ?? {};
  if (!layers.project) return user as Partial<ConnectorConfig>;
  const ignored: string[] = [];
  let policy: PolicyConfig = {};
  for (const [key, value] of Object.entries(layers.project)) {
    if (key === "policy") {
      const narrowed = narrowingPolicy(value);
      policy = narrowed.policy;
      ignored.push(...narrowed.ignored);
    } else {
      ignored.push(`${key} (only your user config may set it)`);
    }
  }
  return { ...(user as Partial<ConnectorConfig>), fromProject: { policy, ignored } };
}

/** The user's own layer of a resolved configuration: what `updateConfig("user")` may write back. */
export function userLayer(config: ConnectorConfig): ConnectorConfig {
  const { fromProject: _derived, ...user } = config;
  return user;
}
