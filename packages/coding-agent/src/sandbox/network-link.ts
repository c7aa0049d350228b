// How a sandboxed command reaches Keel's proxy although its network namespace has nothing but
// its own loopback: a small bridge inside the sandbox listens on 127.0.0.1:PROXY_PORT there and
// carries every connection, framed, over one socket pair Keel hands the sandbox as file
// descriptor 4; Keel's end opens a loopback connection to the proxy for each. No socket is
// opened inside the sandbox but that listener, so the seccomp filter against AF_UNIX holds for
// the bridge too, and nothing leaves the machine except through the proxy's allowlist.
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";

/** The proxy's port as commands see it (their own namespace: any port is free). */
export const PROXY_PORT = 3128;
/** The descriptor the link is on inside the sandbox (3 carries the seccomp filter to bwrap). */
export const LINK_FD = 4;

const OPEN = 1;
const DATA = 2;
const END = 3;
const CLOSE = 4;

/**
 * The bridge, run as `node -e BRIDGE -- <port> <command…>`: listens, then runs the command with the
 * same stdio and exits as it did. Plain CommonJS with no dependencies (it runs from no file).
 */
export const BRIDGE = `"use strict";
const net = require("net"), cp = require("child_process");
const [port, ...cmd] = process.argv.slice(1);
const link = new net.Socket({ fd: ${LINK_FD}, readable: true, writable: true });
const socks = new Map();
let next = 1, buf = Buffer.alloc(0);
const send = (t, id, d) => { const h = Buffer.alloc(9); h[0] = t; h.writeUInt32BE(id, 1); h.writeUInt32BE(d ? d.length : 0, 5); link.write(d ? Buffer.concat([h, d]) : h); };
link.on("error", () => {});
link.on("data", (c) => {
  buf = Buffer.concat([buf, c]);
  while (buf.length >= 9) {
    const n = buf.readUInt32BE(5);
    if (buf.length < 9 + n) break;
    const t = buf[0], id = buf.readUInt32BE(1), d = buf.subarray(9, 9 + n);
    buf = buf.subarray(9 + n);
    const s = socks.get(id);
    if (!s) continue;
    if (t === ${DATA}) s.write(d); else if (t === ${END}) s.end(); else if (t === ${CLOSE}) { socks.delete(id); s.destroy(); }
  }
});
const server = net.createServer((s) => {
  const id = next++;
  socks.set(id, s);
  send(${OPEN}, id);
  s.on("data", (d) => send(${DATA}, id, d));
  s.on("end", () => send(${END}, id));
  s.on("error", () => {});
  s.on("close", () => { if (socks.delete(id)) send(${CLOSE}, id); });
});
server.listen(Number(port), "127.0.0.1", () => {
  const child = cp.spawn(cmd[0], cmd.slice(1), { stdio: "inherit" });
  for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(sig, () => child.kill(sig));
  child.on("error", (e) => { process.stderr.write(String(e.message) + "\\n"); process.exit(127); });
  child.on("exit", (code, sig) => {
    if (sig) { process.removeAllListeners(sig); process.kill(process.pid, sig); }
    process.exit(code === null ? 1 : code);
  });
});
`;

/** Keel's end: serves one sandbox's link until it closes. */
export function serveLink(link: Duplex, proxyPort: number): void {
  const socks = new Map<number, Socket>();
  let buf = Buffer.alloc(0);
  const send = (type: number, id: number, data?: Buffer) => {
    const head = Buffer.alloc(9);
    head[0] = type;
    head.writeUInt32BE(id, 1);
    head.writeUInt32BE(data ? data.length : 0, 5);
    if (!link.destroyed) link.write(data ? Buffer.concat([head, data]) : head);
  };
  link.on("error", () => {});
  link.on("close", () => {
    for (const s of socks.values()) s.destroy();
    socks.clear();
  });
  link.on("data", (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 9) {
      const length = buf.readUInt32BE(5);
      if (buf.length < 9 + length) break;
      const type = buf[0];
      const id = buf.readUInt32BE(1);
      const data = buf.subarray(9, 9 + length);
      buf = buf.subarray(9 + length);
      if (type === OPEN) {
        const s = connect({ host: "127.0.0.1", port: proxyPort });
        socks.set(id, s);
        s.on("data", (d: Buffer) => send(DATA, id, d));
        s.on("end", () => send(END, id));
        s.on("error", () => {});
        s.on("close", () => {
          if (socks.delete(id)) send(CLOSE, id);
        });
        continue;
      }
      const s = socks.get(id);
      if (!s) continue;
      if (type === DATA) s.write(data);
      else if (type === END) s.end();
      else if (type === CLOSE) {
        socks.delete(id);
        s.destroy();
      }
    }
  });
}
