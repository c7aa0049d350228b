// Short random ids for entries (unique within a session; callers re-draw on a collision).
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ID_LENGTH = 10;
// Drawing random bytes in blocks keeps id generation off the hot path of every append.
let pool = Buffer.alloc(0);
let offset = 0;

/** 10 base-62 characters (~59 bits): collisions are rare, and `isTaken` rules them out. */
export function newEntryId(isTaken: (id: string) => boolean = () => false): string {
  for (;;) {
    let id = "";
    while (id.length < ID_LENGTH) {
      if (offset >= pool.length) {
        pool = randomBytes(4096);
        offset = 0;
      }
      const byte = pool[offset++]!;
      // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
      if (byte < 248) id += ALPHABET[byte % 62];
    }
    if (!isTaken(id)) return id;
  }
}
