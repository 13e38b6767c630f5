#!/usr/bin/env bash
# threads.sh — bench_write_table with 1 and 2 threads, against DuckDB's COPY
# and polars' writeParquet with 1 and 2 threads each, on the same data.
#
#   bench/write_table/threads.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep]
#
# The files go to a new folder under /dev/shm (or $TMPDIR, or /tmp) unless
# --workdir says where.
#
# 1. bench_write_table --threads 1 and --threads 2, one run of each in turn,
#    K rounds (the machine's speed drifts: the pairs see the same drift);
#    medians of the whole timed section (data generation included), peak
#    RSS and the library's peak live bytes; then the same with --in-memory
#    (the rows generated before the timed section, as the peers' are), whose
#    files must be the same bytes;
# 2. the files of 1, 2 and 4 threads compared byte for byte;
# 3. duckdb_peer.mjs: the same rows loaded into DuckDB, COPY ... (FORMAT
#    parquet, COMPRESSION zstd) with threads=1 and threads=2, K times each;
# 4. polars_peer.mjs: the same rows in a DataFrame, writeParquet with zstd
#    level 3, POLARS_MAX_THREADS=1 and 2, K times each (nodejs-polars from
#    bench/package.json: npm ci in bench/, done here when missing);
# 5. a summary: each one's median and the ratios.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=5
workdir=
keep=0

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '3,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "threads.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

bench=$build/bench/bench_write_table
[ -x "$bench" ] || { echo "threads.sh: no $bench (build with INLAY_BENCH=ON)" >&2; exit 2; }
# tmpfs when there is one: a disk's writeback runs on the same two cores
# as the writers and blurs what a second thread brings
if [ -z "$workdir" ]; then
    base=/dev/shm
    [ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/tmp}
    workdir=$(mktemp -d "$base/inlay_threads.XXXXXX")
fi
mkdir -p "$workdir"
cleanup() { [ "$keep" = 1 ] || rm -rf "$workdir"; }
trap cleanup EXIT

if [ ! -d "$here/../node_modules/nodejs-polars" ]; then
    (cd "$here/.." && npm ci --no-audit --no-fund >/dev/null)
fi

result() { sed -n 's/^RESULT //p' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | tail -1; }
median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# memory a process touches for the first time costs what the machine says
# (page faults; in a VM, maybe the host's too): every run pays it for its
# peak RSS, at 1 thread and at 2 alike, so it is printed beside the times
touch_ms_per_mib=
mapped_ms_per_mib=
if [ -x "$build/bench/bench_first_touch" ]; then
    echo "== this machine: fresh memory against memory touched again"
    "$build/bench/bench_first_touch" > "$workdir/first_touch.log"
    grep -v '^RESULT' "$workdir/first_touch.log" | sed 's/^/  /'
    touch_ms_per_mib=$(result "$workdir/first_touch.log" first_touch_ms_per_mib)
    mapped_ms_per_mib=$(result "$workdir/first_touch.log" mapped_ms_per_mib)
fi

echo "== inlay: $rows rows, threads 1 and 2 in turn, generating the rows and from memory, $repeat rounds"
: > "$workdir/t1.times"; : > "$workdir/t2.times"; : > "$workdir/m1.times"; : > "$workdir/m2.times"
for k in $(seq "$repeat"); do
    for t in 1 2; do
        "$bench" --no-sync --rows "$rows" --threads "$t" --out "$workdir/inlay_t$t.parquet" > "$workdir/t$t.log"
        s=$(result "$workdir/t$t.log" seconds)
        echo "$s" >> "$workdir/t$t.times"
        echo "  round $k threads $t: $s s, peak RSS $(result "$workdir/t$t.log" maxrss_kb) KiB," \
             "library peak $(result "$workdir/t$t.log" peak_live) B"
    done
    for t in 1 2; do
        "$bench" --no-sync --in-memory --rows "$rows" --threads "$t" --out "$workdir/inlay_m$t.parquet" \
            > "$workdir/m$t.log"
        s=$(result "$workdir/m$t.log" seconds)
        echo "$s" >> "$workdir/m$t.times"
        echo "  round $k threads $t, rows in memory: $s s"
    done
done
i1=$(median < "$workdir/t1.times"); i2=$(median < "$workdir/t2.times")
r1=$(result "$workdir/t1.log" maxrss_kb); r2=$(result "$workdir/t2.log" maxrss_kb)
m1=$(median < "$workdir/m1.times"); m2=$(median < "$workdir/m2.times")
for t in 1 2; do
    if ! cmp -s "$workdir/inlay_t1.parquet" "$workdir/inlay_m$t.parquet"; then
        echo "FAIL: the file written from memory with $t threads differs" >&2; exit 1
    fi
done

echo "== the same bytes at 1, 2 and 4 threads"
"$bench" --no-sync --rows "$rows" --threads 4 --out "$workdir/inlay_t4.parquet" > "$workdir/t4.log"
for t in 2 4; do
    if ! cmp -s "$workdir/inlay_t1.parquet" "$workdir/inlay_t$t.parquet"; then
        echo "FAIL: the file of $t threads differs from one thread's" >&2; exit 1
    fi
done
sha256sum "$workdir"/inlay_t{1,2,4}.parquet | sed "s|$workdir/||"

echo "== DuckDB COPY, threads 1 and 2"
for t in 1 2; do
    node "$here/duckdb_peer.mjs" "$workdir/inlay_t1.parquet" --threads "$t" --repeat "$repeat" \
        --out "$workdir/duckdb_t$t.parquet" > "$workdir/duckdb_t$t.log"
    grep -E "^  run|^seconds" "$workdir/duckdb_t$t.log" | sed "s/^/  threads $t: /"
done
d1=$(result "$workdir/duckdb_t1.log" seconds); d2=$(result "$workdir/duckdb_t2.log" seconds)

echo "== polars writeParquet (zstd 3), POLARS_MAX_THREADS 1 and 2"
for t in 1 2; do
    POLARS_MAX_THREADS=$t node "$here/polars_peer.mjs" "$workdir/inlay_t1.parquet" --repeat "$repeat" \
        --out "$workdir/polars_t$t.parquet" > "$workdir/polars_t$t.log"
    grep -E "^  run|^seconds" "$workdir/polars_t$t.log" | sed "s/^/  threads $t: /"
done
p1=$(result "$workdir/polars_t1.log" seconds); p2=$(result "$workdir/polars_t2.log" seconds)

echo "== summary ($rows rows; medians of $repeat)"
echo "   inlay: generating the rows in the timed section (gen), or appending them from memory (mem),"
echo "   as DuckDB (a table loaded first) and polars (a DataFrame) are timed; peers against both"
awk -v i1="$i1" -v i2="$i2" -v m1="$m1" -v m2="$m2" -v d1="$d1" -v d2="$d2" -v p1="$p1" -v p2="$p2" \
    -v r1="$r1" -v r2="$r2" -v tm="${touch_ms_per_mib:-0}" -v mm="${mapped_ms_per_mib:--1}" 'BEGIN {
    printf "inlay gen  1 thread  %.3f s   2 threads %.3f s   speed-up %.2fx\n", i1, i2, i1 / i2
    if (tm > 0)
        printf "           peak RSS %.1f / %.1f MiB: first touch of it ~%.3f / %.3f s at %.2f ms per MiB\n", r1 / 1024, r2 / 1024, r1 / 1024 * tm / 1000, r2 / 1024 * tm / 1000, tm
    if (tm > 0 && mm > 0)
        printf "           (~%.3f / %.3f s at %.2f ms per MiB where it is mapped first, as the library does its large buffers)\n", r1 / 1024 * mm / 1000, r2 / 1024 * mm / 1000, mm
    printf "inlay mem  1 thread  %.3f s   2 threads %.3f s   speed-up %.2fx\n", m1, m2, m1 / m2
    printf "duckdb     1 thread  %.3f s   2 threads %.3f s   inlay gen is %.2fx / %.2fx faster, mem %.2fx / %.2fx\n", d1, d2, d1 / i1, d2 / i2, d1 / m1, d2 / m2
    printf "polars     1 thread  %.3f s   2 threads %.3f s   inlay gen is %.2fx / %.2fx faster, mem %.2fx / %.2fx\n", p1, p2, p1 / i1, p2 / i2, p1 / m1, p2 / m2
    printf "RESULT inlay_t1=%.6f inlay_t2=%.6f speedup=%.3f inlay_mem_t1=%.6f inlay_mem_t2=%.6f speedup_mem=%.3f duckdb_t1=%.6f duckdb_t2=%.6f polars_t1=%.6f polars_t2=%.6f vs_duckdb_t2=%.3f vs_polars_t2=%.3f rss_t1_kb=%d rss_t2_kb=%d first_touch_ms_per_mib=%.4f\n", i1, i2, i1 / i2, m1, m2, m1 / m2, d1, d2, p1, p2, d2 / i2, p2 / i2, r1, r2, tm
}'
