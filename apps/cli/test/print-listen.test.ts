// Print mode's event listener: which events reach stdout as stream-json lines and which stderr.
import { describe, expect, it } from "vitest";
import type { OutputFormat } from "../src/args.js";
import type { Output } from "../src/print/output.js";
import { listen } from "../src/print/run.js";

function recorder(format: OutputFormat) {
  const notes: string[] = [];
  const json: unknown[] = [];
  const output: Output = {
    json: (value) => json.push(value),
    text: () => {},
    note: (message) => notes.push(message),
    diagnostic: (d) => notes.push(d.message),
    flush: async () => {},
  };
  return { notes, json, ...listen({ output, format }) };
}

describe("print listener", () => {
  it("stream-json: a recovery while the agent opens goes to stderr; after init it is a line", () => {
    const r = recorder("stream-json");
    r.onEvent({ type: "recovery", text: "an interrupted Bash call was closed" });
    expect(r.notes).toEqual(["an interrupted Bash call was closed"]);
    expect(r.json).toEqual([]);
    r.started("s1");
    r.onEvent({ type: "recovery", text: "again" });
    expect(r.notes).toHaveLength(1);
    expect(r.json).toEqual([{ type: "recovery", sessionId: "s1", text: "again" }]);
  });

  it("json: recovery is a stderr note before and after the run starts, never a stdout line", () => {
    const r = recorder("json");
    r.onEvent({ type: "recovery", text: "one" });
    r.started("s1");
    r.onEvent({ type: "recovery", text: "two" });
    expect(r.notes).toEqual(["one", "two"]);
    expect(r.json).toEqual([]);
  });
});
