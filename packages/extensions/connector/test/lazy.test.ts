// The service SDKs are optional peers: a connector whose SDK is not installed says which package
// to install instead of failing with a module-resolution stack.
import { describe, expect, it } from "vitest";
import { loadSdk } from "../src/lazy.js";

describe("loadSdk", () => {
  it("loads an installed SDK", () => {
    expect(typeof loadSdk<{ Octokit: unknown }>("@octokit/rest").Octokit).toBe("function");
  });

  it("names the package and the install command when the SDK is missing", () => {
    expect(() => loadSdk("@keel-test/not-installed-sdk")).toThrow(
      "@keel-test/not-installed-sdk is not installed; it is an optional peer dependency of @keel/ext-connector: npm i @keel-test/not-installed-sdk (the keel CLI ships it)",
    );
  });
});
