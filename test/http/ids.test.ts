import { beforeAll, describe, expect, it, vi } from 'vitest';

/*
 * Ids never go back in time within a process, and the fast suite runs many files in one process
 * (some with clocks set ahead): this file reads the module afresh, so its figures are its own.
 */
let newId: typeof import('../../src/ids.ts').newId;
beforeAll(async () => {
  vi.resetModules();
  ({ newId } = await import('../../src/ids.ts'));
});

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** The 26 characters after the prefix, read back as (milliseconds, 80-bit random part). */
function decode(id: string): { time: number; random: bigint } {
  const body = id.split('_')[1];
  let time = 0;
  for (const c of body.slice(0, 10)) time = time * 32 + ALPHABET.indexOf(c);
  let random = 0n;
  for (const c of body.slice(10)) random = random * 32n + BigInt(ALPHABET.indexOf(c));
  return { time, random };
}

describe('newId', () => {
  it('is the prefix, 10 characters of milliseconds and 16 of randomness in Crockford base32', () => {
    // A time before the next test's: ids never go back within one module instance.
    const at = Date.now() + 30_000;
    const id = newId('doc', at);
    expect(id).toMatch(/^doc_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(decode(id).time).toBe(at);
  });

  it('counts up within one millisecond, across the 40-bit halves, so ids sort in creation order', () => {
    const at = Date.now() + 60_000;
    const ids = Array.from({ length: 5000 }, () => newId('evt', at));
    expect([...ids].sort()).toEqual(ids);
    const randoms = ids.map((i) => decode(i).random);
    for (let i = 1; i < randoms.length; i++) expect(randoms[i] - randoms[i - 1]).toBe(1n);
  });

  it('draws fresh randomness for a new millisecond', () => {
    // One clock reading: two could straddle a millisecond and put the ids 2 ms apart.
    const at = Date.now() + 120_000;
    const a = newId('aud', at);
    const b = newId('aud', at + 1);
    expect(decode(b).time - decode(a).time).toBe(1);
    expect(decode(b).random).not.toBe(decode(a).random + 1n);
    const seen = new Set(
      Array.from({ length: 200 }, (_, i) => decode(newId('job', Date.now() + 200_000 + i)).random),
    );
    expect(seen.size).toBe(200);
  });
});
