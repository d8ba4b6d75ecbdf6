import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

export type IdPrefix =
  | 'org' | 'key' | 'doc' | 'sgn' | 'fld' | 'tpl' | 'fol' | 'cmp' | 'whk' | 'evt' | 'dlv' | 'aud'
  | 'att' | 'job' | 'wat' | 'rol';

let lastTime = 0;
let lastRandom = new Uint8Array(10);

/**
 * A prefixed, time-ordered identifier: 10 characters of milliseconds then 16 of randomness
 * (a ULID in lower case). Within one millisecond the random part is incremented, so ids made
 * by one process sort in creation order.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      if (lastRandom[i] < 255) { lastRandom[i]++; break; }
      lastRandom[i] = 0;
    }
  } else {
    lastTime = now;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  let bits = 0n;
  for (const byte of lastRandom) bits = (bits << 8n) | BigInt(byte);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    rand = ALPHABET[Number(bits & 31n)] + rand;
    bits >>= 5n;
  }
  return `${prefix}_${time}${rand}`;
}
