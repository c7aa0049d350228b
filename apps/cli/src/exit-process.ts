// How keel ends its process once it knows its exit code. Apart from the kernel so the small
// bin bundle (--help, --version) can use it without loading any of it.
import { EXIT } from "./exit-codes.js";

/**
 * Ends the process with `code`. 129 (SIGHUP) is ended by the signal itself, as shells expect:
 * exiting normally would make Node restore the settings of a terminal that no longer exists,
 * which Node 20 turns into an assertion failure on stderr.
 */
export function exitProcess(code: number): never {
  if (code === EXIT.hangup) {
    process.removeAllListeners("SIGHUP");
    process.kill(process.pid, "SIGHUP");
  }
  process.exit(code);
}
