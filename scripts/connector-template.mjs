// The files `pnpm new-extension --connector <name>` writes: a connector package against
// @keel/ext-connector's SDK (one read and one create action over fetch, a configurable base
// URL), a test against a local fake of the service, and a README saying how users load it.

export function connectorFiles({ name, pkg, dir }) {
  const label = name[0].toUpperCase() + name.slice(1);
  const env = `${name.toUpperCase()}_TOKEN`;
  const binding = `${name}Connector`;
  return {
    "src/index.ts": `// ${pkg}: the ${label} connector for Keel. Its actions are listed in the \`${name}\` catalog
// group once a token is set, and every call goes through the user's connector approval policy.
import { actionsFor, defineConnector, errorTypeForStatus, isNetworkFailure } from "@keel/ext-connector/sdk";
import { Type } from "@keel/extension-sdk";

/** What the actions get as \`client\`: the base URL and a fetch that signs requests. */
export interface ${label}Client {
  request(path: string, init?: { method?: string; body?: unknown; signal?: AbortSignal }): Promise<unknown>;
}

/** A failed HTTP answer, carried to \`classifyError\`. */
class HttpFailure {
  constructor(
    readonly status: number,
    readonly message: string,
  ) {}
}

function client(token: string, baseUrl: string): ${label}Client {
  return {
    async request(path, init = {}) {
      const response = await fetch(\`\${baseUrl.replace(/\\/+$/, "")}\${path}\`, {
        method: init.method ?? "GET",
        headers: { authorization: \`Bearer \${token}\`, "content-type": "application/json" },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      const text = await response.text();
      if (!response.ok) throw new HttpFailure(response.status, text.slice(0, 300) || response.statusText);
      return text ? JSON.parse(text) : undefined;
    },
  };
}

const action = actionsFor<${label}Client>();

interface Item {
  id: string;
  title: string;
}

export const ${binding} = defineConnector<${label}Client>({
  id: "${name}",
  label: "${label}",
  description: "Items in ${label}.",
  defaultBaseUrl: "https://api.${name}.example",
  auth: { env: "${env}", tokenName: "API token", help: "Create an API token in ${label}'s settings." },
  client: (token, settings) => client(token, settings.baseUrl),
  classifyError: (error) => {
    if (error instanceof HttpFailure) return { type: errorTypeForStatus(error.status), message: error.message, status: error.status };
    if (isNetworkFailure(error)) return { type: "network", message: "${label} could not be reached." };
    return { type: "failed", message: error instanceof Error ? error.message : String(error) };
  },
  actions: [
    action({
      name: "list_items",
      description: "List the items in ${label}.",
      effect: "read",
      parameters: Type.Object({}),
      run: (_args, { client, attempt, signal }) =>
        attempt(() => client.request("/items", { signal })).map((items) => ({
          text: (items as Item[]).map((i) => \`\${i.id} \${i.title}\`).join("\\n") || "No items.",
          data: { items },
        })),
    }),
    action({
      name: "create_item",
      description: "Create an item in ${label}.",
      effect: "create",
      parameters: Type.Object({ title: Type.String({ minLength: 1 }) }),
      // Shown in the approval dialog before anything is sent: keep it pure.
      preview: (args) => ({ format: "text", text: \`POST /items\\ntitle: \${args.title}\` }),
      run: (args, { client, attempt, signal }) =>
        attempt(() => client.request("/items", { method: "POST", body: { title: args.title }, signal })).map(
          (item) => ({ text: \`Created \${(item as Item).id}.\`, data: item }),
        ),
    }),
  ],
});

export default ${binding};
`,
    [`test/${name}.test.ts`]: `// The ${label} connector against a local fake of its API on 127.0.0.1.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { runConnectorAction } from "@keel/ext-connector/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ${binding} from "../src/index.js";

const TOKEN = "test-token-123456";
let server: Server;
let baseUrl: string;
const seen: { method: string; url: string; auth: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization, body });
      res.setHeader("content-type", "application/json");
      if (req.headers.authorization !== \`Bearer \${TOKEN}\`) return void res.writeHead(401).end('{"error":"bad token"}');
      if (req.method === "GET" && req.url === "/items") return void res.end('[{"id":"I-1","title":"First"}]');
      if (req.method === "POST" && req.url === "/items") return void res.writeHead(201).end('{"id":"I-2","title":"New"}');
      res.writeHead(404).end('{"error":"not found"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = \`http://127.0.0.1:\${(server.address() as AddressInfo).port}\`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("${name} connector", () => {
  it("lists items", async () => {
    const run = await runConnectorAction(${binding}, "list_items", {}, { token: TOKEN, baseUrl });
    expect(run).toMatchObject({ isError: false, text: "I-1 First" });
    expect(seen.at(-1)).toMatchObject({ method: "GET", url: "/items", auth: \`Bearer \${TOKEN}\` });
  });

  it("creates an item with the title it was given", async () => {
    const run = await runConnectorAction(${binding}, "create_item", { title: "New" }, { token: TOKEN, baseUrl });
    expect(run.text).toBe("Created I-2.");
    expect(JSON.parse(seen.at(-1)!.body)).toEqual({ title: "New" });
  });

  it("a rejected token is a clear error without the token", async () => {
    const run = await runConnectorAction(${binding}, "list_items", {}, { token: "wrong-token-0000", baseUrl });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("${label} unauthorized (HTTP 401)");
    expect(run.text).not.toContain("wrong-token-0000");
  });
});
`,
    "README.md": `# ${pkg}

The ${label} connector for Keel: ${label}'s actions in the \`${name}\` catalog group
(\`${name}__list_items\`, \`${name}__create_item\`), behind the user's connector approval policy.

Build it, then name its entry file in your Keel config and connect it:

\`\`\`sh
pnpm build
\`\`\`

\`\`\`json
{ "extensions": { "connector": { "config": { "modules": ["/abs/path/to/${dir}/dist/index.js"] } } } }
\`\`\`

\`\`\`sh
keel connector login ${name}      # or export ${env}=…
\`\`\`

It depends on \`@keel/ext-connector\` (the connector SDK) only; see that package's README.
`,
  };
}
