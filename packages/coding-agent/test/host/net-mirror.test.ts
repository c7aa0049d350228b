// @keel/ai cannot import the SDK (DESIGN §1), so its network types mirror the SDK's RuntimeNet
// ones, and the kernel hands ai's createNet() to extensions as is: the typecheck of this file
// fails the day the two declarations differ, in either direction.
import type { NetConnectOutcome as AiNetConnectOutcome, NetError as AiNetError } from "@keel/ai";
import type { NetConnectOutcome, NetError } from "@keel/extension-sdk";
import { describe, expect, expectTypeOf, it } from "vitest";

describe("@keel/ai's mirror of the SDK's network contract", () => {
  it("declares the same NetError and NetConnectOutcome", () => {
    expectTypeOf<AiNetError>().toEqualTypeOf<NetError>();
    expectTypeOf<AiNetConnectOutcome>().toEqualTypeOf<NetConnectOutcome>();
    const refused: AiNetConnectOutcome = { ok: false, error: { type: "connect", message: "refused" } };
    const asSdk: NetConnectOutcome = refused;
    expect(asSdk).toEqual({ ok: false, error: { type: "connect", message: "refused" } });
  });
});
