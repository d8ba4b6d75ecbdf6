/*
 * The shape every status module uses (modules/<resource>/<resource>-status.ts): a table of the
 * moves each status allows, checked before any status is written. A move the table does not
 * allow is a bug in the caller, not a user error: requests are refused with their own 409
 * before they reach a status write.
 */

/** Each status → the statuses it may move to. */
export type Transitions<S extends string> = Readonly<Record<S, readonly S[]>>;

export class IllegalTransitionError extends Error {
  constructor(resource: string, from: string, to: string) {
    super(`A ${resource} cannot move from ${from} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

/** Throws IllegalTransitionError unless every status of `from` may move to `to`. */
export function checkTransition<S extends string>(
  resource: string,
  table: Transitions<S>,
  from: readonly S[],
  to: S,
): void {
  for (const status of from)
    if (!table[status].includes(to)) throw new IllegalTransitionError(resource, status, to);
}

/** The statuses from which `to` can be reached. */
export function predecessors<S extends string>(table: Transitions<S>, to: S): S[] {
  return (Object.keys(table) as S[]).filter((status) => table[status].includes(to));
}
