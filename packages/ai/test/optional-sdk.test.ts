// The provider SDKs are optional peers: a model whose SDK is not installed ends in one error that
// names the package and the command, instead of a module-resolution stack.
import { describe, expect, it } from "vitest";
import { type ProviderAdapter, runProvider } from "../src/driver.js";
import { claudeModel, hello } from "./helpers.js";

describe("a provider whose SDK is not installed", () => {
  it("fails the call once, naming the package to install", async () => {
    // A real import of a package no install has, as a provider module importing its SDK would do.
    const missing = "@keel-missing/provider-sdk";
    const load = () => import(/* @vite-ignore */ missing) as Promise<ProviderAdapter>;
    const s = runProvider(load, claudeModel(), hello, { apiKey: "test" });
    const events = [];
    for await (const e of s) events.push(e.type);
    const message = await s.result();
    expect(events).toEqual(["start", "error"]);
    expect(message.stopReason).toBe("error");
    expect(message.error?.message).toBe(
      `The anthropic-messages provider needs the package ${missing}, which is not installed: npm i ${missing}`,
    );
  });

  it("keeps any other load failure as it was", async () => {
    const s = runProvider(() => Promise.reject(new Error("adapter exploded")), claudeModel(), hello, {
      apiKey: "test",
    });
    expect((await s.result()).error?.message).toBe(
      "Could not load the anthropic-messages provider: adapter exploded",
    );
  });
});
