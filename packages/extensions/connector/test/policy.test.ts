// The approval policy as pure rules: defaults by class, precedence, a project that can only
// narrow, what a question may offer, and exact-call grants bound to the arguments' hash.
import { describe, expect, it } from "vitest";
import { narrowingPolicy, resolveLayers, userLayer } from "../src/config.js";
import { callHash, canonicalJson, ExactCallGrants } from "../src/policy/grants.js";
import {
  type ActionIdentity,
  ruleFor,
  unknownPolicyKeys,
  verdictFor,
  withAlwaysAllowed,
} from "../src/policy/policy.js";

const act = (effect: ActionIdentity["effect"], entry = `github__${effect}_thing`): ActionIdentity => ({
  connectorId: "github",
  entry,
  effect,
});

describe("rules", () => {
  it("defaults: read allow, create and update ask, destructive ask", () => {
    expect(ruleFor(act("read"), undefined)).toEqual({
      rule: "allow",
      source: "default for read",
      narrowedByProject: false,
    });
    expect(ruleFor(act("create"), {}).rule).toBe("ask");
    expect(ruleFor(act("update"), {}).rule).toBe("ask");
    expect(ruleFor(act("destructive"), {}).rule).toBe("ask");
  });

  it("the most specific rule wins: action, then connector, then class", () => {
    const policy = {
      classes: { create: "allow" as const },
      connectors: { github: "deny" as const },
      actions: { github__create_thing: "ask" as const },
    };
    expect(ruleFor(act("create"), policy)).toMatchObject({
      rule: "ask",
      source: "policy.actions.github__create_thing",
    });
    expect(ruleFor(act("update"), policy)).toMatchObject({
      rule: "deny",
      source: "policy.connectors.github",
    });
    expect(ruleFor({ connectorId: "linear", entry: "linear__x", effect: "create" }, policy)).toMatchObject({
      rule: "allow",
      source: "policy.classes.create",
    });
  });

  it("a project rule applies only when it is stricter", () => {
    const user = { actions: { github__create_thing: "allow" as const, github__read_thing: "deny" as const } };
    const project = { classes: { create: "ask" as const, read: "ask" as const } };
    expect(ruleFor(act("create"), user, project)).toEqual({
      rule: "ask",
      source: "project policy.classes.create",
      narrowedByProject: true,
    });
    // deny stays deny: the project's ask would widen it.
    expect(ruleFor(act("read"), user, project)).toMatchObject({ rule: "deny", narrowedByProject: false });
  });

  it("a question never offers always for destructive actions, nor when a project's rule asks", () => {
    const destructive = act("destructive");
    expect(verdictFor(destructive, ruleFor(destructive, {}))).toMatchObject({
      kind: "ask",
      offerAlways: false,
    });
    const create = act("create");
    expect(verdictFor(create, ruleFor(create, {}))).toMatchObject({ kind: "ask", offerAlways: true });
    const narrowed = ruleFor(create, { classes: { create: "allow" } }, { classes: { create: "ask" } });
    expect(verdictFor(create, narrowed)).toMatchObject({ kind: "ask", offerAlways: false });
  });

  it("always adds an action rule and keeps the rest", () => {
    expect(
      withAlwaysAllowed({ classes: { read: "ask" }, actions: { a: "deny" } }, "github__create_issue"),
    ).toEqual({
      classes: { read: "ask" },
      actions: { a: "deny", github__create_issue: "allow" },
    });
  });

  it("names rules that match nothing", () => {
    expect(
      unknownPolicyKeys(
        { connectors: { github: "ask", gitlab: "ask" }, actions: { github__create_isue: "allow" } },
        { connectors: new Set(["github"]), entries: new Set(["github__create_issue"]) },
      ),
    ).toEqual(["policy.connectors.gitlab", "policy.actions.github__create_isue"]);
  });
});

describe("project layer", () => {
  it("keeps ask and deny, ignores allow and everything that is not policy, each said", () => {
    const resolved = resolveLayers({
      user: { policy: { classes: { create: "allow" } } },
      project: {
        policy: {
          classes: { create: "ask", read: "allow" },
          actions: { github__merge_pull_request: "deny", x: "maybe" },
        },
        connectors: { github: { baseUrl: "https://evil.example" } },
      },
    });
    expect(resolved.policy).toEqual({ classes: { create: "allow" } });
    expect(resolved.connectors).toBeUndefined();
    expect(resolved.fromProject).toEqual({
      policy: { classes: { create: "ask" }, actions: { github__merge_pull_request: "deny" } },
      ignored: [
        'policy.classes.read: "allow" (a project may only make the policy stricter)',
        'policy.actions.x ("maybe" is not allow, ask or deny)',
        "connectors (only your user config may set it)",
      ],
    });
  });

  it("a user layer cannot smuggle a project contribution, and userLayer drops it before writing", () => {
    const resolved = resolveLayers({
      user: { fromProject: { policy: {}, ignored: [] }, exactCallMinutes: 5 },
      project: undefined,
    });
    expect(resolved).toEqual({ exactCallMinutes: 5 });
    expect(
      userLayer({
        connectors: {},
        policy: {},
        modules: [],
        exactCallMinutes: 5,
        fromProject: { policy: {}, ignored: [] },
      }),
    ).toEqual({ connectors: {}, policy: {}, modules: [], exactCallMinutes: 5 });
  });

  it("a policy that is not an object is ignored whole", () => {
    expect(narrowingPolicy("deny")).toEqual({ policy: {}, ignored: ["policy (not an object)"] });
  });
});

describe("exact-call grants", () => {
  it("hash the action and canonical arguments: key order does not matter, values do", () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: "x", skip: undefined })).toBe(
      '{"a":"x","b":[1,{"c":2,"d":1}]}',
    );
    expect(callHash("github__create_issue", { repo: "a/b", title: "t" })).toBe(
      callHash("github__create_issue", { title: "t", repo: "a/b" }),
    );
    expect(callHash("github__create_issue", { repo: "a/b", title: "t" })).not.toBe(
      callHash("github__create_issue", { repo: "a/b", title: "u" }),
    );
    expect(callHash("github__create_issue", { n: 1 })).not.toBe(callHash("github__update_issue", { n: 1 }));
  });

  it("cover the same call until they expire", () => {
    const grants = new ExactCallGrants(1000);
    const hash = callHash("x", { a: 1 });
    expect(grants.covers(hash, 0)).toBe(false);
    grants.grant(hash, 100);
    expect(grants.covers(hash, 1099)).toBe(true);
    expect(grants.covers(callHash("x", { a: 2 }), 500)).toBe(false);
    expect(grants.covers(hash, 1100)).toBe(false);
    expect(grants.covers(hash, 200)).toBe(false);
  });
});
