// WebFetch and WebSearch under the permission gate, as the web-search extension declares them
// (network; WebFetch's `url` argument a URL), so by declaration and not by name:
// Claude Code's domain matching (`*.x` covers subdomains, not the apex), the first fetch of a
// domain asks in default mode, "always" saves that one domain, headless asks become denials,
// and a host written differently (trailing dot, upper case, IDN) cannot slip past a rule.
import type { ToolDeclaration } from "@keel/extension-sdk";
import { ok } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../src/permissions/decide.js";
import { type ApprovalRequest, createPermissionGate, type GateAnswer } from "../../src/permissions/gate.js";
import type { PermissionMode, PermissionRuleEntry } from "../../src/permissions/types.js";
import { makePermissionFixture, type PermissionFixture } from "./fixture.js";

/** web-search's WebFetch, as it declares itself: the kernel knows it only by this. */
const FETCH: ToolDeclaration = { access: "network", args: { urls: ["url"] } };

let fx: PermissionFixture;
beforeAll(() => {
  fx = makePermissionFixture();
});
afterAll(() => fx.cleanup());

const rules = (r: { allow?: string[]; ask?: string[]; deny?: string[] }): PermissionRuleEntry[] =>
  (["allow", "ask", "deny"] as const).flatMap((behavior) =>
    (r[behavior] ?? []).map((rule) => ({ rule, behavior, source: "user" as const })),
  );

const judge = (url: string, r: Parameters<typeof rules>[0] = {}, mode: PermissionMode = "default") =>
  decide({
    tool: "WebFetch",
    args: { url },
    mode,
    rules: rules(r),
    workspace: fx.workspace,
    userHome: fx.home,
    keelHome: fx.keelHome,
    declaration: FETCH,
  });

describe("WebFetch domain rules", () => {
  it("asks the first time for a domain, offering exactly that domain", async () => {
    const d = await judge("https://docs.example.com/page");
    expect(d.behavior).toBe("ask");
    expect(d.suggestions).toEqual(["WebFetch(domain:docs.example.com)"]);
  });

  it.each([
    ["https://example.com/", "allow"],
    ["https://docs.example.com/", "allow"],
    ["https://a.b.example.com/", "allow"],
    ["https://notexample.com/", "ask"],
    ["https://example.com.evil.org/", "ask"],
  ] as const)("*.example.com plus example.com: %s → %s", async (url, behavior) => {
    expect(
      (await judge(url, { allow: ["WebFetch(domain:*.example.com)", "WebFetch(domain:example.com)"] }))
        .behavior,
    ).toBe(behavior);
  });

  it("a wildcard covers subdomains but not the apex", async () => {
    expect(
      (await judge("https://example.com/", { allow: ["WebFetch(domain:*.example.com)"] })).behavior,
    ).toBe("ask");
    expect(
      (await judge("https://api.example.com/", { allow: ["WebFetch(domain:*.example.com)"] })).behavior,
    ).toBe("allow");
  });

  it("deny beats allow, ask rules ask even when a broader allow exists", async () => {
    const r = {
      allow: ["WebFetch"],
      ask: ["WebFetch(domain:pay.example.com)"],
      deny: ["WebFetch(domain:*.tracker.example)"],
    };
    expect((await judge("https://x.tracker.example/p", r)).behavior).toBe("deny");
    expect((await judge("https://pay.example.com/", r)).behavior).toBe("ask");
    expect((await judge("https://anything.example.org/", r)).behavior).toBe("allow");
  });

  it.each([
    "https://evil.example./",
    "https://EVIL.Example/",
    "https://evil.example.:443/",
    "https://sub.evil.example./",
  ])("a deny rule holds however the host is written: %s", async (url) => {
    const d = await judge(url, {
      allow: ["WebFetch"],
      deny: ["WebFetch(domain:evil.example)", "WebFetch(domain:*.evil.example)"],
    });
    expect(d.behavior).toBe("deny");
  });

  it("a rule written in Unicode matches the punycode host the URL parser gives", async () => {
    expect(
      (
        await judge("https://bücher.example/", {
          deny: ["WebFetch(domain:bücher.example)"],
          allow: ["WebFetch"],
        })
      ).behavior,
    ).toBe("deny");
    expect(
      (await judge("https://xn--bcher-kva.example/", { allow: ["WebFetch(domain:bücher.example)"] }))
        .behavior,
    ).toBe("allow");
  });

  it("dontAsk and plan turn the first-time question into a denial; a domain rule still allows", async () => {
    expect((await judge("https://docs.example.com/", {}, "dontAsk")).behavior).toBe("deny");
    expect((await judge("https://docs.example.com/", {}, "plan")).behavior).toBe("deny");
    expect(
      (await judge("https://docs.example.com/", { allow: ["WebFetch(domain:docs.example.com)"] }, "plan"))
        .behavior,
    ).toBe("allow");
  });
});

describe("WebSearch rules", () => {
  const search = (r: Parameters<typeof rules>[0], mode: PermissionMode = "default") =>
    decide({
      tool: "WebSearch",
      args: { query: "q" },
      mode,
      rules: rules(r),
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      declaration: { access: "network" },
    });

  it("runs without asking (it reads only), unless a rule says otherwise", async () => {
    expect((await search({})).behavior).toBe("allow");
    expect((await search({}, "plan")).behavior).toBe("allow");
    expect((await search({ ask: ["WebSearch"] })).behavior).toBe("ask");
    expect((await search({ deny: ["WebSearch"] })).behavior).toBe("deny");
  });
});

describe("the gate: asking once per domain, always saving that domain", () => {
  function gate(answer: GateAnswer | undefined) {
    const asked: ApprovalRequest[] = [];
    const saved: string[] = [];
    const g = createPermissionGate({
      mode: "default",
      rules: [],
      workspace: fx.workspace,
      userHome: fx.home,
      keelHome: fx.keelHome,
      ...(answer
        ? {
            ask: async (request: ApprovalRequest) => {
              asked.push(request);
              return answer;
            },
          }
        : {}),
      persist: async (rule, scope) => {
        saved.push(`${scope}:${rule}`);
        return ok(undefined);
      },
    });
    return { g, asked, saved };
  }
  const call = (url: string) => ({ tool: "WebFetch", args: { url }, declaration: FETCH });

  it("'always' saves the narrow domain rule project-locally and does not ask again for it", async () => {
    const { g, asked, saved } = gate({ decision: "allow_always" });
    expect((await g(call("https://docs.example.com/a"))).action).toBe("continue");
    expect(saved).toEqual(["projectLocal:WebFetch(domain:docs.example.com)"]);
    expect((await g(call("https://docs.example.com/b"))).action).toBe("continue");
    expect(asked).toHaveLength(1);
    // Another domain (even a sibling subdomain) is asked about again.
    await g(call("https://api.example.com/"));
    expect(asked.map((a) => a.suggestions)).toEqual([
      ["WebFetch(domain:docs.example.com)"],
      ["WebFetch(domain:api.example.com)"],
    ]);
  });

  it("'once' allows this call only", async () => {
    const { g, asked, saved } = gate({ decision: "allow_once" });
    await g(call("https://docs.example.com/a"));
    await g(call("https://docs.example.com/b"));
    expect(asked).toHaveLength(2);
    expect(saved).toEqual([]);
  });

  it("headless: the question becomes a denial the model can act on", async () => {
    const { g } = gate(undefined);
    const outcome = await g(call("https://docs.example.com/a"));
    expect(outcome.action).toBe("block");
    expect(outcome.action === "block" && outcome.reason).toContain(
      "such as WebFetch(domain:docs.example.com)",
    );
  });
});
