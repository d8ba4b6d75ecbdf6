import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

/* DATABASE_POOL_SIZE: the size of each instance's PostgreSQL pool (src/db/open-database.ts). */

describe('DATABASE_POOL_SIZE', () => {
  it('is 10 unless set, 1 to 100', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize).toBe(25);
    for (const bad of ['0', '101', 'ten', '-1']) {
      expect(() => loadConfig({ DATABASE_POOL_SIZE: bad })).toThrow(/DATABASE_POOL_SIZE/);
    }
  });
});
