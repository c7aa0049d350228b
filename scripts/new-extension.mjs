// `pnpm new-extension <name>`: scaffolds packages/extensions/<name> as @keel/ext-<name> — a
// minimal defineExtension (one tool, typed state), a test, a README and a changeset.
// `--connector`: a connector package instead (packages/extensions/connector-<name>, against
// @keel/ext-connector's SDK; see connector-template.mjs).
// `--root <dir>` scaffolds into another checkout; the scaffold's own test uses it.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { connectorFiles } from "./connector-template.mjs";
import { initPackage } from "./init-package.mjs";

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/** @keel/create-extension's templates, from its build in this checkout. */
async function createExtensionTemplates() {
  const built = join(import.meta.dirname, "../packages/create-extension/dist/templates.js");
  if (!existsSync(built)) {
    process.stderr.write("packages/create-extension is not built: run pnpm build first.\n");
    process.exit(1);
  }
  return import(pathToFileURL(built).href);
}
// A connector's name is its id: the catalog group and the prefix of every action name.
const CONNECTOR_NAME = /^[a-z][a-z0-9]{0,31}$/;
const MAX_NAME = 40;

function usage(message) {
  process.stderr.write(`${message}\nusage: pnpm new-extension <name> [--connector] [--root <dir>]\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      root: { type: "string" },
      connector: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
} catch (e) {
  usage(e.message);
}
if (parsed.values.help) {
  process.stdout.write("usage: pnpm new-extension <name> [--connector] [--root <dir>]\n");
  process.exit(0);
}
const [name, ...extra] = parsed.positionals;
if (!name) usage("missing the extension name");
if (extra.length > 0) usage(`one name only; got ${parsed.positionals.join(" ")}`);
const connector = parsed.values.connector === true;
if (connector && !CONNECTOR_NAME.test(name))
  usage(
    `"${name}" is not a valid connector name: use lowercase letters and digits, starting with a letter, ` +
      'at most 32 characters (e.g. "jira"); it prefixes every action name (jira__create_issue)',
  );
if (!NAME.test(name) || name.length > MAX_NAME)
  usage(
    `"${name}" is not a valid extension name: use lowercase letters, digits and single dashes, ` +
      `starting with a letter, at most ${MAX_NAME} characters (e.g. "git-status")`,
  );

const root = resolve(parsed.values.root ?? join(import.meta.dirname, ".."));
const folder = connector ? `connector-${name}` : name;
const dir = `packages/extensions/${folder}`;
const abs = join(root, dir);
if (existsSync(abs)) {
  process.stderr.write(`${dir} already exists; nothing was written. Pick another name or remove it first.\n`);
  process.exit(1);
}
const changeset = join(root, ".changeset", `${folder}-initial.md`);
if (existsSync(changeset)) {
  process.stderr.write(`.changeset/${folder}-initial.md already exists; nothing was written.\n`);
  process.exit(1);
}

const pkg = connector ? `@keel/connector-${name}` : `@keel/ext-${name}`;
// The source and test are @keel/create-extension's (what `npm create @keel/extension` writes),
// read from its build; a connector's are connector-template.mjs's.
const templates = connector ? undefined : await createExtensionTemplates();

// Extensions and connectors take the SDKs from the host that loads them: peers, and dev
// dependencies for their own build and tests (scripts/manifests.mjs holds every package to it).
const sdk = { "@keel/extension-sdk": "workspace:^" };
const sdks = connector ? { "@keel/ext-connector": "workspace:^", ...sdk } : sdk;
initPackage({
  root,
  dir,
  name: pkg,
  description: connector ? `Keel connector: ${name}` : `Keel extension: ${name}`,
  keywords: [connector ? "keel-connector" : "keel-extension"],
  peerDependencies: sdks,
  devDependencies: connector ? sdks : { ...sdks, "@keel/testing": "workspace:^" },
});

const files = connector
  ? connectorFiles({ name, pkg, dir })
  : {
      ...templates.extensionFiles({ id: name, pkg }),
      "README.md": `# ${pkg}

A Keel extension. Describe what it adds (tools, hooks, commands) and how to configure it.

\`\`\`sh
keel -e ${dir}/src/index.ts
\`\`\`

It depends on \`@keel/extension-sdk\` only; see that package's README for the contract.
`,
    };
for (const [file, content] of Object.entries(files)) writeFileSync(join(abs, file), content);

mkdirSync(join(root, ".changeset"), { recursive: true });
writeFileSync(changeset, `---\n"${pkg}": minor\n---\n\nNew package: ${pkg}.\n`);

process.stdout.write(`Created ${dir} (${pkg}) and .changeset/${folder}-initial.md.

Next:
  pnpm install
  cd ${dir} && npx vitest run && npx tsc -p tsconfig.json --noEmit
  ${connector ? `pnpm build, then add ${dir}/dist/index.js to extensions.connector.config.modules` : `keel -e ${dir}/src/index.ts`}
Then edit src/index.ts and the README, and the changeset's description.
`);
