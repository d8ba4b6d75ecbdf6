import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

type IdPrefix =
  | 'org'
  | 'key'
  | 'doc'
  | 'sgn'
  | 'fld'
  | 'tpl'
  | 'fol'
  | 'cmp'
  | 'whk'
  | 'evt'
  | 'dlv'
  | 'aud'
  | 'att'
  | 'job'
  | 'wat'
  | 'rol'
  | 'bsd'
  | 'exp'
  | 'sms'
  | 'req';

let lastTime = 0;
const lastRandom = new Uint8Array(10);

/*
 * Random bytes are drawn from the system's generator 4 KiB at a time: every request gets an id,
 * and one call per id cost more than the rest of the id.
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
function fillRandom(target: Uint8Array): void {
  if (poolAt + target.length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  target.set(pool.subarray(poolAt, poolAt + target.length));
  poolAt += target.length;
}

/** Eight base32 characters of a 40-bit number (exact in a double). */
function base32x8(value: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[value % 32] + out;
    value = Math.floor(value / 32);
  }
  return out;
}

const forty = (b: Uint8Array, at: number) =>
  b[at] * 2 ** 32 + ((b[at + 1] << 24) >>> 0) + (b[at + 2] << 16) + (b[at + 3] << 8) + b[at + 4];

/**
 * A prefixed, time-ordered identifier: 10 characters of milliseconds then 16 of randomness
 * (a ULID in lower case). Within one millisecond the random part is incremented, so ids made
 * by one process sort in creation order.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      if (lastRandom[i] < 255) {
        lastRandom[i]++;
        break;
      }
      lastRandom[i] = 0;
    }
  } else {
    lastTime = now;
    fillRandom(lastRandom);
  }
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  // 80 random bits as 16 characters: two 40-bit halves of 8 characters each.
  return `${prefix}_${time}${base32x8(forty(lastRandom, 0))}${base32x8(forty(lastRandom, 5))}`;
}
