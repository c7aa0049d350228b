// Pricing a usage from catalog prices, and summing usages, counts and costs alike.
import { addUsage, computeCost, emptyUsage, getModel, type Usage } from "@keel/ai";
import { describe, expect, it } from "vitest";

function usage(counts: Partial<Omit<Usage, "cost" | "totalTokens">>): Usage {
  const u = { ...emptyUsage(), ...counts };
  u.totalTokens = u.input + u.output + u.cacheRead + u.cacheWrite;
  return u;
}

describe("computeCost", () => {
  it("prices each token class per million", () => {
    const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
    const cost = computeCost(
      price,
      usage({ input: 1_000, output: 2_000, cacheRead: 10_000, cacheWrite: 4_000 }),
    );
    expect(cost.input).toBeCloseTo(0.003, 12);
    expect(cost.output).toBeCloseTo(0.03, 12);
    expect(cost.cacheRead).toBeCloseTo(0.003, 12);
    expect(cost.cacheWrite).toBeCloseTo(0.015, 12);
    expect(cost.total).toBeCloseTo(0.051, 12);
  });

  it("uses catalog prices: one million Haiku 4.5 output tokens cost $5", () => {
    const haiku = getModel("anthropic", "claude-haiku-4-5")._unsafeUnwrap();
    expect(computeCost(haiku.cost, usage({ output: 1_000_000 })).total).toBe(5);
  });

  it("does not price reasoning tokens twice (they are part of output)", () => {
    const price = { input: 0, output: 10, cacheRead: 0, cacheWrite: 0 };
    expect(computeCost(price, usage({ output: 1_000_000, reasoning: 600_000 })).total).toBe(10);
  });

  it("is zero for free models and empty usage", () => {
    const free = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    expect(computeCost(free, usage({ input: 5_000, output: 5_000 })).total).toBe(0);
    expect(computeCost({ input: 1, output: 1, cacheRead: 1, cacheWrite: 1 }, emptyUsage()).total).toBe(0);
  });
});

describe("addUsage", () => {
  it("sums every count and every cost field", () => {
    const price = { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 4 };
    const a = usage({ input: 100, output: 50, cacheRead: 10, cacheWrite: 5, reasoning: 20 });
    a.cost = computeCost(price, a);
    const b = usage({ input: 1, output: 2, cacheRead: 3, cacheWrite: 4, reasoning: 1 });
    b.cost = computeCost(price, b);
    const sum = addUsage(a, b);
    expect(sum).toMatchObject({
      input: 101,
      output: 52,
      cacheRead: 13,
      cacheWrite: 9,
      reasoning: 21,
      totalTokens: 175,
    });
    const direct = computeCost(price, sum);
    expect(sum.cost.input).toBeCloseTo(direct.input, 12);
    expect(sum.cost.output).toBeCloseTo(direct.output, 12);
    expect(sum.cost.cacheRead).toBeCloseTo(direct.cacheRead, 12);
    expect(sum.cost.cacheWrite).toBeCloseTo(direct.cacheWrite, 12);
    expect(sum.cost.total).toBeCloseTo(direct.total, 12);
  });

  it("leaves its inputs unchanged and has emptyUsage as identity", () => {
    const a = usage({ input: 7, output: 3 });
    const copy = structuredClone(a);
    expect(addUsage(a, emptyUsage())).toEqual(a);
    expect(addUsage(emptyUsage(), a)).toEqual(a);
    expect(a).toEqual(copy);
  });

  it("gives a fresh zeroed value each time", () => {
    const first = emptyUsage();
    first.cost.total = 9;
    expect(emptyUsage().cost.total).toBe(0);
  });
});
