// The text of `keel --help`. Kept beside args.ts's option table; a test checks every flag is listed.

export const HELP = `keel — the Keel coding agent

Usage
  keel [options] [prompt]          interactive session (needs a terminal)
  keel -p [options] [prompt]       print mode: run once, print the answer, exit
  echo "prompt" | keel -p          print mode with the prompt on stdin

Print mode
  -p, --print                      run non-interactively; the prompt is the arguments, or stdin
      --output-format <format>     text (final answer, default) | json (one result object)
                                   | stream-json (NDJSON: init, events, result)

Model
      --model <provider/id>        e.g. anthropic/claude-sonnet-4-6, openai/gpt-5, or a custom
                                   provider's model from config
      --provider <name>            use that provider's first catalog model
                                   (anthropic, openai, deepseek, dashscope, moonshot, zai, openrouter)

Sessions
  -c, --continue                   continue the most recent session in this directory
  -r, --resume [id]                resume a session by id or id prefix (no id: a picker,
                                   interactive mode only)
      --fork                       with -c or -r: continue in a new session forked from it
      --read-only                  with -c or -r <id>: print the session's conversation and
                                   exit; takes no lock and writes nothing (also for a session
                                   open elsewhere or one this keel cannot continue)
      --no-session                 journal nothing (ephemeral session)

Behaviour
      --permission-mode <mode>     default | acceptEdits | plan | dontAsk | bypassPermissions
      --max-turns <n>              stop after n model turns
      --append-system-prompt <t>   add text to the end of the system prompt
  -e, --extension <path>           load an extension file or folder (repeatable)
      --no-extensions              no official extensions and no discovery of
                                   ~/.keel/extensions or .keel/extensions (-e still loads)
      --cwd <dir>                  work in <dir> instead of the current directory

  -v, --version                    print the version
  -h, --help                       print this help

Environment
  ANTHROPIC_API_KEY, OPENAI_API_KEY     provider keys (the first one set picks the default model)
  ANTHROPIC_BASE_URL, OPENAI_BASE_URL   endpoints, read by the official SDKs
  KEEL_HOME                             Keel's home directory (default ~/.keel): config.json,
                                        trust.json, sessions/, extensions/

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
