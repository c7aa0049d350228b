// `keel <subcommand> …`: Keel's own (install, uninstall, update, list, sessions) and those the composed official
// extensions contribute through their `cli` field (keel mcp, keel connector).
import {
  type ExtensionModule,
  extensionDataDir,
  findProjectRoot,
  resolveKeelHome,
  trustStatus,
  userExtensionConfig,
} from "@keel/coding-agent";
import type { CliIO, ExtensionDefinition } from "@keel/extension-sdk";
import { EXIT } from "../exit-codes.js";
import { officialExtensions } from "../official.js";
import { configCommand } from "./config.js";
import { packagesCommand } from "./packages.js";
import { readSecret } from "./secret-input.js";
import { sessionsCommand } from "./sessions.js";

export type SubcommandIO = CliIO;

export function cliIO(): CliIO {
  const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true;
  const keelHome = resolveKeelHome();
  const projectRoot = findProjectRoot(process.cwd(), keelHome);
  const trust = trustStatus(projectRoot, { home: keelHome });
  return {
    cwd: process.cwd(),
    keelHome,
    // As a session here would see it: a command must not read an untrusted project's files.
    workspace: { projectRoot, trusted: trust.isOk() && trust.value === "trusted" },
    env: process.env,
    interactive,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    ...(interactive
      ? {
          prompt: async (question: string, options?: { secret?: boolean }) => {
            if (options?.secret) return readSecret(question);
            // Loaded here, not by every start that bundles the subcommands.
            const rl = process.getBuiltinModule("node:readline/promises").createInterface({
              input: process.stdin,
              output: process.stdout,
            });
            try {
              return await rl.question(question);
            } finally {
              rl.close();
            }
          },
        }
      : {}),
  };
}

export async function runSubcommand(
  name: string,
  argv: string[],
  io: CliIO = cliIO(),
  official: ExtensionModule[] = officialExtensions(),
): Promise<number> {
  if (name === "install" || name === "uninstall" || name === "update" || name === "list")
    return packagesCommand(name, argv, io);
  if (name === "sessions") return sessionsCommand(argv, io);
  if (name === "config") return configCommand(argv, io);
  const unloadable: string[] = [];
  for (const module of official) {
    // Loaded one after another until one owns the word.
    let extension: ExtensionDefinition;
    try {
      extension = await module.load();
    } catch (e) {
      unloadable.push(`${module.id} (${e instanceof Error ? e.message : String(e)})`);
      continue;
    }
    const command = extension.cli?.find((c) => c.name === name);
    if (!command) continue;
    if (argv[0] === "--help" || argv[0] === "-h") {
      io.stdout(command.usage.endsWith("\n") ? command.usage : `${command.usage}\n`);
      return EXIT.ok;
    }
    // The command's own data folder and user configuration, as a session would give them.
    const config = extension.configuration ? userExtensionConfig(extension, io.keelHome) : undefined;
    if (config?.isErr()) {
      io.stderr(`keel ${name}: ${config.error.message}\n`);
      return EXIT.failed;
    }
    const own: CliIO = {
      ...io,
      dataDir: () => extensionDataDir(io.keelHome, extension.id),
      ...(config?.isOk() ? { config: config.value } : {}),
    };
    try {
      return await command.run(argv, own);
    } catch (e) {
      io.stderr(`keel ${name}: ${e instanceof Error ? e.message : String(e)}\n`);
      return EXIT.failed;
    }
  }
  if (unloadable.length > 0) {
    io.stderr(`keel ${name}: official extensions could not be loaded: ${unloadable.join("; ")}\n`);
    return EXIT.failed;
  }
  io.stderr(`keel ${name}: this command comes with an extension that is not part of this build.\n`);
  return EXIT.usage;
}
