#!/usr/bin/env bash
# run.sh — bench_write_table and its DuckDB peer, on the same data.
#
#   bench/write_table/run.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep]
#
# 1. bench_write_table writes N rows K times (median reported);
# 2. bench_write_table writes 2N rows once, with the malloc interposer
#    preloaded: its peak RSS beside the N run's shows that memory is bounded
#    by the row group, not the file, and the interposer counts allocations
#    that bypass the library allocator;
# 3. duckdb_peer.mjs loads the file inlay wrote in step 1 into DuckDB and
#    times COPY ... (FORMAT parquet, COMPRESSION zstd) K times, threads=1;
# 4. a summary with the ratios.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=3
workdir=
keep=0

usage() {
    sed -n '3,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR    the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N       rows (default 10000000); a second run writes 2N"
    echo "  --repeat K     runs to take the median of (default 3)"
    echo "  --workdir DIR  where the files go (default: a new temporary directory)"
    echo "  --keep         keep the files"
}

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

bin=$build/bench/bench_write_table
preload=$build/bench/libbench_malloc_count.so
if [ ! -x "$bin" ]; then
    echo "write_table/run.sh: no $bin (build with -DINLAY_BENCH=ON, or pass --build DIR)" >&2
    exit 2
fi
if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/inlay-bench.XXXXXX")
    [ "$keep" = 1 ] || trap 'rm -rf "$workdir"' EXIT
else
    mkdir -p "$workdir"
fi

# value KEY FILE: the value of KEY in FILE's RESULT line
value() {
    sed -n 's/^RESULT //p' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

rows2=$((rows * 2))
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "== machine: ${cpu:-unknown cpu}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), node $(node --version 2>/dev/null || echo missing)"
echo
echo "== inlay: $rows rows, $repeat runs"
"$bin" --rows "$rows" --repeat "$repeat" --out "$workdir/inlay.parquet" | tee "$workdir/inlay.txt"
echo
echo "== inlay: $rows2 rows, 1 run (peak RSS against the run above)"
if [ -f "$preload" ]; then
    LD_PRELOAD=$preload "$bin" --rows "$rows2" --repeat 1 --out "$workdir/inlay2.parquet" | tee "$workdir/inlay2.txt"
else
    "$bin" --rows "$rows2" --repeat 1 --out "$workdir/inlay2.parquet" | tee "$workdir/inlay2.txt"
fi
rm -f "$workdir/inlay2.parquet"
echo
echo "== duckdb: COPY of the same $rows rows, $repeat runs"
peer_ok=1
node "$here/duckdb_peer.mjs" "$workdir/inlay.parquet" --repeat "$repeat" \
    --out "$workdir/duckdb.parquet" | tee "$workdir/duckdb.txt" || peer_ok=0
echo

i=$workdir/inlay.txt
i2=$workdir/inlay2.txt
d=$workdir/duckdb.txt
it=$(value seconds "$i")
ig=$(value gen_seconds "$i")
is=$(value out_bytes "$i")
ir=$(value maxrss_first_kb "$i")
ir2=$(value maxrss_first_kb "$i2")
il=$(value peak_live "$i")
il2=$(value peak_live "$i2")
bypass=$(value bypass "$i2")

echo "== summary: $rows rows, median of $repeat"
awk -v n="$rows" -v t="$it" -v g="$ig" -v s="$is" 'BEGIN {
    printf "%-22s %9s %9s %12s %14s %7s\n", "", "seconds", "ns/row", "rows/s", "output bytes", "B/row"
    printf "%-22s %9.3f %9.1f %12.0f %14d %7.2f\n", "inlay", t, t*1e9/n, n/t, s, s/n
    printf "%-22s %9.3f %9.1f %12.0f\n", "inlay less generation", t-g, (t-g)*1e9/n, n/(t-g)
}'
if [ "$peer_ok" = 1 ]; then
    dt=$(value seconds "$d")
    ds=$(value out_bytes "$d")
    awk -v n="$rows" -v t="$it" -v g="$ig" -v s="$is" -v dt="$dt" -v ds="$ds" 'BEGIN {
        printf "%-22s %9.3f %9.1f %12.0f %14d %7.2f\n", "duckdb COPY, 1 thread", dt, dt*1e9/n, n/dt, ds, ds/n
        printf "time ratio duckdb/inlay  %.2f  (%.2f against inlay less generation)\n", dt/t, dt/(t-g)
        printf "size ratio inlay/duckdb  %.3f\n", s/ds
    }'
else
    echo "duckdb peer failed: no ratios"
fi
awk -v a="$ir" -v b="$ir2" -v la="$il" -v lb="$il2" -v n="$rows" -v n2="$rows2" 'BEGIN {
    printf "peak RSS inlay, 1st run  %.1f MiB for %d rows, %.1f MiB for %d rows (x%.2f)\n", a/1024, n, b/1024, n2, b/a
    printf "library peak live        %.1f MiB for %d rows, %.1f MiB for %d rows\n", la/1048576, n, lb/1048576, n2
}'
case $bypass in
    na|"") echo "malloc bypassing the library allocator: not measured (no $preload)" ;;
    *) echo "malloc bypassing the library allocator: $bypass calls in the $rows2-row timed section" ;;
esac
[ "$keep" = 1 ] && echo "files kept in $workdir"
[ "$peer_ok" = 1 ]
