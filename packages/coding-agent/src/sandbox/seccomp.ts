// The seccomp filter bubblewrap installs in the sandbox (`--seccomp FD`): socket(AF_UNIX) fails
// with EPERM, so a command cannot reach a host socket it can see (the Docker daemon, the user's
// D-Bus session where `systemd-run --user` starts units outside the sandbox, an ssh agent).
// Everything else is allowed. A classic BPF program, assembled here rather than by libseccomp.

/** struct sock_filter opcodes used below. */
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;

const RET_ALLOW = 0x7fff0000;
const RET_EPERM = 0x00050000 | 1;

/** Offsets in struct seccomp_data. */
const NR = 0;
const ARCH = 4;
/** args[0]; its low 32 bits come first on these little-endian architectures. */
const ARG0 = 16;

const AF_UNIX = 1;

interface Abi {
  audit: number;
  /** socket(2)'s number in this ABI. */
  socket: number;
  /** socketcall(2), whose arguments a filter cannot see: refused whole where the ABI has it. */
  socketcall?: number;
  /** Numbers at or above this belong to another ABI sharing the arch value (x32). */
  limit?: number;
}

/** The ABIs a process of each host architecture may use. */
const ABIS: Record<string, Abi[]> = {
  x64: [
    { audit: 0xc000003e, socket: 41, limit: 0x40000000 },
    { audit: 0x40000003, socket: 359, socketcall: 102 }, // i386 programs on x86_64
  ],
  arm64: [
    { audit: 0xc00000b7, socket: 198 },
    { audit: 0x40000028, socket: 281 }, // 32-bit ARM programs on arm64
  ],
};

type Jump = string | number;
type Instruction = { code: number; k: number; jt?: Jump; jf?: Jump } | { label: string };

/** Resolves label jumps to the relative offsets BPF wants. */
function assemble(program: Instruction[]): Buffer {
  const code = program.filter((i): i is Exclude<Instruction, { label: string }> => !("label" in i));
  const labels = new Map<string, number>();
  let at = 0;
  for (const i of program) {
    if ("label" in i) labels.set(i.label, at);
    else at++;
  }
  const out = Buffer.alloc(code.length * 8);
  code.forEach((i, index) => {
    const offset = (jump: Jump | undefined): number => {
      if (jump === undefined) return 0;
      const target = typeof jump === "number" ? index + 1 + jump : labels.get(jump);
      if (target === undefined) throw new Error(`seccomp: unknown label ${String(jump)}`);
      const relative = target - index - 1;
      if (relative < 0 || relative > 255) throw new Error("seccomp: jump out of range");
      return relative;
    };
    out.writeUInt16LE(i.code, index * 8);
    out.writeUInt8(offset(i.jt), index * 8 + 2);
    out.writeUInt8(offset(i.jf), index * 8 + 3);
    out.writeUInt32LE(i.k >>> 0, index * 8 + 4);
  });
  return out;
}

/**
 * The filter for `arch` (`process.arch`), or undefined where Keel has none (then the sandbox runs
 * without it and says so). Unknown ABIs are refused outright: a filter that let them through would
 * let socketcall-style entry points around it.
 */
export function unixSocketFilter(arch: string = process.arch): Buffer | undefined {
  const abis = ABIS[arch];
  if (!abis) return undefined;
  const program: Instruction[] = [{ code: LD_W_ABS, k: ARCH }];
  for (const [n, abi] of abis.entries()) program.push({ code: JEQ_K, k: abi.audit, jt: `abi${n}` });
  program.push({ code: RET_K, k: RET_EPERM });
  abis.forEach((abi, n) => {
    program.push({ label: `abi${n}` }, { code: LD_W_ABS, k: NR });
    if (abi.limit !== undefined) program.push({ code: JGE_K, k: abi.limit, jt: "deny" });
    if (abi.socketcall !== undefined) program.push({ code: JEQ_K, k: abi.socketcall, jt: "deny" });
    program.push(
      { code: JEQ_K, k: abi.socket, jf: "allow" },
      { code: LD_W_ABS, k: ARG0 },
      { code: JEQ_K, k: AF_UNIX, jt: "deny", jf: "allow" },
    );
  });
  program.push(
    { label: "allow" },
    { code: RET_K, k: RET_ALLOW },
    { label: "deny" },
    { code: RET_K, k: RET_EPERM },
  );
  return assemble(program);
}
