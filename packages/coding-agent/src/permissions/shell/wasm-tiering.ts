// Keeps WebAssembly on V8's baseline compiler, switched on just before the shell parser's WASM
// (tree-sitter) first compiles. After a few Bash calls V8 would tier the bash lexer up to
// TurboFan, which on Node 24 (V8 13.6) takes ~500 MB of RSS and ~0.6 s of CPU on background
// threads (and exit waits for that job), for parses of a few hundred bytes that baseline code does
// in well under a millisecond. Flags set at run time do not get V8's implications, so
// `--liftoff-only` alone (which implies the other two at process start) stopped working on V8 13:
// the two switches tier-up actually reads are set too.
// Not at process start: V8 accepts cached code only under the flags it was made with, and Node's
// own modules come from such a cache built into node, so every Node module loaded after a flag
// change is compiled from source (a keel -p start ran ~27% more instructions with the flags set
// first). By the time a shell command is first judged, a session has loaded the modules it needs.

const FLAGS = ["--liftoff-only", "--no-wasm-tier-up", "--no-wasm-dynamic-tiering"];

/**
 * Emitted on `process` right before the flags change: a host that keeps its own V8 code cache
 * (the keel CLI) takes it then, while it still matches the flags the next start will have.
 */
export const BEFORE_V8_FLAGS = "keel:before-v8-flags";

let switched = false;

export function keepWasmOnBaseline(): void {
  if (switched) return;
  switched = true;
  (process as NodeJS.EventEmitter).emit(BEFORE_V8_FLAGS);
  // node:v8 is loaded here, at the first judged command, not by every start.
  const { setFlagsFromString } = process.getBuiltinModule("node:v8");
  for (const flag of FLAGS) setFlagsFromString(flag);
}
