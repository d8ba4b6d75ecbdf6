import type { Context, ScenarioResult } from './context.ts';
import { startSignet } from './harness.ts';
import { CREATE_UNDER_LOAD, loadMixInTurns, READ_MIX, type MixResult } from './mix.ts';

/**
 * `npm run bench -- pool-sizes` (PostgreSQL; BENCH_ONLY=postgres skips SQLite): one Signet process
 * per pool size (BENCH_POOL_SIZES, default 5,10,20: DATABASE_POOL_SIZE), loaded in turns with
 * read-mix, then with create-under-load. Per size: requests per second of each, and of
 * create-under-load its creates per second and their p99.
 */
export async function poolSizes(ctx: Context): Promise<Omit<ScenarioResult, 'database'>> {
  const goal = 'printed: the default changes only if another size is better on both loads';
  if (ctx.db.name !== 'postgres') return { summary: 'PostgreSQL only', goal };
  const sizes = (process.env.BENCH_POOL_SIZES ?? '5,10,20').split(',').map(Number);
  const servers = await Promise.all(
    sizes.map((n) => startSignet({ ...ctx.db.env, DATABASE_POOL_SIZE: String(n) })),
  );
  try {
    const sides = servers.map((s, i) => ({ name: `pool ${sizes[i]}`, url: s.url }));
    const mix = await loadMixInTurns(sides, ctx.seeded, [{ mix: READ_MIX, connections: 50 }]);
    const creating = await loadMixInTurns(sides, ctx.seeded, CREATE_UNDER_LOAD);
    const p99 = (r: MixResult) =>
      Object.entries(r.classes)
        .map(([c, f]) => `${c} ${f.p99Ms}`)
        .join(', ');
    const bySize = Object.fromEntries(
      sizes.map((n, i) => [
        n,
        {
          readMix: { reqPerSec: Math.round(mix[i].reqPerSec), classes: mix[i].classes },
          createUnderLoad: {
            reqPerSec: Math.round(creating[i].reqPerSec),
            classes: creating[i].classes,
          },
        },
      ]),
    );
    return {
      bySize,
      summary: sizes
        .map(
          (n, i) =>
            `pool ${n}: read-mix ${Math.round(mix[i].reqPerSec)} req/s (p99 ms ${p99(mix[i])}); create-under-load ${Math.round(creating[i].reqPerSec)} req/s, creates ${creating[i].classes.create?.perSec ?? 0}/s p99 ${creating[i].classes.create?.p99Ms ?? 0} ms`,
        )
        .join(' | '),
      goal,
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
