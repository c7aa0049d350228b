// The text of `keel mcp --help` (and of every usage error).

export const USAGE = `usage: keel mcp <command>

  add [--scope user|project] [--transport stdio|http|sse] [-e KEY=VALUE]… [-H "Name: value"]… [--force] <name> <url>
  add [--scope user|project] [-e KEY=VALUE]… [--force] <name> -- <command> [args…]
                           a name that exists is refused; --force replaces its whole entry
  list                     servers of your config (and of a trusted project), checked
  get <name>               one server: its entry, status and login
  remove [--scope user|project] <name>
  login <name>             authorize in the browser (OAuth); sessions use the tokens
  logout <name>            forget the server's tokens

Scope user (default) writes ~/.keel/config.json (extensions.mcp.config.servers); project writes
.mcp.json (mcpServers), which a project's sessions read once it is trusted.`;
