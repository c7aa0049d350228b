// The connector extension: each connector's actions in its own catalog group, listed only once
// it has credentials (a login mid-session arrives as a diff notice), every call through the
// user's approval policy with its decision journaled, `/connectors`, and `keel connector …`.
import { defineExtension, type ExtensionRuntime, type ToolCatalog } from "@keel/extension-sdk";
import { err, ok } from "neverthrow";
import { connectorCli } from "./cli.js";
import {
  type ConnectorConfig,
  ConnectorConfigSchema,
  DEFAULT_CONFIG,
  LayerSchema,
  resolveLayers,
  userLayer,
} from "./config.js";
import { connectorEntries, type EntryDeps } from "./entries.js";
import { ConnectorHub } from "./hub.js";
import { LoginWatch } from "./login-watch.js";
import { loadConnectorModules } from "./modules.js";
import { ExactCallGrants } from "./policy/grants.js";
import { unknownPolicyKeys, withAlwaysAllowed } from "./policy/policy.js";
import type { Connector } from "./sdk/connector.js";
import { entryName } from "./sdk/connector.js";
import { type ConnectorState, ConnectorStateSchema } from "./state.js";
import { howToConnect, policyReport, statusLines } from "./status.js";
import { ToldOnce } from "./told.js";

export interface ConnectorInstance {
  hub: ConnectorHub;
  grants: ExactCallGrants;
  logins: LoginWatch;
}

export type ConnectorRuntime = ExtensionRuntime<ConnectorConfig, ConnectorState, ConnectorInstance>;

export interface ConnectorExtensionOptions {
  connectors: readonly Connector[];
  /** Where tokens are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The clock for "this exact call" grants (default `Date.now`). */
  now?: () => number;
}

function entryDeps(runtime: ConnectorRuntime, now: () => number): EntryDeps {
  return {
    config: () => runtime.config,
    hub: runtime.instance.hub,
    grants: runtime.instance.grants,
    now,
    protect: (token) => runtime.protectSecret({ value: token }),
    // The state holds only the latest decision, so the journal holds each one, in order.
    record: (decision) => runtime.state.set({ decision }),
    persistAlways: (entry) => {
      const written = runtime.updateConfig("user", (current) => {
        const own = userLayer(current);
        return { ...own, policy: withAlwaysAllowed(own.policy, entry) };
      });
      // `updateConfig` answers with the SDK's ConfigUpdate union; inside the connector it is a Result.
      return written.ok ? ok(undefined) : err({ type: "config_not_saved", message: written.message });
    },
  };
}

function connectorCatalog(connector: Connector, now: () => number): ToolCatalog<ConnectorRuntime> {
  return {
    id: connector.id,
    group: connector.id,
    kind: "tools",
    notice: {
      heading: `${connector.label} actions (find them with SearchTools, run them with ExecuteTool):`,
    },
    discover: (runtime) => {
      const live = runtime.instance.hub.live(connector, runtime.config);
      return live.status.state === "connected" ? connectorEntries(connector, entryDeps(runtime, now)) : [];
    },
    // `keel connector login|logout` rewrite the credentials file; the next request rediscovers.
    subscribe: (invalidate, runtime) => runtime.instance.logins.listen(invalidate),
  };
}

function reportOnce(runtime: Omit<ConnectorRuntime, "instance">, hub: ConnectorHub): void {
  const config = runtime.config;
  const told = new ToldOnce(runtime.dataDir());
  for (const connector of hub.connectors) {
    const live = hub.live(connector, config);
    if (live.status.state === "connected") told.forget(connector.id);
    if (live.status.state !== "not_connected") continue;
    const line = `${connector.label} is not connected, so its actions are not offered: ${howToConnect(connector, live.tokenEnv)}.`;
    // Said where a person is at the session (the TUI), once until it changes (`keel connector
    // list` and `/connectors` say it any time); a script's stderr stays its own (print mode
    // writes it to the debug log, and that does not count as the user having seen it).
    if (runtime.ui.supports.confirm && told.first(connector.id, line)) runtime.report("info", line);
    else runtime.debug(line);
  }
  const saved = told.save();
  if (saved.isErr())
    runtime.debug(`connector: could not record the connection hints already shown: ${saved.error.message}`);
  const ignored = config.fromProject?.ignored ?? [];
  if (ignored.length > 0)
    runtime.report(
      "warning",
      `The project's config tried to set connector settings only your user config may set; ignored: ${ignored.join("; ")}.`,
    );
  const known = {
    connectors: new Set(hub.connectors.map((c) => c.id)),
    entries: new Set(hub.connectors.flatMap((c) => c.actions.map((a) => entryName(c.id, a.name)))),
  };
  const unknown = unknownPolicyKeys(config.policy, known);
  if (unknown.length > 0)
    runtime.report(
      "warning",
      `Connector policy rules that name nothing known (typo?): ${unknown.join(", ")}.`,
    );
}

/** The connector extension over the given connectors (plus any the user's config names in `modules`). */
export function connectorExtension(options: ConnectorExtensionOptions) {
  const now = options.now ?? Date.now;
  const builtIn = options.connectors;
  return defineExtension({
    id: "connector",
    description: "Third-party service actions (GitHub, Linear, …) behind your approval policy.",
    configuration: {
      scope: "layered",
      schema: ConnectorConfigSchema,
      default: DEFAULT_CONFIG,
      layerSchema: LayerSchema,
      resolve: (layers) =>
        resolveLayers(
          layers as {
            user: Record<string, unknown> | undefined;
            project: Record<string, unknown> | undefined;
          },
        ),
    },
    sessionState: { schema: ConnectorStateSchema, default: {} },
    lifecycle: {
      async activate(context): Promise<ConnectorInstance> {
        const loaded = await loadConnectorModules(context.config.modules, new Set(builtIn.map((c) => c.id)));
        for (const problem of loaded.problems) context.report("warning", problem);
        const hub = new ConnectorHub([...builtIn, ...loaded.connectors], options.env ?? process.env, () =>
          context.dataDir(),
        );
        for (const connector of loaded.connectors) {
          const added = context.catalogs.add(
            // Typed for the activation context (no instance yet); discover runs with the full runtime.
            connectorCatalog(connector, now) as unknown as Parameters<typeof context.catalogs.add>[0],
          );
          if (!added.ok) context.report("warning", `connector ${connector.id}: ${added.message}`);
        }
        // Tokens stay out of the commands the model runs and out of every tool result.
        for (const connector of hub.connectors) {
          context.protectSecret({ env: hub.settingsOf(connector, context.config).tokenEnv });
          const token = hub.currentToken(connector, context.config);
          if (token) context.protectSecret({ value: token });
        }
        // A child agent's session shares the parent's connectors; the parent already said this.
        if (!context.session.parent) reportOnce(context, hub);
        return {
          hub,
          grants: new ExactCallGrants(context.config.exactCallMinutes * 60_000),
          logins: new LoginWatch(
            () => context.dataDir(),
            (message) => context.debug(message),
          ),
        };
      },
    },
    hooks: {
      runStart: (_event, runtime) => runtime.instance.logins.check(),
    },
    catalogs: builtIn.map((connector) => connectorCatalog(connector, now)),
    commands: [
      {
        name: "connectors",
        description: "Connectors, their status and the approval policy in effect",
        run: (_args, runtime) => ({
          message: [
            "Connectors:",
            ...statusLines(runtime.instance.hub, runtime.config).map((l) => `  ${l}`),
            "",
            policyReport(runtime.instance.hub.connectors, runtime.config, "session"),
          ].join("\n"),
        }),
      },
    ],
    cli: [connectorCli(builtIn)],
  });
}
