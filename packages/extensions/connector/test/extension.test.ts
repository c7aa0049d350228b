// The declaration: catalogs per connector listed only with credentials, one line on how to
// connect, a login mid-session noticed through `subscribe`, the project's ignored settings said
// once, `/connectors`, and connector packages loaded from the user's `modules`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionDefinition } from "@keel/extension-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { saveCredential } from "../src/credentials.js";
import {
  connectorExtension,
  githubConnector,
  linearConnector,
  officialConnectorExtension,
} from "../src/index.js";
import { GITHUB_TOKEN } from "./fakes/github.js";
import { activate } from "./harness.js";

const temp = mkdtempSync(join(tmpdir(), "keel-connector-ext-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the connector extension", () => {
  it("declares one catalog group per connector, the command and the CLI", () => {
    // What hosts take (the CLI's officialExtensions()): the typed definition must fit it.
    const general: ExtensionDefinition = officialConnectorExtension;
    expect(general.id).toBe("connector");
    expect(officialConnectorExtension.id).toBe("connector");
    expect(officialConnectorExtension.catalogs!.map((c) => [c.id, c.group, c.kind])).toEqual([
      ["github", "github", "tools"],
      ["linear", "linear", "tools"],
    ]);
    expect(officialConnectorExtension.commands!.map((c) => c.name)).toEqual(["connectors"]);
    expect(officialConnectorExtension.cli!.map((c) => c.name)).toEqual(["connector"]);
    expect(officialConnectorExtension.configuration!.scope).toBe("layered");
  });

  it("without credentials it lists nothing and says once how to connect", async () => {
    const h = await activate({ connectors: [githubConnector, linearConnector] });
    expect(await h.entries("github")).toEqual([]);
    expect(await h.entries("linear")).toEqual([]);
    expect(h.reports).toEqual([
      {
        level: "info",
        message:
          "GitHub is not connected, so its actions are not offered: set $GITHUB_TOKEN or run `keel connector login github`.",
      },
      {
        level: "info",
        message:
          "Linear is not connected, so its actions are not offered: set $LINEAR_API_KEY or run `keel connector login linear`.",
      },
    ]);
    h.cleanup();
  });

  it("says it once per connector across starts; again when the hint changes or after a connection", async () => {
    const dataDir = mkdtempSync(join(temp, "told-"));
    const start = async (options: { env?: Record<string, string>; tokenEnv?: string } = {}) => {
      const h = await activate({
        connectors: [githubConnector, linearConnector],
        dataDir,
        ...(options.env ? { env: options.env } : {}),
        ...(options.tokenEnv ? { config: { connectors: { github: { tokenEnv: options.tokenEnv } } } } : {}),
      });
      return h.reports.filter((r) => r.level === "info").map((r) => r.message.split(" ")[0]);
    };
    expect(await start()).toEqual(["GitHub", "Linear"]);
    // The next start (a new session, another project) says nothing new.
    expect(await start()).toEqual([]);
    // A renamed variable is a different hint.
    expect(await start({ tokenEnv: "GH_WORK_TOKEN" })).toEqual(["GitHub"]);
    expect(await start({ tokenEnv: "GH_WORK_TOKEN" })).toEqual([]);
    // Connected once, then the token gone: that is news again.
    expect(await start({ env: { GH_WORK_TOKEN: GITHUB_TOKEN }, tokenEnv: "GH_WORK_TOKEN" })).toEqual([]);
    expect(await start({ tokenEnv: "GH_WORK_TOKEN" })).toEqual(["GitHub"]);
  });

  it("when what was told cannot be kept, the debug log says why and the next start says it again", async () => {
    const dataDir = mkdtempSync(join(temp, "told-unwritable-"));
    // A folder where the file goes: no rename can replace it, whoever runs the test.
    mkdirSync(join(dataDir, "told.json", "blocked"), { recursive: true });
    const first = await activate({ connectors: [githubConnector], dataDir });
    expect(first.reports.map((r) => r.level)).toEqual(["info", "debug"]);
    expect(first.reports[1]!.message).toMatch(
      /^connector: could not record the connection hints already shown: .+/,
    );
    const again = await activate({ connectors: [githubConnector], dataDir });
    expect(again.reports.map((r) => r.level)).toEqual(["info", "debug"]);
  });

  it("print mode's debug line does not count as told: the next interactive start says it", async () => {
    const dataDir = mkdtempSync(join(temp, "told-headless-"));
    const headless = await activate({ connectors: [githubConnector], dataDir, interactive: false });
    expect(headless.reports.map((r) => r.level)).toEqual(["debug"]);
    const again = await activate({ connectors: [githubConnector], dataDir, interactive: false });
    expect(again.reports.map((r) => r.level)).toEqual(["debug"]);
    const tui = await activate({ connectors: [githubConnector], dataDir });
    expect(tui.reports.map((r) => r.level)).toEqual(["info"]);
  });

  it("headless (print mode) it says so only in the debug log, keeping a script's stderr clean", async () => {
    const h = await activate({ connectors: [githubConnector], interactive: false });
    expect(h.reports).toEqual([
      {
        level: "debug",
        message:
          "GitHub is not connected, so its actions are not offered: set $GITHUB_TOKEN or run `keel connector login github`.",
      },
    ]);
    h.cleanup();
  });

  it("a disabled connector says nothing; a renamed variable is the one named", async () => {
    const h = await activate({
      connectors: [githubConnector, linearConnector],
      config: { connectors: { github: { tokenEnv: "GH_WORK_TOKEN" }, linear: { enabled: false } } },
    });
    expect(h.reports.map((r) => r.message)).toEqual([
      "GitHub is not connected, so its actions are not offered: set $GH_WORK_TOKEN or run `keel connector login github`.",
    ]);
    h.cleanup();
  });

  it("a login while the session runs invalidates the catalog, and the next discovery lists the actions", async () => {
    const h = await activate({ connectors: [githubConnector] });
    const catalog = connectorExtension({ connectors: [githubConnector] }).catalogs![0]!;
    let invalidated = 0;
    const woke = new Promise<void>((resolve) => {
      const unsubscribe = catalog.subscribe!(() => {
        invalidated++;
        unsubscribe?.();
        resolve();
      }, h.runtime);
    });
    expect(await h.entries("github")).toEqual([]);
    saveCredential(h.dataDir, "github", { token: GITHUB_TOKEN, savedAt: "now" });
    await woke;
    expect(invalidated).toBe(1);
    expect((await h.entries("github")).length).toBe(15);
    h.cleanup();
  });

  it("a run start looks at the credentials file itself, so a login before the prompt is never missed", async () => {
    const h = await activate({ connectors: [githubConnector] });
    const definition = connectorExtension({ connectors: [githubConnector] });
    let invalidated = 0;
    const unsubscribe = definition.catalogs![0]!.subscribe!(() => invalidated++, h.runtime);
    saveCredential(h.dataDir, "github", { token: GITHUB_TOKEN, savedAt: "now" });
    await definition.hooks!.runStart!({ prompt: "go" }, h.runtime, { signal: new AbortController().signal });
    expect(invalidated).toBe(1);
    // Nothing changed since: a second run start (or a late watcher event) says nothing.
    await definition.hooks!.runStart!({ prompt: "again" }, h.runtime, {
      signal: new AbortController().signal,
    });
    expect(invalidated).toBe(1);
    unsubscribe?.();
    h.cleanup();
  });

  it("settings a project tried to set are reported once, as a warning", async () => {
    const h = await activate({
      connectors: [githubConnector],
      env: { GITHUB_TOKEN },
      config: {
        fromProject: {
          policy: {},
          ignored: ['policy.classes.create: "allow" (a project may only make the policy stricter)'],
        },
      },
    });
    expect(h.reports).toEqual([
      {
        level: "warning",
        message:
          'The project\'s config tried to set connector settings only your user config may set; ignored: policy.classes.create: "allow" (a project may only make the policy stricter).',
      },
    ]);
    h.cleanup();
  });

  it("a child agent's session does not repeat the parent's lines", async () => {
    const h = await activate({ connectors: [githubConnector] });
    const child = {
      ...h.runtime,
      session: { ...h.runtime.session, parent: { sessionId: "p", agentId: "a" } },
    };
    const reports: string[] = [];
    child.report = (_level, message) => reports.push(message);
    // A user who was never told (the harness's own activation told the first data folder).
    const fresh = mkdtempSync(join(temp, "child-"));
    child.dataDir = () => fresh;
    const definition = connectorExtension({ connectors: [githubConnector], env: {} });
    await definition.lifecycle!.activate!({ ...child, signal: new AbortController().signal } as never);
    expect(reports).toEqual([]);
    // The same activation in a top-level session says it.
    await definition.lifecycle!.activate!({
      ...child,
      session: h.runtime.session,
      signal: new AbortController().signal,
    } as never);
    expect(reports).toEqual([expect.stringContaining("GitHub is not connected")]);
    h.cleanup();
  });

  it("/connectors shows each connector's status and the policy in effect", async () => {
    const h = await activate({
      connectors: [githubConnector, linearConnector],
      env: { GITHUB_TOKEN },
      config: { policy: { connectors: { linear: "deny" } } },
    });
    const command = officialConnectorExtension.commands![0]!;
    const out = await command.run("", h.runtime as never, { signal: new AbortController().signal });
    const message = (out as { message: string }).message;
    expect(message).toContain(
      "GitHub (github): connected via $GITHUB_TOKEN · https://api.github.com · 15 actions",
    );
    expect(message).toContain("Linear (linear): not connected");
    expect(message).toContain("Rules in effect in this session");
    expect(message).toMatch(/deny\s+linear__list_teams\s+read\s+policy\.connectors\.linear/);
    expect(message).not.toContain(GITHUB_TOKEN);
    h.cleanup();
  });

  it("loads connector packages named in the user's modules, and reports the ones that fail", async () => {
    const file = join(temp, "echo-connector.mjs");
    writeFileSync(
      file,
      `export const echo = {
        id: "echo", label: "Echo", defaultBaseUrl: "http://127.0.0.1:1",
        auth: { env: "ECHO_TOKEN", tokenName: "token", help: "any" },
        client: () => ({}), classifyError: () => ({ type: "failed", message: "x" }),
        actions: [],
      };\n`,
    );
    const h = await activate({
      connectors: [githubConnector],
      env: { ECHO_TOKEN: "e", GITHUB_TOKEN },
      config: { modules: [file, "relative/path.js", join(temp, "missing.mjs")] },
    });
    expect(h.runtime.instance.hub.connectors.map((c) => c.id)).toEqual(["github", "echo"]);
    expect(h.reports.map((r) => r.message)).toEqual([
      'modules: "relative/path.js" is not an absolute path (or ~/…) to a connector package\'s entry file',
      expect.stringContaining(`modules: ${join(temp, "missing.mjs")} could not be loaded`),
    ]);
    h.cleanup();
  });
});
