#!/usr/bin/env bash
# run.sh — bench_nested and its DuckDB peer, on the same data.
#
#   bench/nested/run.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep]
#
# 1. bench_nested writes N rows of nested fields (list, struct, map) K times
#    through inlay_writer_append_array (median reported), and the ~400
#    sampled rows for the check;
# 2. bench_nested writes them once more with the malloc interposer
#    preloaded: the malloc family calls of the steady state, and those that
#    bypass the library allocator;
# 3. nested_peer.mjs checks the file of step 1 with DuckDB against the
#    generator's aggregates and sampled rows, loads it into a table and times
#    COPY ... (FORMAT parquet, COMPRESSION zstd) K times with threads=1 and 2;
# 4. lua_nested.lua writes the same kind of table from Lua tables (run by
#    inlay-probe, the inlay command with the inlay.probe module);
# 5. a summary with the ratios and the allocations per row.
# The exit status is 1 when the check finds a difference, the library leaks,
# or the steady state allocates per row.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=1000000
repeat=3
workdir=
keep=0

usage() {
    sed -n '3,4p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR    the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N       rows (default 1000000)"
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

bin=$build/bench/bench_nested
preload=$build/bench/libbench_malloc_count.so
if [ ! -x "$bin" ]; then
    echo "nested/run.sh: no $bin (build with -DINLAY_BENCH=ON, or pass --build DIR)" >&2
    exit 2
fi
if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/inlay-nested.XXXXXX")
    [ "$keep" = 1 ] || trap 'rm -rf "$workdir"' EXIT
else
    mkdir -p "$workdir"
fi

# value KEY FILE: the value of KEY in FILE's RESULT line
value() {
    sed -n 's/^RESULT //p' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "== machine: ${cpu:-unknown cpu}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), node $(node --version 2>/dev/null || echo missing)"
echo
echo "== inlay: $rows rows, $repeat runs"
status=0
"$bin" --rows "$rows" --repeat "$repeat" --out "$workdir/inlay.parquet" \
    --sample "$workdir/sample.jsonl" | tee "$workdir/inlay.txt" || status=1
[ -s "$workdir/inlay.parquet" ] || { echo "nested/run.sh: bench_nested wrote no file" >&2; exit 1; }
echo
i=$workdir/inlay.txt
m=$workdir/inlay_mc.txt
if [ -f "$preload" ]; then
    echo "== inlay: $rows rows, 1 run with the malloc interposer"
    LD_PRELOAD=$preload "$bin" --rows "$rows" --repeat 1 --out "$workdir/inlay_mc.parquet" \
        | tee "$m" || status=1
    rm -f "$workdir/inlay_mc.parquet"
else
    echo "== no $preload: malloc calls not counted"
    : > "$m"
fi
echo
echo "== duckdb: check of inlay's file, then COPY of the same $rows rows, threads=1 and 2, $repeat runs"
peer_ok=1
node "$here/nested_peer.mjs" "$workdir/inlay.parquet" --repeat "$repeat" --threads 1,2 \
    --expect "$(grep '^RESULT ' "$i")" --sample "$workdir/sample.jsonl" \
    --out "$workdir/duckdb.parquet" | tee "$workdir/duckdb.txt" || peer_ok=0
echo

# The same kind of table from Lua tables (bench/nested/lua_nested.lua: the
# shapes and sizes above, without the nulls), for the row of the summary.
# inlay-probe, not inlay: the script counts allocations through inlay.probe.
echo "== inlay from Lua tables: $rows rows (bench/nested/lua_nested.lua)"
lua_out=$workdir/lua.txt
if [ -x "$build/inlay-probe" ]; then
    "$build/inlay-probe" run "$here/lua_nested.lua" --rows "$rows" --out "$workdir/lua.parquet" | tee "$lua_out" ||
        : >"$lua_out"
else
    echo "no $build/inlay-probe: skipped"
    : >"$lua_out"
fi
echo

d=$workdir/duckdb.txt
it=$(value seconds "$i")
is=$(value out_bytes "$i")
ilv=$(value leaf_values "$i")
irg=$(value row_groups "$i")
irss=$(value maxrss_first_kb "$i")
irss0=$(value maxrss_before_kb "$i")
ilive=$(value live_after "$i")
srows=$(value steady_rows "$i")
slib=$(value steady_lib_max "$i")
smc=$(value steady_malloc "$m")
bypass=$(value bypass "$m")

echo "== summary: $rows rows, median of $repeat"
awk -v n="$rows" -v t="$it" -v s="$is" -v lv="$ilv" 'BEGIN {
    printf "%-24s %9s %9s %12s %14s %14s %7s\n", "", "seconds", "ns/row", "rows/s", "leaf values/s", "output bytes", "B/row"
    printf "%-24s %9.3f %9.1f %12.0f %14.0f %14d %7.2f\n", "inlay append_array", t, t*1e9/n, n/t, lv/t, s, s/n
}'
verify=$(value verify "$d")
if [ -n "$(value seconds_1 "$d")" ]; then
    d1=$(value seconds_1 "$d")
    d2=$(value seconds_2 "$d")
    s1=$(value out_bytes_1 "$d")
    s2=$(value out_bytes_2 "$d")
    lt=$(awk '/^tables / { print $2; exit }' "$workdir/lua.txt")
    lf=$(awk '/^flat tags / { print $3; exit }' "$workdir/lua.txt")
    awk -v n="$rows" -v t="$it" -v s="$is" -v lv="$ilv" -v d1="$d1" -v d2="$d2" -v s1="$s1" -v s2="$s2" \
        -v lt="${lt:-0}" -v lf="${lf:-0}" 'BEGIN {
        printf "%-24s %9.3f %9.1f %12.0f %14.0f %14d %7.2f\n", "duckdb COPY, 1 thread", d1, d1*1e9/n, n/d1, lv/d1, s1, s1/n
        printf "%-24s %9.3f %9.1f %12.0f %14.0f %14d %7.2f\n", "duckdb COPY, 2 threads", d2, d2*1e9/n, n/d2, lv/d2, s2, s2/n
        if (lt > 0) printf "%-24s %9.3f %9.1f %12.0f %14s %14s %7s\n", "inlay from Lua tables", lt, lt*1e9/n, n/lt, "-", "-", "-"
        if (lf > 0) printf "%-24s %9.3f %9.1f %12.0f %14s %14s %7s\n", "inlay Lua, flat tags", lf, lf*1e9/n, n/lf, "-", "-", "-"
        printf "time ratio duckdb threads=1 / inlay  %.2f\n", d1/t
        if (lt > 0) printf "time ratio duckdb threads=1 / Lua    %.2f  (Lua tables, no nulls)\n", d1/lt
        printf "time ratio duckdb threads=2 / inlay  %.2f\n", d2/t
        printf "size ratio inlay / duckdb            %.3f\n", s/s1
    }'
else
    echo "duckdb peer failed: no ratios"
fi
echo "leaf values: non-null values summed over the 7 leaf columns (id, tags element, pos.x/y/z, attrs key and value)"
awk -v r="$srows" -v a="$slib" -v rg="$irg" 'BEGIN {
    if (r == "" || r == 0) { print "allocations per row      no steady state (fewer than 4 batches)"; exit }
    printf "allocations per row      %.6f in the steady state (%d allocator calls in %d rows from the 4th batch on, most over the runs; %d row groups in the file)\n", a/r, a, r, rg
}'
case $smc in
    na|"") echo "malloc calls per row     not measured (no $preload)" ;;
    *) awk -v r="$srows" -v c="$smc" -v b="$bypass" 'BEGIN {
           if (r == "" || r == 0) exit
           printf "malloc calls per row     %.6f in the steady state (%d calls, interposer run); %d calls of the timed section bypassed the library allocator\n", c/r, c, b
       }' ;;
esac
awk -v a="$irss0" -v b="$irss" 'BEGIN {
    printf "peak RSS inlay           %.1f MiB after the first run, %.1f MiB of it before (the generated data): +%.1f MiB\n", b/1024, a/1024, (b-a)/1024
}'
echo "check                    ${verify:-not run}: DuckDB read inlay's file against the generator ($(value checks "$d") checks, $(value mismatches "$d") mismatches)"
if [ -n "$srows" ] && [ "$srows" != 0 ]; then
    pass=$(awk -v r="$srows" -v a="$slib" -v c="${smc:-na}" 'BEGIN {
        ok = a * 1000 < r
        if (c != "na" && c != "") ok = ok && c * 1000 < r
        print ok ? "PASS" : "FAIL"
    }')
    echo "acceptance               $pass: 0 allocations per row in the steady state (fewer than 1 per 1,000 rows: none per row or value, a few per row group)"
    [ "$pass" = PASS ] || status=1
fi
[ "$ilive" = 0 ] || { echo "inlay leaked $ilive bytes"; status=1; }
[ "$keep" = 1 ] && echo "files kept in $workdir"
[ "$peer_ok" = 1 ] && [ "$verify" = ok ] || status=1
exit $status
