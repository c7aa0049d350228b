// Server-sent-event framing, byte for byte as the vendors send it: `event:` line (when named),
// one `data:` line of compact JSON, and a blank line.

export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** OpenAI Chat Completions' end-of-stream sentinel. */
export const SSE_DONE = "data: [DONE]\n\n";

/** Splits text into pieces of `size` code points (never halving a surrogate pair). */
export function splitText(text: string, size: number): string[] {
  const points = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < points.length; i += step) pieces.push(points.slice(i, i + step).join(""));
  return pieces;
}
