// Serves one captured SSE reply, in one write, to every request: run as a child process by
// fixture.mjs so the server's socket writes do not count in the client's time.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.argv[2] ?? "");
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "content-length": body.length });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => process.send?.({ port: server.address().port }));
process.on("disconnect", () => server.close(() => process.exit(0)));
