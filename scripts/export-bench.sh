#!/usr/bin/env bash
# The Parquet export's speed and memory at full scale (make bench-export; CI skips it):
#   1. a generated GUI Odyssey store of EPISODES episodes (default 200,000; no screenshots),
#      exported with --no-images (the pages the import encoded, copied), its random split
#      exported the same way (its parts take part of every block: encoded from the rows), beside
#      the JSONL export of the same episodes (which holds the whole selection: about 7.3 GB of
#      memory at 200k). A store kept from a build before the encoded pages has none: delete
#      WORK to measure the copy;
#   2. a generated store of IMAGE_EPISODES episodes (default 8,334, the v2 release's size) with
#      its screenshots in a zip (small synthetic PNGs), exported with the images;
#   3. a store of IMAGE_MB megabytes of 512 KB frames (default 2048; made by the store's
#      BenchmarkDatasetExportImages), exported with the images, beside dd writing as many bytes
#      (what the disk allows).
# Prints each run's wall time, rate and peak RSS. Keeps its generated stores in WORK
# (default /tmp/agentdesk-export-bench) for the next run; delete the folder to start afresh.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
n=${EPISODES:-200000}
ni=${IMAGE_EPISODES:-8334}
work=${WORK:-/tmp/agentdesk-export-bench}
mkdir -p "$work"
bin="$work/agentdesk"
(cd "$here" && scripts/go.sh build -o "$bin" .)
timed() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label: wall %e s, user %U s, sys %S s, peak RSS %M KB" "$@"
}
store_of() { # episodes, screenshots mode -> store path
  local db="$work/store-$1-$2.db"
  if [ ! -f "$db" ]; then
    rm -rf "$work/ody-$1-$2"
    "$bin" odyssey generate --episodes "$1" --screenshots "$2" --out "$work/ody-$1-$2" >&2
    "$bin" --store "$db" odyssey import "$work/ody-$1-$2" >&2
    [ "$2" = none ] && rm -rf "$work/ody-$1-$2"
  fi
  echo "$db"
}
rate() { # count, seconds
  awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f/s", n / s }'
}

db=$(store_of "$n" none)
echo "== $n episodes, no images ($db)"
rm -rf "$work/parquet" "$work/episodes.jsonl"
s=$(date +%s.%N)
timed "export --format parquet --no-images" "$bin" --store "$db" export --format parquet --no-images "$work/parquet"
e=$(date +%s.%N)
echo "parquet: $(rate "$n" "$(echo "$e - $s" | bc)") episodes, $(du -sh "$work/parquet" | cut -f1)"
# a split's parts take part of every block: read from their rows and encoded then
rm -rf "$work/parquet"
s=$(date +%s.%N)
timed "export --format parquet --no-images --split random_split" "$bin" --store "$db" export --format parquet --no-images --split random_split "$work/parquet"
e=$(date +%s.%N)
echo "parquet of a split (from rows): $(rate "$n" "$(echo "$e - $s" | bc)") episodes, $(du -sh "$work/parquet" | cut -f1)"
s=$(date +%s.%N)
timed "odyssey export episodes --format jsonl" "$bin" --store "$db" odyssey export episodes --format jsonl "$work/episodes.jsonl"
e=$(date +%s.%N)
echo "jsonl: $(rate "$n" "$(echo "$e - $s" | bc)") episodes, $(du -sh "$work/episodes.jsonl" | cut -f1)"
rm -rf "$work/parquet" "$work/episodes.jsonl"

db=$(store_of "$ni" zip)
echo "== $ni episodes with their screenshots ($db)"
rm -rf "$work/parquet-images"
timed "export --format parquet" "$bin" --store "$db" export --format parquet "$work/parquet-images"
rm -rf "$work/parquet-images"

mb=${IMAGE_MB:-2048}
db="$work/store-images-$mb.db"
if [ ! -f "$db" ]; then
  (cd "$here" && AGENTDESK_DATASET_BENCH_IMAGE_MB=$mb AGENTDESK_DATASET_BENCH_KEEP="$db" \
    scripts/go.sh test -run '^$' -bench 'BenchmarkDatasetExportImages$' -benchtime 1x ./store/ >&2)
fi
echo "== $mb MB of 512 KB frames ($db)"
rm -rf "$work/parquet-images"
s=$(date +%s.%N)
timed "export --format parquet (frames)" "$bin" --store "$db" export --format parquet "$work/parquet-images"
e=$(date +%s.%N)
bytes=$(du -sb "$work/parquet-images" | cut -f1)
secs=$(echo "$e - $s" | bc)
echo "parquet with frames: $(awk -v b="$bytes" -v s="$secs" 'BEGIN { printf "%.0f MB/s", b / s / 1e6 }') ($bytes bytes in $secs s)"
s=$(date +%s.%N)
dd if=/dev/zero of="$work/disk-test" bs=1M count=$((bytes / 1048576 + 1)) conv=fsync status=none
e=$(date +%s.%N)
echo "the disk: $(awk -v b="$bytes" -v s="$(echo "$e - $s" | bc)" 'BEGIN { printf "%.0f MB/s", b / s / 1e6 }') (dd of as many bytes, fsync)"
rm -rf "$work/parquet-images" "$work/disk-test"
