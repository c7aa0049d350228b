// `keel models`: the catalog merged with what each provider's models endpoint lists for the key
// (cached under the Keel home for a day), as a table per provider or as JSON.
import { resolve } from "node:path";
import type { Model, ModelListing } from "@keel/ai";
import { discoverModels, type EndpointState, type ProviderDiscovery } from "@keel/coding-agent";
import type { ModelsFlags } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { createOutput } from "./print/output.js";

const compact = (n: number) =>
  n >= 1_000_000 ? `${+(n / 1_000_000).toFixed(2)}M` : n >= 1000 ? `${Math.round(n / 1000)}K` : String(n);

function price(model: Model): string {
  const unknown = new Set(model.cost.unknown ?? []);
  if (unknown.has("input") && unknown.has("output")) return "price unknown";
  const usd = (n: number) => `$${+n.toFixed(3)}`;
  const tier = model.cost.tiers?.[0];
  const long = tier ? ` (>${compact(tier.aboveInputTokens)}: ${usd(tier.input)} / ${usd(tier.output)})` : "";
  return `${usd(model.cost.input)} / ${usd(model.cost.output)}${long}`;
}

function thinking(model: Model): string {
  const spec = model.thinking;
  if (!model.reasoning) return "";
  if (!spec || spec.efforts.length === 0) return "thinking";
  const efforts = spec.efforts.join(",");
  return spec.defaultEffort ? `${efforts} (default ${spec.defaultEffort})` : efforts;
}

function when(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}

function endpointLine(endpoint: EndpointState, listed: number): string {
  switch (endpoint.state) {
    case "fetched":
      return `models endpoint: ${listed} listed for this key (asked ${when(endpoint.fetchedAt)})`;
    case "cached":
      return `models endpoint: ${listed} listed for this key (cached ${when(endpoint.fetchedAt)}; --refresh asks again)`;
    case "stale":
      return `models endpoint unreachable (${endpoint.error}); showing its answer of ${when(endpoint.fetchedAt)}`;
    case "failed":
      return `models endpoint unreachable: ${endpoint.error}`;
    case "no-key":
      return `models endpoint not asked: set ${endpoint.keyEnv} to see what your key can use`;
  }
}

function mark(row: ModelListing): string {
  if (!row.inCatalog) return "+";
  if (row.available === false) return "x";
  return row.available ? "*" : "-";
}

function table(rows: string[][]): string[] {
  const widths = rows.reduce<number[]>(
    (w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)),
    [],
  );
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

function render(discovery: ProviderDiscovery): string {
  const name = discovery.info?.name ?? discovery.provider;
  const head = [`${discovery.provider}: ${name}`];
  if (discovery.defaultModel) head.push(`default ${discovery.defaultModel}`);
  if (discovery.smallModel) head.push(`small ${discovery.smallModel}`);
  if (discovery.info) head.push(`checked ${discovery.info.checked}`);
  const listed = discovery.models.filter((m) => m.available).length;
  const rows = discovery.models.map((row) => [
    `  ${mark(row)} ${row.id}`,
    row.name,
    `${compact(row.model.contextWindow)} / ${compact(row.model.maxOutput)}`,
    price(row.model),
    thinking(row.model),
    [row.id === discovery.defaultModel ? "default" : "", row.note ?? ""].filter(Boolean).join("; "),
  ]);
  return [head.join(" · "), `  ${endpointLine(discovery.endpoint, listed)}`, ...table(rows)].join("\n");
}

const LEGEND =
  "* listed for your key   x in the catalog but not listed for your key   + listed by the endpoint only (runs with the provider's defaults)   - endpoint not asked";

export async function models(flags: ModelsFlags): Promise<number> {
  const output = createOutput();
  const found = await discoverModels({
    cwd: resolve(flags.cwd ?? "."),
    ...(flags.provider !== undefined ? { provider: flags.provider } : {}),
    refresh: flags.refresh,
  });
  if (found.isErr()) {
    output.note(found.error.message);
    await output.flush();
    return EXIT.usage;
  }
  if (flags.json) {
    output.json({
      type: "models",
      providers: found.value.map((p) => ({
        provider: p.provider,
        ...(p.defaultModel ? { defaultModel: p.defaultModel } : {}),
        ...(p.smallModel ? { smallModel: p.smallModel } : {}),
        ...(p.info ? { checked: p.info.checked, sources: p.info.sources } : {}),
        endpoint: p.endpoint,
        models: p.models.map(({ model, ...row }) => ({
          ...row,
          contextWindow: model.contextWindow,
          maxOutput: model.maxOutput,
          cost: model.cost,
          ...(model.thinking ? { thinking: model.thinking } : {}),
        })),
      })),
    });
  } else {
    output.text(`${found.value.map(render).join("\n\n")}\n\n${LEGEND}`);
  }
  await output.flush();
  return EXIT.ok;
}
