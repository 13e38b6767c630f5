#!/usr/bin/env bash
# run.sh — bench_write_table and its DuckDB peer, on the same data.
#
#   bench/write_table/run.sh [--build DIR] [--rows N] [--repeat K] [--workdir DIR] [--keep]
#                            [--codecs all|LIST] [--duckdb-repeat K] [--sweep CODEC:LO..HI]
#                            [--skipping]
#
# 1. bench_write_table writes N rows K times (median reported);
# 2. bench_write_table writes 2N rows once, with the malloc interposer
#    preloaded: its peak RSS beside the N run's shows that memory is bounded
#    by the row group, not the file, and the interposer counts allocations
#    that bypass the library allocator;
# 3. duckdb_peer.mjs loads the file inlay wrote in step 1 into DuckDB and
#    times COPY ... (FORMAT parquet, COMPRESSION zstd) K times, threads=1
#    (with --codecs: each codec of the list in turn, the file loaded once);
# 4. with --codecs: bench_write_table with each codec of the list at its
#    default level, K times (ZSTD is step 1's run);
# 5. with --sweep: bench_write_table with CODEC at each level LO..HI, K times;
# 6. with --skipping: bench_write_table --skipping, K times each way: the
#    defaults (statistics + page index), both off, the defaults + bloom
#    filters on category and id;
# 7. a summary with the ratios, and with --codecs a table per codec of
#    inlay/duckdb for time and size, PASS/FAIL against the targets; with
#    --skipping, each way's time and size against "off".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=3
duckdb_repeat=
workdir=
keep=0
codecs=
sweep=
skipping=0
# the targets of the codec table: inlay's time at most this fraction of
# DuckDB's, inlay's file at most this fraction of DuckDB's
time_target=0.5
size_target=1.0
all_codecs=uncompressed,snappy,gzip,brotli,zstd,lz4_raw

usage() {
    sed -n '3,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR          the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N             rows (default 10000000); a second run writes 2N"
    echo "  --repeat K           runs to take the median of (default 3)"
    echo "  --workdir DIR        where the files go (default: a new temporary directory)"
    echo "  --keep               keep the files"
    echo "  --codecs LIST        all ($all_codecs), or a comma list of them:"
    echo "                       each at its default level, inlay against DuckDB's COPY with the same"
    echo "                       codec and one thread; targets: time ratio <= $time_target, size ratio <= $size_target"
    echo "  --duckdb-repeat K    runs of each DuckDB COPY (default: --repeat)"
    echo "  --sweep CODEC:LO..HI inlay with CODEC at each level LO..HI (sizes and times, against"
    echo "                       DuckDB's size for CODEC when --codecs has it)"
    echo "  --skipping           what statistics, the page index and bloom filters cost: the rows"
    echo "                       written with the defaults, with both off, and with bloom filters"
    echo "                       on category and id (bench_write_table --skipping)"
}

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --duckdb-repeat) duckdb_repeat=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --codecs) codecs=$2; shift 2 ;;
        --sweep) sweep=$2; shift 2 ;;
        --skipping) skipping=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
duckdb_repeat=${duckdb_repeat:-$repeat}

# the codec list, lower case, canonical names, no repeats
if [ -n "$codecs" ]; then
    [ "$codecs" = all ] && codecs=$all_codecs
    list=
    for c in ${codecs//,/ }; do
        c=$(echo "$c" | tr 'A-Z' 'a-z')
        case $c in none) c=uncompressed ;; lz4) c=lz4_raw ;; esac
        case ",$all_codecs," in *",$c,"*) ;; *) echo "write_table/run.sh: --codecs: unknown codec '$c' ($all_codecs)" >&2; exit 2 ;; esac
        case ",$list," in *",$c,"*) ;; *) list=${list:+$list,}$c ;; esac
    done
    codecs=$list
fi
sweep_codec= sweep_lo= sweep_hi=
if [ -n "$sweep" ]; then
    if [[ ! $sweep =~ ^([a-zA-Z0-9_]+):(-?[0-9]+)\.\.(-?[0-9]+)$ ]]; then
        echo "write_table/run.sh: --sweep wants CODEC:LO..HI (brotli:4..11), not '$sweep'" >&2
        exit 2
    fi
    sweep_codec=$(echo "${BASH_REMATCH[1]}" | tr 'A-Z' 'a-z')
    sweep_lo=${BASH_REMATCH[2]}
    sweep_hi=${BASH_REMATCH[3]}
fi

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

# value KEY FILE [CODEC]: the value of KEY in FILE's RESULT line (the one
# with codec=CODEC, any case, when CODEC is given)
value() {
    local line
    if [ $# -ge 3 ]; then
        line=$(grep '^RESULT ' "$2" | grep -i " codec=$3\( \|\$\)" | head -n 1 || true)
    else
        line=$(grep '^RESULT ' "$2" | head -n 1 || true)
    fi
    echo "${line#RESULT }" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
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
peer_codecs=zstd
if [ -n "$codecs" ]; then
    # zstd first: the summary below needs it whatever the list
    peer_codecs=zstd
    for c in ${codecs//,/ }; do [ "$c" = zstd ] || peer_codecs=$peer_codecs,$c; done
fi
echo "== duckdb: COPY of the same $rows rows, $duckdb_repeat runs, COMPRESSION ${peer_codecs//,/, }"
peer_ok=1
node "$here/duckdb_peer.mjs" "$workdir/inlay.parquet" --repeat "$duckdb_repeat" --codec "$peer_codecs" \
    --out "$workdir/duckdb.parquet" | tee "$workdir/duckdb.txt" || peer_ok=0
rm -f "$workdir"/duckdb*.parquet
echo

# inlay with each codec but zstd (step 1) at its default level
if [ -n "$codecs" ]; then
    for c in ${codecs//,/ }; do
        [ "$c" = zstd ] && continue
        echo "== inlay: $rows rows, $repeat runs, --codec $c"
        "$bin" --rows "$rows" --repeat "$repeat" --codec "$c" --out "$workdir/inlay_$c.parquet" | tee "$workdir/inlay_$c.txt"
        rm -f "$workdir/inlay_$c.parquet"
        echo
    done
fi
if [ -n "$sweep" ]; then
    for ((l = sweep_lo; l <= sweep_hi; l++)); do
        echo "== inlay: $rows rows, $repeat runs, --codec $sweep_codec:$l"
        "$bin" --rows "$rows" --repeat "$repeat" --codec "$sweep_codec:$l" --out "$workdir/sweep_$l.parquet" \
            | tee "$workdir/sweep_$l.txt"
        rm -f "$workdir/sweep_$l.parquet"
        echo
    done
fi

if [ "$skipping" = 1 ]; then
    echo "== inlay: $rows rows, $repeat runs of each way, --skipping"
    "$bin" --rows "$rows" --repeat "$repeat" --skipping --out "$workdir/skipping.parquet" | tee "$workdir/skipping.txt"
    rm -f "$workdir/skipping.parquet"
    echo
fi

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
    dt=$(value seconds "$d" zstd)
    ds=$(value out_bytes "$d" zstd)
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

# the codec table: inlay (median of K, generation included) against
# DuckDB's COPY (median, one thread), each codec at its default level
failed=0
if [ -n "$codecs" ]; then
    echo
    echo "== codecs: $rows rows, each at its default level; inlay median of $repeat (generation included;"
    echo "   'less gen' subtracts it), DuckDB COPY median of $duckdb_repeat, threads=1;"
    echo "   targets: time inlay/duckdb <= $time_target, size inlay/duckdb <= $size_target"
    printf "%-13s %5s %9s %9s %9s %7s %9s %13s %13s %7s %5s %s\n" "codec" "level" "inlay s" "less gen" "duckdb s" \
        "time" "time (-g)" "inlay bytes" "duckdb bytes" "size" "" "inlay chunks stored UNCOMPRESSED"
    for c in ${codecs//,/ }; do
        f=$workdir/inlay_$c.txt
        [ "$c" = zstd ] && f=$i
        ct=$(value seconds "$f")
        cg=$(value gen_seconds "$f")
        cs=$(value out_bytes "$f")
        cl=$(value level "$f")
        # the columns with chunks stored UNCOMPRESSED (min_compression_gain), as name:count
        raw=$(sed -n 's/^column \([^ ]*\) .* chunks, \([0-9]*\) of them stored UNCOMPRESSED.*/\1:\2/p' "$f" \
              | grep -v ':0$' | tr '\n' ' ' | sed 's/ $//' || true)
        if [ "$peer_ok" = 1 ] && [ -n "$(value seconds "$d" "$c")" ]; then
            dt=$(value seconds "$d" "$c")
            ds=$(value out_bytes "$d" "$c")
        else
            dt= ds=
        fi
        if [ -z "$dt" ] || [ -z "$ct" ]; then
            printf "%-13s %5s %9s %9s %9s %7s %9s %13s %13s %7s %5s %s\n" "$c" "${cl:-?}" "${ct:-?}" "" "${dt:-?}" "" "" \
                "${cs:-?}" "${ds:-?}" "" "FAIL" "(a run failed)"
            failed=1
            continue
        fi
        verdict=$(awk -v t="$ct" -v dt="$dt" -v s="$cs" -v ds="$ds" -v tt="$time_target" -v st="$size_target" \
            'BEGIN { print (t/dt <= tt && s/ds <= st) ? "PASS" : "FAIL" }')
        [ "$verdict" = PASS ] || failed=1
        awk -v c="$c" -v l="$cl" -v t="$ct" -v g="$cg" -v dt="$dt" -v s="$cs" -v ds="$ds" -v v="$verdict" \
            -v tt="$time_target" -v st="$size_target" -v raw="${raw:-none}" 'BEGIN {
            why = ""
            if (t/dt > tt) why = why " time"
            if (s/ds > st) why = why " size"
            printf "%-13s %5s %9.3f %9.3f %9.3f %7.3f %9.3f %13d %13d %7.3f %5s %s%s\n", c, l, t, t-g, dt, t/dt, (t-g)/dt,
                s, ds, s/ds, v, raw, why == "" ? "" : "  (over target:" why ")"
        }'
    done
fi
if [ -n "$sweep" ]; then
    echo
    ds=
    [ "$peer_ok" = 1 ] && ds=$(value out_bytes "$d" "$sweep_codec")
    dt=
    [ "$peer_ok" = 1 ] && dt=$(value seconds "$d" "$sweep_codec")
    against=
    [ -n "$ds" ] && against=", against the DuckDB COPY with $sweep_codec ($ds bytes, $dt s)"
    echo "== $sweep_codec levels $sweep_lo..$sweep_hi: $rows rows, inlay median of $repeat$against"
    printf "%-6s %9s %9s %13s %7s %7s %s\n" "level" "seconds" "less gen" "bytes" "B/row" "size" "time"
    echo "       (size and time: inlay / duckdb)"
    for ((l = sweep_lo; l <= sweep_hi; l++)); do
        f=$workdir/sweep_$l.txt
        awk -v l="$l" -v n="$rows" -v t="$(value seconds "$f")" -v g="$(value gen_seconds "$f")" -v s="$(value out_bytes "$f")" \
            -v ds="${ds:-0}" -v dt="${dt:-0}" 'BEGIN {
            rs = (ds > 0) ? sprintf("%.3f", s/ds) : "-"
            rt = (dt > 0) ? sprintf("%.3f", t/dt) : "-"
            printf "%-6s %9.3f %9.3f %13d %7.2f %7s %s\n", l, t, t-g, s, s/n, rs, rt
        }'
    done
fi
if [ "$skipping" = 1 ]; then
    echo
    f=$workdir/skipping.txt
    echo "== skipping: $rows rows, median of $repeat each; ratios to 'off' (no statistics, no page index)"
    printf "%-8s %9s %14s %12s %12s %9s %9s\n" "way" "seconds" "file bytes" "page index" "bloom" "time" "size"
    for way in default off bloom; do
        awk -v w="$way" -v t="$(value seconds_$way "$f")" -v s="$(value bytes_$way "$f")" \
            -v x="$(value index_$way "$f")" -v b="$(value bloom_$way "$f")" \
            -v ot="$(value seconds_off "$f")" -v os="$(value bytes_off "$f")" 'BEGIN {
            printf "%-8s %9.3f %14d %12d %12d %9.3f %9.4f\n", w, t, s, x, b, t/ot, s/os
        }'
    done
fi
[ "$keep" = 1 ] && echo "files kept in $workdir"
[ "$peer_ok" = 1 ] && [ "$failed" = 0 ]
