#!/usr/bin/env bash
# Measures the package's own pickle decoder against gopickle (behind the same strict class
# resolver) on a 311 MB resaved file and on small hostile files: wall time, peak memory, and
# what each says. The figures are in engine/mobileenv/doc.go and the README ("Why not gopickle").
# Usage: scripts/compare-gopickle.sh [WORKDIR]   (needs /usr/bin/time; writes ~320 MB in WORKDIR)
set -euo pipefail
cd "$(dirname "$0")/.."
go="$(pwd)/scripts/go.sh"
work="${1:-$(mktemp -d)}"
mkdir -p "$work/hostile"
"$go" test -c -o "$work/mobileenv.test" ./engine/mobileenv
if [ ! -f "$work/large.pkl" ]; then
  MOBILEENV_BENCH_FILE="$work/large.pkl" "$go" test -run '^$' -bench BenchmarkOpenLargeResaved -benchtime 1x ./engine/mobileenv >/dev/null
fi
(cd "$work" && PICKLE_HOSTILE_DIR="$work/hostile" ./mobileenv.test -test.run '^TestDecoderComparison$' >/dev/null)
for f in "$work/large.pkl" "$work"/hostile/*.pkl; do
  for dec in ours gopickle; do
    for run in 1 2 3; do
      PICKLE_COMPARE=$dec PICKLE_FILE="$f" /usr/bin/time -f "    peak %M KB, wall %e s" \
        "$work/mobileenv.test" -test.run '^TestDecoderComparison$' 2>&1 | grep -v '^PASS$' | sed "s/^/run $run: /"
    done
  done
done
