import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpConnection } from "../src/connection/index.js";
import { clientInfo, plainHandlers } from "./helpers/handlers.js";
import { everything, tempDir } from "./helpers/servers.js";

const dirs: { cleanup(): void }[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe("smoke", () => {
  it("connects to server-everything and echoes", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const connection = new McpConnection(everything(), {
      clientInfo,
      logFile: join(dir.path, "everything.log"),
      handlers: plainHandlers(),
    });
    expect((await connection.ready()).isOk()).toBe(true);
    console.log(connection.tools().map((t) => t.name), connection.status());
    const result = await connection.callTool("echo", { message: "hi" });
    console.log(JSON.stringify(result));
    await connection.close();
  });
});
