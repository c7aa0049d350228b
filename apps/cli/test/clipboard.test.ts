// The clipboard's image for Ctrl+V: the readers are real executables found on PATH (stand-ins
// here), and each way of finding no image says which one it was.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clipboardImage } from "../src/tui/clipboard.js";

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const sniff = (bytes: Uint8Array) =>
  Buffer.from(bytes.subarray(0, 8)).equals(PNG_MAGIC) ? "image/png" : undefined;

let bin: string;
let savedPath: string | undefined;

beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), "keel-clip-"));
  savedPath = process.env.PATH;
  process.env.PATH = bin;
});

afterEach(() => {
  process.env.PATH = savedPath;
  rmSync(bin, { recursive: true, force: true });
});

function xclipPrinting(file: string): void {
  writeFileSync(join(bin, "xclip"), `#!/bin/sh\nexec /bin/cat '${file}'\n`);
  chmodSync(join(bin, "xclip"), 0o755);
}

describe("clipboardImage", () => {
  it("returns the image a reader printed", () => {
    const png = join(bin, "clip.png");
    writeFileSync(png, Buffer.concat([PNG_MAGIC, Buffer.from("rest")]));
    xclipPrinting(png);
    const image = clipboardImage(sniff);
    expect(image.isOk() && image.value).toMatchObject({ type: "image", mimeType: "image/png" });
  });

  it("says no image when a reader ran but printed none", () => {
    const text = join(bin, "clip.txt");
    writeFileSync(text, "just text");
    xclipPrinting(text);
    const image = clipboardImage(sniff);
    expect(image.isErr() && image.error).toEqual({
      type: "no_image",
      message: "No image in the clipboard (or it is larger than 3.75 MB).",
    });
  });

  it("names the tools to install when none is on PATH", () => {
    const image = clipboardImage(sniff);
    expect(image.isErr() && image.error).toEqual({
      type: "no_clipboard_tool",
      message: "No clipboard tool found: install wl-clipboard or xclip (pngpaste on macOS).",
    });
  });
});
