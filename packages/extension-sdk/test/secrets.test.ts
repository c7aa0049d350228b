// Secret scrubbing by effect: each way a command can print a token (plain, encoded, cut short,
// wrapped in other text) comes out without anything that gives the token back.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell parameter expansions in the payloads, not templates
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REDACTED, scrubSecrets, secretScrubber } from "../src/index.js";

const TOKEN = "ghp_R7x2Kq9LmZ4vT1nB8cW3yH6pJ0sD5fG2aE1u";
const sh = (script: string) =>
  execFileSync("bash", ["-c", script], { env: { ...process.env, T: TOKEN }, encoding: "utf8" });

type Decoder = (text: string) => string[];
const runs = (text: string, chars: RegExp) => text.match(chars) ?? [];
/** Every reading of `text` a decoder can get, lenient about where encoded runs start. */
const DECODE: Record<string, Decoder> = {
  plain: (t) => [t],
  base64: (t) =>
    runs(t, /[A-Za-z0-9+/=_-]{4,}/g).flatMap((run) =>
      [0, 1, 2, 3].map((off) =>
        Buffer.from(run.slice(off).replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("latin1"),
      ),
    ),
  hex: (t) =>
    runs(t, /[0-9a-fA-F]{4,}/g).flatMap((run) =>
      [0, 1].map((off) => Buffer.from(run.slice(off), "hex").toString("latin1")),
    ),
  percent: (t) => [
    t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
  ],
  reversed: (t) => [[...t].reverse().join("")],
  rot13: (t) => [
    t.replace(/[a-z]/gi, (c) =>
      String.fromCharCode(((c.charCodeAt(0) - (c <= "Z" ? 65 : 97) + 13) % 26) + (c <= "Z" ? 65 : 97)),
    ),
  ],
};

/** True when some reading of `text` holds 10 or more consecutive characters of the token. */
function leaks(text: string, decoder: Decoder): boolean {
  const readings = decoder(text);
  for (let i = 0; i + 10 <= TOKEN.length; i++) {
    const piece = TOKEN.slice(i, i + 10);
    if (readings.some((r) => r.includes(piece))) return true;
  }
  return false;
}

describe("secret scrubbing", () => {
  const scrubber = secretScrubber([TOKEN]);

  it.each([
    ["plain", "plain", "echo $T"],
    ["inside other text", "plain", 'echo "token=$T;"'],
    ["base64", "base64", "printf %s $T | base64"],
    ["base64 after a prefix (another alignment)", "base64", 'printf "x%s" $T | base64'],
    ["base64 after two bytes", "base64", 'printf "xy%s" $T | base64 -w0'],
    ["URL-safe base64", "base64", "printf %s $T | base64 | tr '+/' '-_'"],
    ["hex", "hex", "printf %s $T | od -An -tx1 | tr -d ' \\n'"],
    ["upper-case hex", "hex", "printf %s $T | od -An -tx1 | tr -d ' \\n' | tr a-f A-F"],
    [
      "percent-encoded",
      "percent",
      `python3 -c "import urllib.parse,os;print(urllib.parse.quote(os.environ['T'], safe=''))"`,
    ],
    ["every byte percent-encoded", "percent", `printf %s $T | od -An -tx1 | tr -d ' \\n' | sed 's/../%&/g'`],
    ["reversed", "reversed", "printf %s $T | rev"],
    ["rot13", "rot13", "printf %s $T | tr 'A-Za-z' 'N-ZA-Mn-za-m'"],
    ["its first 20 characters", "plain", "echo ${T:0:20}"],
    ["its last 16 characters", "plain", "echo ${T: -16}"],
    ["a middle piece, base64", "base64", "printf %s ${T:7:24} | base64"],
    ["a middle piece, hex", "hex", "printf %s ${T:9:14} | od -An -tx1 | tr -d ' \\n'"],
  ])("%s", (_name, decoding, script) => {
    const decoder = DECODE[decoding]!;
    const out = sh(script);
    expect(leaks(out, decoder), `the payload prints the token: ${out}`).toBe(true);
    const scrubbed = scrubber.text(out);
    expect(leaks(scrubbed, decoder), scrubbed).toBe(false);
    expect(
      leaks(scrubbed, (t) => Object.values(DECODE).flatMap((d) => d(t))),
      scrubbed,
    ).toBe(false);
    expect(scrubbed).toContain(REDACTED);
  });

  it("leaves text without the secret as it was, and walks keys and nested values", () => {
    const value = { a: [`x ${TOKEN} y`, 3, null], [TOKEN]: { ok: "plain text, ghp_ prefix alone" } };
    expect(scrubSecrets(value, [TOKEN])).toEqual({
      a: [`x ${REDACTED} y`, 3, null],
      [REDACTED]: { ok: "plain text, ghp_ prefix alone" },
    });
    expect(scrubber.text("nothing secret here, not even base64: aGVsbG8gd29ybGQ=")).toBe(
      "nothing secret here, not even base64: aGVsbG8gd29ybGQ=",
    );
  });

  it("finds a short secret only whole, and ignores ones too short to look for", () => {
    expect(scrubSecrets("key=hunter22 and hunter", ["hunter22"])).toBe(`key=${REDACTED} and hunter`);
    expect(scrubSecrets("a 1 b", ["1"])).toBe("a 1 b");
  });

  it("scrubs 30 KB of output with five secrets in a few milliseconds", () => {
    const secrets = [TOKEN, ...[1, 2, 3, 4].map((n) => `sk-live-${n}${"Qw8eR5tY2uI9oP3a".repeat(2)}`)];
    const many = secretScrubber(secrets);
    const text = `${"lorem ipsum dolor sit amet 0123456789\n".repeat(800)}${TOKEN}`;
    const started = performance.now();
    const out = many.text(text);
    // Not a timing assertion: the cost is printed by bench/sandbox; this only proves it finished.
    expect(performance.now() - started).toBeGreaterThan(0);
    expect(out.endsWith(REDACTED)).toBe(true);
  });
});
