import cliProgress from 'cli-progress';

/** What a backup, verify or restore reports as it goes: a phase, then its steps. */
export interface Progress {
  /** A new phase; `total` when its size is known (rows of the tables, files of the index). */
  phase(label: string, total?: number): void;
  /** `count` more steps done, `bytes` more bytes moved. */
  advance(count: number, bytes?: number): void;
  stop(): void;
}

export const silentProgress: Progress = { phase() {}, advance() {}, stop() {} };

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * A progress bar on the terminal (cli-progress), one line per phase, redrawn a few times a
 * second: quiet when stdout is not a terminal or with --json, so scripts read only the result.
 */
function terminalProgress(stream: NodeJS.WriteStream = process.stdout): Progress {
  let bar: cliProgress.SingleBar | null = null;
  let bytes = 0;
  const stop = () => {
    bar?.stop();
    bar = null;
  };
  return {
    phase(label, total) {
      stop();
      bytes = 0;
      bar = new cliProgress.SingleBar(
        {
          stream,
          fps: 5,
          hideCursor: true,
          format:
            total === undefined
              ? `${label.padEnd(8)} {value} done, {moved}, {duration_formatted}`
              : `${label.padEnd(8)} [{bar}] {percentage}% {value}/{total}, {moved}, eta {eta_formatted}`,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(total ?? 0, 0, { moved: mb(0) });
    },
    advance(count, more = 0) {
      bytes += more;
      bar?.increment(count, { moved: mb(bytes) });
    },
    stop,
  };
}

/** The terminal bar when a person watches stdout, otherwise nothing. */
export function progressFor(json: boolean): Progress {
  return !json && process.stdout.isTTY ? terminalProgress() : silentProgress;
}
