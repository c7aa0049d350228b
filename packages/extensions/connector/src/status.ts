// What `/connectors` and `keel connector list|policy` print: each connector's status (never its
// token) and the rule in effect for every action, with where that rule comes from.
import type { ConnectorConfig } from "./config.js";
import type { ConnectorHub, LiveConnector } from "./hub.js";
import { ruleFor } from "./policy/policy.js";
import { type Connector, entryName } from "./sdk/connector.js";

export function howToConnect(connector: Connector, tokenEnv: string): string {
  return `set $${tokenEnv} or run \`keel connector login ${connector.id}\``;
}

export function statusLine(live: LiveConnector): string {
  const { connector, status, settings } = live;
  const head = `${connector.label} (${connector.id})`;
  switch (status.state) {
    case "disabled":
      return `${head}: disabled (extensions.connector.config.connectors.${connector.id}.enabled is false)`;
    case "not_connected": {
      const problem = status.problem ? `; ${status.problem.message}` : "";
      return `${head}: not connected — ${howToConnect(connector, status.tokenEnv)}${problem}`;
    }
    case "connected": {
      const via =
        status.credential.source.kind === "env"
          ? `$${status.credential.source.variable}`
          : `keel connector login${status.credential.account ? ` (${status.credential.account})` : ""}`;
      return `${head}: connected via ${via} · ${settings.baseUrl} · ${connector.actions.length} actions`;
    }
  }
}

export function statusLines(hub: ConnectorHub, config: ConnectorConfig): string[] {
  return hub.connectors.map((c) => statusLine(hub.live(c, config)));
}

export function policyLines(connectors: readonly Connector[], config: ConnectorConfig): string[] {
  const lines: string[] = [];
  for (const connector of connectors) {
    lines.push(`${connector.label} (${connector.id})`);
    const names = connector.actions.map((a) => entryName(connector.id, a.name));
    const width = Math.max(...names.map((n) => n.length));
    for (const action of connector.actions) {
      const entry = entryName(connector.id, action.name);
      const rule = ruleFor(
        { connectorId: connector.id, entry, effect: action.effect },
        config.policy,
        config.fromProject?.policy,
      );
      lines.push(
        `  ${rule.rule.padEnd(5)}  ${entry.padEnd(width)}  ${action.effect.padEnd(11)}  ${rule.source}`,
      );
    }
  }
  return lines;
}

export function policyReport(
  connectors: readonly Connector[],
  config: ConnectorConfig,
  scope: "session" | "user",
): string {
  const where =
    scope === "session"
      ? "Rules in effect in this session (your user config, narrowed by a trusted project where it says so):"
      : "Rules from your user config (~/.keel/config.json, extensions.connector.config.policy); a trusted project may only make them stricter:";
  const ignored = config.fromProject?.ignored ?? [];
  const note = ignored.length > 0 ? [`Ignored from the project's config: ${ignored.join("; ")}`] : [];
  return [where, ...policyLines(connectors, config), ...note].join("\n");
}
