// `keel <name> …` subcommands an extension contributes (`keel mcp add`, `keel connector login`):
// run by the CLI without starting a session, against the Keel home and the working directory.

export interface CliIO {
  cwd: string;
  /** `~/.keel` or `$KEEL_HOME`. */
  keelHome: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Whether a person is at the terminal (stdin and stdout are TTYs). */
  interactive: boolean;
  /**
   * The project around `cwd` and whether it is trusted, as a session there would see it; a
   * command must not read or contact anything of an untrusted project. Absent: treat as untrusted.
   */
  workspace?: { projectRoot: string; trusted: boolean };
  /** This extension's data directory, the same one its runtime's `dataDir()` gives in a session. */
  dataDir?(): string;
  /**
   * This extension's configuration from the user's config file (`extensions.<id>.config`),
   * validated and with defaults as a session resolves it without a project layer. Absent when
   * the extension declares none.
   */
  config?: unknown;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads one line from the user (interactive only); undefined when there is nobody to ask. */
  prompt?(question: string, options?: { secret?: boolean }): Promise<string | undefined>;
}

export interface ExtensionCliCommand {
  /** The word after `keel`; must not clash with Keel's own subcommands. */
  name: string;
  /** One line for `keel --help`. */
  summary: string;
  /** Usage text shown by `keel <name> --help` and on a usage error. */
  usage: string;
  /** Exit code: 0 ok, 1 failed, 2 usage. */
  run(argv: string[], io: CliIO): Promise<number>;
}
