// Cache discipline when a connector logs in mid-session: its actions reach the model as a
// capability notice appended before the next request, and every request stays a byte prefix of
// the next (cache markers stripped only for the comparison; each request's history breakpoint
// must sit, unchanged, at the same block of the next request).
import { join } from "node:path";
import { prefixRetention } from "@keel/coding-agent/testing";
import { historyBreakpoints } from "@keel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveCredential } from "../src/credentials.js";
import { connectorExtension, githubConnector } from "../src/index.js";
import { type FakeGitHub, GITHUB_TOKEN, startFakeGitHub } from "./fakes/github.js";
import { box, execute, provider, start } from "./kernel-harness.js";

type Json = Record<string, unknown>;

let fake: FakeGitHub;
beforeAll(async () => {
  fake = await startFakeGitHub();
});
afterAll(() => fake.close());

describe("a login mid-session", () => {
  it("adds the connector's actions by a notice and keeps every request a prefix of the next (retention 1.000)", async () => {
    const b = box({ connectors: { github: { baseUrl: fake.url } } });
    const model = provider({
      turns: [
        { text: "Hello." },
        execute("github:github__get_issue", { repo: "acme/web", number: 1 }),
        { text: "Issue 1 is a crash on start." },
        { text: "Anything else?" },
      ],
    });
    const agent = await start({
      cwd: b.workspace,
      home: b.home,
      model: model.model,
      streamOptions: model.streamOptions,
      // No token anywhere yet: GitHub lists nothing.
      extensions: [connectorExtension({ connectors: [githubConnector], env: {} })],
    });
    await agent.prompt("hi");
    expect(model.requests[0]!.raw).not.toContain("github__get_issue");

    // What `keel connector login github` does, while the session stays open.
    saveCredential(join(b.home, "data", "connector"), "github", { token: GITHUB_TOKEN, savedAt: "now" });
    await agent.prompt("what is issue 1?");
    await agent.prompt("thanks");
    await agent.close();

    const notice = (JSON.parse(model.requests[1]!.raw) as { messages: Json[] }).messages.find((m) =>
      JSON.stringify(m).includes("GitHub actions"),
    );
    expect(JSON.stringify(notice)).toContain("github__get_issue");
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /repos/acme/web/issues/1"]);

    expect(model.requests.length).toBe(4);
    for (const request of model.requests.slice(0, -1))
      expect(historyBreakpoints(request).length).toBeGreaterThan(0);
    expect(prefixRetention(model.requests)).toEqual({ retention: 1 });
    b.cleanup();
  });
});
