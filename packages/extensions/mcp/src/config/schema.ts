// The shape of one MCP server entry: Claude Code's `.mcp.json` entry (type, command, args, env,
// url, headers) plus Keel's keys (enabled, timeouts, tool lists, hints, sampling, OAuth). The same
// schema validates Keel's own config files (through the host) and `.mcp.json` (here).
import { type Static, Type } from "@keel/extension-sdk";

const StringMap = Type.Record(Type.String(), Type.String());

/** Cross-app access: the organisation's identity provider and the user's ID token from it. */
export const IdentityProviderSchema = Type.Object(
  {
    issuer: Type.Optional(
      Type.String({ description: "The identity provider's issuer URL (its token endpoint is discovered)." }),
    ),
    tokenEndpoint: Type.Optional(
      Type.String({ description: "Its token endpoint, when not discovered from the issuer." }),
    ),
    clientId: Type.Optional(Type.String({ description: "Keel's client id at the identity provider." })),
    clientSecret: Type.Optional(
      Type.String({ description: "Its secret, when the identity provider wants one." }),
    ),
    idToken: Type.Optional(
      Type.String({ description: "The user's ID token, usually a $VAR reference set by your SSO tool." }),
    ),
    idTokenFile: Type.Optional(
      Type.String({ description: "A file holding the user's ID token, read at each exchange." }),
    ),
  },
  { additionalProperties: false },
);

export const OAuthSettingsSchema = Type.Object(
  {
    grant: Type.Optional(
      Type.Union(
        [
          Type.Literal("authorization_code"),
          Type.Literal("client_credentials"),
          Type.Literal("cross_app_access"),
        ],
        {
          description:
            "authorization_code (default): a person logs in; client_credentials: machine credentials; cross_app_access: the organisation's identity provider vouches for the user (needs idp).",
        },
      ),
    ),
    clientId: Type.Optional(Type.String({ minLength: 1, description: "A client id registered in advance." })),
    clientSecret: Type.Optional(Type.String({ description: "Its secret, for confidential clients." })),
    scope: Type.Optional(Type.String({ description: "Scopes to ask for when the server names none." })),
    callbackPort: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: "Port of the local redirect listener." }),
    ),
    clientMetadataUrl: Type.Optional(
      Type.String({ description: "An https URL of a client ID metadata document to use as client_id." }),
    ),
    privateKeyFile: Type.Optional(
      Type.String({
        description: "client_credentials with private_key_jwt: the PEM key that signs assertions.",
      }),
    ),
    signingAlgorithm: Type.Optional(Type.String({ description: "Its JWS algorithm (default ES256)." })),
    idp: Type.Optional(IdentityProviderSchema),
  },
  { additionalProperties: false },
);

export const SamplingSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: "Let this server ask Keel's model for completions." }),
    maxTokens: Type.Optional(Type.Integer({ minimum: 1, description: "Cap per request (default 1024)." })),
    maxRequests: Type.Optional(
      Type.Integer({ minimum: 1, description: "Requests this server may make per session (default 20)." }),
    ),
    model: Type.Optional(Type.String({ description: "`provider/id`; default the session's model." })),
  },
  { additionalProperties: false },
);

export const ServerEntrySchema = Type.Object(
  {
    type: Type.Optional(
      Type.Union([
        Type.Literal("stdio"),
        Type.Literal("http"),
        Type.Literal("sse"),
        Type.Literal("streamable-http"),
      ]),
    ),
    command: Type.Optional(Type.String({ minLength: 1 })),
    args: Type.Optional(Type.Array(Type.String())),
    env: Type.Optional(StringMap),
    cwd: Type.Optional(Type.String()),
    url: Type.Optional(Type.String({ minLength: 1 })),
    headers: Type.Optional(StringMap),
    enabled: Type.Optional(Type.Boolean()),
    /** Milliseconds a call may go without a response or progress (default 60000). */
    timeout: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Milliseconds connecting may take (default 30000). */
    startupTimeout: Type.Optional(Type.Integer({ minimum: 1 })),
    tools: Type.Optional(
      Type.Object(
        {
          allow: Type.Optional(Type.Array(Type.String())),
          deny: Type.Optional(Type.Array(Type.String())),
        },
        { additionalProperties: false },
      ),
    ),
    readOnlyHints: Type.Optional(Type.Union([Type.Literal("trust"), Type.Literal("ignore")])),
    sampling: Type.Optional(SamplingSettingsSchema),
    oauth: Type.Optional(Type.Union([Type.Literal(false), OAuthSettingsSchema])),
  },
  // Claude Code adds keys over time; an unknown key is not a reason to refuse a server.
  { additionalProperties: true },
);
export type ServerEntry = Static<typeof ServerEntrySchema>;

const PolicyKeys = {
  /** Server names not to start, whichever file declares them. */
  disabled: Type.Optional(Type.Array(Type.String())),
  /**
   * Whether readOnlyHint from servers declared by a project may lift the permission ask. Only
   * the user's own config may say "trust"; a project file cannot loosen this for itself.
   */
  projectReadOnlyHints: Type.Optional(Type.Union([Type.Literal("trust"), Type.Literal("ignore")])),
  /** Characters of a tool result the model gets before the rest is kept on disk (default 40000). */
  maxResultChars: Type.Optional(Type.Integer({ minimum: 1000 })),
};

/**
 * `extensions.mcp.config` as one file holds it. Each server entry is checked on its own (by
 * parseServer), so one broken entry is reported and the other servers still start.
 */
export const McpLayerSchema = Type.Object({
  servers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /**
   * Only in the host's session layer (`keel --strict-mcp-config`): use the servers that layer names
   * and no other (the user's, `.mcp.json`, the project's). Ignored in a file.
   */
  only: Type.Optional(Type.Boolean()),
  ...PolicyKeys,
});

/** The resolved configuration: the files merged, and where each server came from. */
export const McpConfigSchema = Type.Object({
  servers: Type.Record(Type.String(), Type.Unknown()),
  serverScopes: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.Literal("user"), Type.Literal("project")])),
  ),
  /** Servers the session's host named (an editor's, over ACP): they win over the project's files. */
  sessionServers: Type.Optional(Type.Array(Type.String())),
  /** The session's servers are the only ones (`--strict-mcp-config`): no file's, `.mcp.json` neither. */
  only: Type.Optional(Type.Boolean()),
  ...PolicyKeys,
});
export type McpConfig = Static<typeof McpConfigSchema>;

/** Which file a server came from: the user's own config, or a trusted project's file. */
export type ServerScope = "user" | "project";

/** `.mcp.json`, Claude Code's project file: `{ "mcpServers": { name: entry } }`. */
export const McpJsonSchema = Type.Object(
  { mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: true },
);
