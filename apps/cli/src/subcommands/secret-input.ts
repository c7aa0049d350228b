// Reads one line from the terminal without echoing it (a token for `keel connector login`):
// raw mode, Enter ends it, Backspace edits, Ctrl+C or Ctrl+D gives up. Nothing typed is shown.
export function readSecret(question: string): Promise<string | undefined> {
  const { stdin, stdout } = process;
  stdout.write(question);
  return new Promise((resolve) => {
    let value = "";
    const wasRaw = stdin.isRaw;
    const finish = (answer: string | undefined) => {
      stdin.off("data", onData);
      stdin.setRawMode(wasRaw);
      stdin.pause();
      stdout.write("\n");
      resolve(answer);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") return finish(value);
        if (ch === "\u0003" || ch === "\u0004") return finish(undefined);
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else if (ch >= " ") value += ch;
      }
    };
    stdin.setEncoding("utf8");
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}
