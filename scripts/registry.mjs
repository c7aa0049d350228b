// A private npm registry for the release checks: Verdaccio on 127.0.0.1, its config, storage and
// users in a temp folder. Keel's packages come only from what is published to it; other packages
// it fetches from the registry npm is configured with (the npm registry, or the mirror a machine
// uses) and keeps for the run, as a company registry in front of npm does.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { root } from "./workspace.mjs";

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The registry npm uses here, for what Verdaccio does not have. */
function upstreamRegistry() {
  const configured = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).trim();
  return configured.endsWith("/") ? configured : `${configured}/`;
}

/**
 * Starts Verdaccio in `dir`; resolves once it answers, with its URL, an npmrc that names only it
 * (with a publish token) and `stop()`, which ends it. Scopes in `own` are served only from what is
 * published here, never proxied.
 */
export async function startRegistry(dir, { own = ["@keel"] } = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(join(dir, "storage"), { recursive: true });
  const upstream = upstreamRegistry();
  const config = [
    `storage: ${JSON.stringify(join(dir, "storage"))}`,
    "auth:",
    "  htpasswd:",
    `    file: ${JSON.stringify(join(dir, "htpasswd"))}`,
    "uplinks:",
    "  upstream:",
    `    url: ${JSON.stringify(upstream)}`,
    "    timeout: 60s",
    "packages:",
    ...own.flatMap((scope) => [`  '${scope}/*':`, "    access: $all", "    publish: $authenticated"]),
    "  '**':",
    "    access: $all",
    "    publish: $authenticated",
    "    proxy: upstream",
    // Tokens verified by signature: the default legacy ones check the password on every request.
    "security:",
    "  api:",
    "    jwt:",
    "      sign:",
    "        expiresIn: 1d",
    "web:",
    "  enable: false",
    "max_body_size: 200mb",
    "log: { type: stdout, format: pretty, level: warn }",
    "",
  ].join("\n");
  writeFileSync(join(dir, "config.yaml"), config);
  const bin = join(root, "node_modules/verdaccio/bin/verdaccio");
  const child = spawn(
    process.execPath,
    [bin, "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_PROXY: "127.0.0.1,localhost", no_proxy: "127.0.0.1,localhost" },
    },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}:\n${log}`);
      const up = await fetch(`${url}-/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline)
        throw new Error(`verdaccio did not answer on ${url} within a minute:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // A user to publish as; the token goes into the npmrc.
    const name = "keel-release-check";
    const created = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password: "release-check-only" }),
    });
    const { token } = await created.json();
    if (!token) throw new Error(`verdaccio gave no token (${created.status})`);
    const host = url.replace(/^http:/, "");
    const npmrc = join(dir, "npmrc");
    writeFileSync(npmrc, `registry=${url}\n${host}:_authToken=${token}\n`);
    return { url, upstream, npmrc, stop, log: () => log };
  } catch (e) {
    await stop();
    throw e;
  }
}
