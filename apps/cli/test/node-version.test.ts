// keel refuses a Node.js below its floor with a message that says what to do, before loading anything.
import { describe, expect, it } from "vitest";
import { nodeTooOld } from "../src/node-version.js";

describe("nodeTooOld", () => {
  it("accepts the floor and everything after it", () => {
    for (const v of ["22.12.0", "22.23.5", "23.0.0", "24.22.3", "26.1.0"])
      expect(nodeTooOld(v)).toBeUndefined();
  });
  it("refuses what is older, naming the version and a way out", () => {
    for (const v of ["20.20.2", "22.11.0", "18.19.1", "21.7.3"]) {
      const message = nodeTooOld(v);
      expect(message).toContain(`this is ${v}`);
      expect(message).toContain("22.12 or later");
      expect(message).toContain("node@24");
    }
  });
});
