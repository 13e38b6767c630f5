#!/usr/bin/env bash
# run.sh — the reader (bench_read) and inlay convert Parquet to Parquet
# against DuckDB, on the same file.
#
#   bench/read/run.sh [--build DIR] [--rows N] [--repeat K] [--codec C] [--workdir DIR] [--keep]
#
# 1. bench_write_table writes the N-row five-column table (id, ts,
#    category, value, flag; zstd, the library defaults) once: the input;
# 2. each K times, the median reported:
#    a. bench_read FILE: all five columns, every value touched;
#    b. duckdb_peer.mjs FILE: SELECT sum(hash(col))... of the five, threads=1;
#    c. bench_read FILE --columns id,category;
#    d. duckdb_peer.mjs FILE --columns id,category;
#    e. inlay convert FILE OUT --compression C --no-sync --quiet: a Parquet
#       rewrite with another codec (C: uncompressed by default);
#    f. duckdb_peer.mjs FILE --copy OUT --codec C: COPY (FROM
#       read_parquet(FILE)) TO OUT (FORMAT parquet, COMPRESSION C), threads=1;
# 3. the check: bench_read's CHECK lines (row count, and per column its
#    nulls and the sum of its integers, floats, true booleans or string
#    bytes) against DuckDB's; and both rewritten files read back by DuckDB
#    against the input;
# 4. a summary with the ratios duckdb/inlay and the acceptance lines: read
#    all five columns at least as fast as DuckDB (>= 1.0), rewrite at least
#    twice as fast as DuckDB's COPY (>= 2.0).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${INLAY_BUILD:-$here/../../build}
rows=10000000
repeat=3
codec=uncompressed
workdir=
keep=0
two=id,category

usage() {
    sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    echo "  --build DIR    the CMake build directory (default \$INLAY_BUILD or ./build)"
    echo "  --rows N       rows of the file (default 10000000)"
    echo "  --repeat K     runs to take the median of (default 3)"
    echo "  --codec C      the rewrite's codec: uncompressed (default) or zstd"
    echo "  --workdir DIR  where the files go (default: a new temporary directory, removed at exit)"
    echo "  --keep         keep the files"
}

while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --rows) rows=$2; shift 2 ;;
        --repeat) repeat=$2; shift 2 ;;
        --codec) codec=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
case $rows$repeat in *[!0-9]*|"") usage >&2; exit 2 ;; esac
if [ "$rows" -lt 1 ] || [ "$repeat" -lt 1 ]; then
    echo "read/run.sh: --rows and --repeat must be at least 1" >&2
    exit 2
fi
case $codec in uncompressed|zstd) ;; *) echo "read/run.sh: --codec uncompressed or zstd" >&2; exit 2 ;; esac

reader=$build/bench/bench_read
writer=$build/bench/bench_write_table
inlay=$build/inlay
preload=$build/bench/libbench_malloc_count.so
for b in "$reader" "$writer"; do
    if [ ! -x "$b" ]; then
        echo "read/run.sh: no $b (build the bench_read and bench_write_table targets, or pass --build DIR)" >&2
        exit 2
    fi
done
if [ -z "$workdir" ]; then
    workdir=$(mktemp -d "${TMPDIR:-/tmp}/inlay-bench-read.XXXXXX")
    [ "$keep" = 1 ] || trap 'rm -rf "$workdir"' EXIT
else
    mkdir -p "$workdir"
fi
file=$workdir/in.parquet

# value KEY FILE: the value of KEY in FILE's RESULT line
value() {
    sed -n 's/^RESULT //p' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -n 1
}

# median of the numbers on stdin
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# checks_agree A B: the CHECK lines of files A and B agree on every key both
# have (rows at least); floating sums to a relative 1e-9. Prints what
# differs, and how many keys were compared.
checks_agree() {
    awk -v a="$(grep '^CHECK ' "$1" | head -n 1)" -v b="$(grep '^CHECK ' "$2" | head -n 1)" 'BEGIN {
        na = split(a, x, " "); nb = split(b, y, " ")
        for (i = 2; i <= nb; i++) { p = index(y[i], "="); B[substr(y[i], 1, p - 1)] = substr(y[i], p + 1) }
        bad = 0; n = 0
        for (i = 2; i <= na; i++) {
            p = index(x[i], "="); k = substr(x[i], 1, p - 1); v = substr(x[i], p + 1)
            if (!(k in B)) continue
            n++
            if (k ~ /:fsum$/) {
                d = v - B[k]; if (d < 0) d = -d
                m = v < 0 ? -v : v
                if (d > 1e-9 * m + 1e-9) { bad++; printf "   differs: %s %s against %s\n", k, v, B[k] }
            } else if ((v "") != (B[k] "")) { bad++; printf "   differs: %s %s against %s\n", k, v, B[k] }   # as text: 64-bit sums
        }
        if (!("rows" in B) || n == 0) { bad++; print "   no rows to compare" }
        printf "   %d keys compared, %d differ\n", n, bad
        exit bad ? 1 : 0
    }'
}

# Peak RSS: GNU time's %M (KiB)
measured() {
    local rssfile=$1
    shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$rssfile" "$@"
    else
        "$@"
        echo 0 >"$rssfile"
    fi
}

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
echo "== machine: ${cpu:-unknown cpu}, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null), node $(node --version 2>/dev/null || echo missing)"
[ -x "$inlay" ] && echo "== $("$inlay" -v 2>/dev/null | head -n 1)"
echo

# ---- 1. the file ----------------------------------------------------------------
echo "== the file: bench_write_table --rows $rows --repeat 1 (zstd, library defaults)"
"$writer" --rows "$rows" --repeat 1 --out "$file" >"$workdir/write.txt"
grep -E '^(output|seconds) ' "$workdir/write.txt" | sed 's/^/   /'
file_bytes=$(stat -c %s "$file")
echo

failed=0

# ---- 2. the runs ------------------------------------------------------------------
# reader NAME LABEL [ARGS...]: bench_read, with the interposer when there is one
reader() {
    local name=$1 label=$2
    shift 2
    echo "== $label, $repeat runs"
    local pre=()
    [ -f "$preload" ] && pre=(env "LD_PRELOAD=$preload")
    if "${pre[@]}" "$reader" "$file" --repeat "$repeat" "$@" >"$workdir/$name.txt" 2>"$workdir/$name.err"; then
        sed 's/^/   /' "$workdir/$name.txt" | grep -v '^   \(RESULT\|CHECK\)'
        grep '^RESULT ' "$workdir/$name.txt" | sed 's/^/   /'
    else
        echo "   FAILED"
        sed -n '1,6p' "$workdir/$name.err" "$workdir/$name.txt" | sed 's/^/   | /'
        echo "RESULT ok=0" >"$workdir/$name.txt"
        failed=1
    fi
    echo
}

# peer NAME LABEL [ARGS...]: duckdb_peer.mjs in one node process
peer() {
    local name=$1 label=$2
    shift 2
    echo "== $label, $repeat runs (one node process)"
    if measured "$workdir/$name.rss" node "$here/duckdb_peer.mjs" "$file" --repeat "$repeat" --threads 1 "$@" \
        >"$workdir/$name.txt" 2>"$workdir/$name.err"; then
        sed 's/^/   /' "$workdir/$name.txt" | grep -v '^   \(RESULT\|CHECK\)'
        # the node process's peak RSS (node and DuckDB included) into the RESULT line
        sed -i "s/^RESULT .*/& maxrss_kb=$(tail -n 1 "$workdir/$name.rss")/" "$workdir/$name.txt"
    else
        echo "   FAILED"
        sed -n '1,6p' "$workdir/$name.err" | sed 's/^/   | /'
        echo "RESULT ok=0" >"$workdir/$name.txt"
        failed=1
    fi
    echo
}

# rewrite: inlay convert FILE OUT K times, timed by the shell
rewrite() {
    local name=convert out=$workdir/convert.parquet
    local cmd=("$inlay" convert "$file" "$out" --compression "$codec" --no-sync --quiet)
    echo "== (e) inlay convert IN.parquet OUT.parquet --compression $codec --no-sync --quiet, $repeat runs"
    if [ ! -x "$inlay" ]; then
        echo "   FAILED: no $inlay (build the inlay target)"
        printf 'RESULT ok=0\nRESULT_ERROR no %s\n' "$inlay" >"$workdir/$name.txt"
        failed=1
        echo
        return 0
    fi
    local times=() rss=0 k t0 t1 r
    for k in $(seq 1 "$repeat"); do
        rm -f "$out"
        t0=$EPOCHREALTIME
        if ! measured "$workdir/$name.rss" "${cmd[@]}" >"$workdir/$name.out" 2>"$workdir/$name.err"; then
            echo "   run $k/$repeat: FAILED (exit status)"
            sed -n '1,6p' "$workdir/$name.err" | grep -v 'Command exited' | sed 's/^/   | /'
            echo "RESULT ok=0" >"$workdir/$name.txt"
            sed -n '1p' "$workdir/$name.err" | sed 's/^/RESULT_ERROR /' >>"$workdir/$name.txt"
            failed=1
            echo
            return 0
        fi
        t1=$EPOCHREALTIME
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')")
        r=$(tail -n 1 "$workdir/$name.rss")
        [ "$r" -gt "$rss" ] && rss=$r
        echo "   run $k/$repeat: ${times[-1]} s, peak RSS $(awk -v r="$r" 'BEGIN { printf "%.1f", r / 1024 }') MiB"
    done
    local t tmin
    t=$(printf '%s\n' "${times[@]}" | median)
    tmin=$(printf '%s\n' "${times[@]}" | sort -g | head -n 1)
    echo "RESULT ok=1 seconds=$t min_seconds=$tmin out_bytes=$(stat -c %s "$out") maxrss_kb=$rss" | tee "$workdir/$name.txt" | sed 's/^/   /'
    echo
}

reader read5 "(a) bench_read, all five columns"
peer duck5 "(b) duckdb sum(hash(...)) of all five columns, threads=1"
reader read2 "(c) bench_read --columns $two" --columns "$two"
peer duck2 "(d) duckdb sum(hash(...)) of $two, threads=1" --columns "$two"
rewrite
peer duckcopy "(f) duckdb COPY (FROM read_parquet(IN)) TO OUT (COMPRESSION $codec), threads=1" \
    --copy "$workdir/duckdb.parquet" --codec "$codec"

# ---- 3. the check -------------------------------------------------------------------
echo "== check: bench_read's CHECK against DuckDB's, and the rewritten files read back by DuckDB"
check=ok
cmp_checks() {   # cmp_checks LABEL A B
    if [ "$(value ok "$2")" = 0 ] || [ "$(value ok "$3")" = 0 ] || ! grep -q '^CHECK ' "$2" || ! grep -q '^CHECK ' "$3"; then
        echo "   $1: not compared (a run failed)"
        check=fail
        return
    fi
    echo "   $1:"
    checks_agree "$2" "$3" || check=fail
}
cmp_checks "five columns: bench_read / duckdb" "$workdir/read5.txt" "$workdir/duck5.txt"
cmp_checks "$two: bench_read / duckdb" "$workdir/read2.txt" "$workdir/duck2.txt"
for n in convert:convert duckdb:duckcopy; do
    run=${n#*:}
    n=${n%%:*}
    out=$workdir/$n.parquet
    if [ -f "$out" ] && [ "$(value ok "$workdir/$run.txt")" != 0 ]; then
        if node "$here/duckdb_peer.mjs" "$out" --repeat 1 >"$workdir/back_$n.txt" 2>"$workdir/back_$n.err"; then
            echo "   $n's rewrite read back by duckdb / the input read by duckdb:"
            checks_agree "$workdir/back_$n.txt" "$workdir/duck5.txt" || check=fail
        else
            echo "   $n's rewrite: duckdb cannot read it: $(head -n 1 "$workdir/back_$n.err")"
            check=fail
        fi
    fi
done
echo "check: $check"
[ "$check" = ok ] || failed=1
echo

# ---- 4. the summary -------------------------------------------------------------------
echo "== summary: $rows rows, $file_bytes bytes of Parquet (zstd), median of $repeat (MB = 10^6 bytes, MiB = 2^20)"
printf '%-46s %9s %9s %9s %12s %10s %10s\n' "" seconds "ns/row" "ns/value" "rows/s" "file MB/s" "peak MiB"
line() {   # line LABEL NAME VALUES_PER_ROW
    local f=$workdir/$2.txt rss
    if [ "$(value ok "$f")" = 0 ] || [ -z "$(value seconds "$f")" ]; then
        printf '%-46s %s\n' "$1" "FAILED $(sed -n 's/^RESULT_ERROR //p' "$f" | cut -c1-100)"
        return
    fi
    rss=$(value maxrss_kb "$f")
    awk -v l="$1" -v t="$(value seconds "$f")" -v b="$file_bytes" -v n="$rows" -v c="$3" -v r="${rss:-}" 'BEGIN {
        printf "%-46s %9.3f %9.1f %9.2f %12.0f %10.1f %10s\n", l, t, t * 1e9 / n, t * 1e9 / (n * c), n / t, b / 1e6 / t,
            (r == "" ? "-" : sprintf("%.1f", r / 1024))
    }'
}
line "(a) bench_read, 5 columns" read5 5
line "(b) duckdb, 5 columns" duck5 5
line "(c) bench_read, $two" read2 2
line "(d) duckdb, $two" duck2 2
line "(e) inlay convert --compression $codec" convert 5
line "(f) duckdb COPY, $codec" duckcopy 5
echo "(the peak RSS of (b), (d) and (f) is the node process's: node and DuckDB, all K runs)"
if [ "$(value ok "$workdir/read5.txt")" != 0 ]; then
    awk -v t="$(value seconds "$workdir/read5.txt")" -v tt="$(value touch_seconds "$workdir/read5.txt")" \
        -v o="$(value open_seconds "$workdir/read5.txt")" -v n="$rows" 'BEGIN {
        printf "bench_read 5 columns: touching the values %.3f s of it, reader alone %.3f s (%.1f ns/row), open %.4f s\n",
            tt, t - tt, (t - tt) * 1e9 / n, o
    }'
    awk -v a="$(value allocs "$workdir/read5.txt")" -v r="$(value reallocs "$workdir/read5.txt")" \
        -v p="$(value peak_live "$workdir/read5.txt")" -v l="$(value live_after "$workdir/read5.txt")" \
        -v by="$(value bypass "$workdir/read5.txt")" 'BEGIN {
        printf "bench_read 5 columns: %d allocations + %d reallocations per run, peak live %.1f MiB, %d bytes live after free, malloc bypassing the allocator: %s\n",
            a, r, p / 1048576, l, by
    }'
fi
echo
echo "ratios of the medians; in brackets, of the fastest of the $repeat runs"
ratio() {   # ratio DUCK INLAY LABEL [LIMIT]
    local a=$workdir/$1.txt b=$workdir/$2.txt
    if [ "$(value ok "$a")" = 0 ] || [ "$(value ok "$b")" = 0 ] || [ -z "$(value seconds "$a")" ] || [ -z "$(value seconds "$b")" ]; then
        printf '%-52s %s' "$3" "   n/a (a run failed)"
        [ -n "${4:-}" ] && printf '   target >= %s: FAIL (not measured)' "$4"
        printf '\n'
        return
    fi
    local bm
    bm=$(value min_seconds "$b")
    awk -v x="$(value seconds "$a")" -v y="$(value seconds "$b")" -v l="$3" -v lim="${4:-}" \
        -v xm="$(value min_seconds "$a")" -v ym="$bm" 'BEGIN {
        r = x / y
        printf "%-52s %6.2f", l, r
        if (xm != "" && ym != "") printf "  (%4.2f)", xm / ym; else printf "        "
        if (lim != "") printf "   target >= %s: %s", lim, (r >= lim ? "PASS" : "FAIL")
        printf "\n"
    }'
}
ratio duck5 read5 "read 5 columns: duckdb / bench_read" 1.0
ratio duck2 read2 "read $two: duckdb / bench_read"
ratio duckcopy convert "rewrite ($codec): duckdb COPY / inlay convert" 2.0
if [ "$(value ok "$workdir/convert.txt")" != 0 ] && [ -n "$(value out_bytes "$workdir/convert.txt")" ] &&
   [ -n "$(value out_bytes "$workdir/duckcopy.txt")" ]; then
    awk -v a="$(value out_bytes "$workdir/convert.txt")" -v b="$(value out_bytes "$workdir/duckcopy.txt")" 'BEGIN {
        printf "%-52s %6.3f\n", "rewrite size inlay / duckdb", a / b
    }'
fi
grep -q FAIL <(ratio duck5 read5 x 1.0; ratio duckcopy convert x 2.0) && failed=1
echo "check: $check"
[ "$keep" = 1 ] && echo "files kept in $workdir"

res="RESULT rows=$rows file_bytes=$file_bytes repeat=$repeat codec=$codec"
for n in read5 duck5 read2 duck2 convert duckcopy; do
    s=$(value seconds "$workdir/$n.txt")
    res="$res ${n}_s=${s:-fail}"
done
echo "$res check=$check"
[ "$failed" = 0 ]
