/** Whether dist/ must be (re)built from src/. */
export function isStale(): boolean;
/** Builds dist/ from src/; resolves to the milliseconds taken. */
export function build(): Promise<number>;
/** Builds dist/ when it is older than src/, saying so on stderr. */
export function buildIfStale(): Promise<void>;
