// The text of `keel --help`. Kept beside args.ts's option table; a test checks every flag is listed.

export const HELP = `keel — the Keel coding agent

Usage
  keel [options] [prompt]          interactive session (needs a terminal)
  keel -p [options] [prompt]       print mode: run once, print the answer, exit
  echo "prompt" | keel -p          print mode with the prompt on stdin
  keel models [--provider <name>] [--refresh] [--json]
                                   the models of each provider: the catalog merged with what
                                   its models endpoint lists for your key (cached for a day)

Subcommands
  keel install <npm-spec> [--project] [--allow-scripts]
                                   install an extension package (install scripts do not run
                                   unless --allow-scripts); --project: for this trusted project
  keel install --project           install the packages this project declares
  keel uninstall <name> [--project]
  keel update [<name>] [--project] installed extension packages to the newest version their
                                   spec allows (npm's configured registry, as install)
  keel list [--project]            installed extension packages
  keel sessions [--all] [--json]   this directory's sessions (--all: every project's), newest
                                   first: id, date, messages, cost, first prompt, forks
  keel config get|set|unset|list [key] [value] [--user|--project]
                                   Keel's settings by dotted key (stream.maxRetries), validated
                                   as the file is; --project: this trusted project's
  keel mcp …, keel connector …     the MCP and connector extensions' own commands
  keel acp [flags]                 an Agent Client Protocol agent on stdio, for editors (Zed,
                                   JetBrains, Neovim): see the README

Print mode
  -p, --print                      run non-interactively; the prompt is the arguments, or stdin
      --output-format <format>     text (final answer, default) | json (one result object)
                                   | stream-json (NDJSON: init, events, result); every line
                                   follows @keel/cli/print.v1.schema.json
      --include-partial-messages   stream-json: text and thinking deltas as lines of their own
      --input-format <format>      text (default) | stream-json: user messages as NDJSON on
                                   stdin ({"type":"user","content":"…"}), one run each, in one
                                   session (needs --output-format stream-json)
      --wait-children <s>          at the end of the run, wait up to <s> seconds (default 300)
                                   for background agents still running, report each one's
                                   result before the run's own, and stop (and name) any left

Model
      --model <provider/id>        e.g. anthropic/claude-sonnet-5-5, openai/gpt-6.2-sol, or a
                                   custom provider's model from config; an id the catalog does
                                   not know runs with the provider's defaults (with a warning)
      --provider <name>            use that provider's default model:
                                     anthropic   claude-opus-5-5
                                     openai      gpt-6.2-astra
                                     deepseek    deepseek-v4-pro
                                     dashscope   qwen3.5-plus
                                     moonshot    kimi-k2.7-code
                                     zai         glm-5.3
                                     openrouter  anthropic/claude-opus-5.5

Sessions
  -c, --continue                   continue the most recent session in this directory
  -r, --resume [id]                resume a session by id or id prefix (no id: a picker,
                                   interactive mode only); a child agent's session id opens
                                   its transcript read-only
      --fork                       with -c or -r: continue in a new session forked from it
      --read-only                  with -c or -r <id>: print the session's conversation and
                                   exit; takes no lock and writes nothing (also for a session
                                   open elsewhere or one this keel cannot continue)
      --no-session                 journal nothing (ephemeral session)

Behaviour
      --permission-mode <mode>     default | acceptEdits | plan | dontAsk | bypassPermissions
                                   (in the TUI Shift+Tab cycles default, acceptEdits, plan;
                                   bypassPermissions too when keel started in it)
      --thinking <level>           off | minimal | low | medium | high | xhigh | max: how hard
                                   the model thinks, mapped onto what it accepts (default:
                                   the session's last choice, else the model's own default)
      --max-turns <n>              stop after n model turns
      --append-system-prompt <t>   add text to the end of the system prompt
      --system-prompt <t>          replace Keel's opening instructions (tools and
                                   context files stay)
      --allowedTools <rules>       allow rules for this run (Claude Code's syntax;
                                   comma- or space-separated, repeatable)
      --disallowedTools <rules>    deny rules for this run (same syntax)
      --add-dir <dir>              let the agent read and edit a folder outside the
                                   project for this run (repeatable)
      --settings <file or JSON>    settings in Claude Code's shape for this run (permissions,
                                   hooks, env), above every settings file
      --mcp-config <file or JSON>… MCP servers for this run, {"mcpServers": {…}} as in
                                   .mcp.json (several values, or the flag repeated)
      --strict-mcp-config          only the servers of --mcp-config: no configured server,
                                   no .mcp.json
  -e, --extension <path>           load an extension file or folder (repeatable)
      --no-extensions              no official extensions and no discovery of
                                   ~/.keel/extensions or .keel/extensions (-e still loads)
      --cwd <dir>                  work in <dir> instead of the current directory
      --debug                      show the debug log (extensions and kernel) on stderr;
                                   it is always kept in $KEEL_HOME/logs/debug.log

  -v, --version                    print the version
  -h, --help                       print this help

Environment
  ANTHROPIC_API_KEY, OPENAI_API_KEY     provider keys (the first one set picks its default model)
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL   endpoints, read by the official SDKs
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY     the proxy for model and extension requests, and the
                                        hosts reached directly
  KEEL_HOME                             Keel's home directory (default ~/.keel): config.json,
                                        trust.json, sessions/, extensions/
  KEEL_BWRAP                            the bubblewrap that sandboxes commands (default: bwrap
                                        on PATH); config "sandbox" sets what commands may touch

Exit codes
  0    the run finished (also when the model stopped at its output limit: a note on stderr)
  1    the run failed (provider error, context overflow, the session journal could not be
       written) or hit --max-turns
  2    usage error, no model provider configured, or refused (e.g. session not found,
       locked by another keel, or read-only: fork it with --fork to go on)
  129  the terminal closed (SIGHUP); keel ends by that signal once the session is saved
  130  interrupted (Ctrl+C / SIGINT); the session is saved and resumable with -c
  143  terminated (SIGTERM); the session is saved and resumable with -c
`;
