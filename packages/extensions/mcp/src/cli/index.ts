// `keel mcp …` as the CLI sees it: name, summary and usage, with the work (and the MCP SDK it
// needs) loaded only when the command runs, so `keel`'s own start never pays for it.
import type { ExtensionCliCommand } from "@keel/extension-sdk";
import { importEsm } from "../esm-import.js";
import { USAGE } from "./usage.js";

export const mcpCli: ExtensionCliCommand = {
  name: "mcp",
  summary: "Manage MCP servers (add, list, get, remove, login)",
  usage: USAGE,
  run: async (argv, io) =>
    ((await importEsm("@keel/ext-mcp/client")) as typeof import("../client.js")).runMcpCli(argv, io),
};
