#!/usr/bin/env bash
# bench/versus-commit.sh BASE [SCENARIO…]: `npm run bench` on the commit BASE (a git worktree of
# it, sharing this checkout's node_modules) and on this checkout, in turns: BASE, this, BASE,
# this (ROUNDS=2 pairs by default), each with PostgreSQL too when BENCH_DATABASE_URL is set.
# Prints one table per run and keeps each run's JSON in .tmp/versus/. Compare req/s and the ratio
# to bare (the naive anchor itself may differ between the commits); the spread between the two
# runs of one commit is the noise a difference must exceed.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/versus-commit.sh BASE [SCENARIO…]}
shift
scenarios=("${@:-read-mix get-random create-under-load}")
out=.tmp/versus
tree=$(mktemp -d /tmp/signet-versus-XXXXXX)
rm -rf "$out" && mkdir -p "$out"
git worktree add --detach "$tree" "$base" >/dev/null
ln -s "$PWD/node_modules" "$tree/node_modules"
trap 'git worktree remove --force "$tree"' EXIT
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in base this; do
    dir=$PWD
    [ "$side" = base ] && dir=$tree
    echo "== round $round: $side ($(git -C "$dir" rev-parse --short HEAD)), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    # shellcheck disable=SC2068
    (cd "$dir" && npm run -s bench -- ${scenarios[@]}) | sed -n '/^scenario/,/^$/p'
    cp "$dir/bench/results/latest.json" "$out/$round-$side.json"
  done
done
