/*
 * game_loop — a game logging telemetry to Parquet every frame, as an
 * engine would embed inlay: 60 frames per simulated second, a few hundred
 * events per frame appended with one inlay_writer_append_columns call, a
 * row group ended every N simulated seconds with
 * inlay_writer_flush_row_group, and the writer's allocator counted, so the
 * steady state shows what it costs: after the first row groups (warm-up),
 * no allocation at all per frame.
 *
 *     game_loop [--seconds S] [--flush-every N] [--warmup S] [--out PATH] [--expect PATH]
 *
 * --expect writes every value written, as a Lua table, for a test to
 * compare with what a reader reads back.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include <stdatomic.h>

#include "game_events.h"

/* The host's allocator, counting calls. The writer's worker threads call
 * it too, so the counters are atomic (malloc itself is thread-safe). */
typedef struct counter {
    _Atomic uint64_t calls;   /* allocations and growing reallocations */
    _Atomic size_t live;
} counter;

static void *counting_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    counter *c = ud;
    if (nsize == 0) {
        c->live -= osize;
        free(ptr);
        return NULL;
    }
    if (nsize > osize) c->calls++;
    void *p = realloc(ptr, nsize);
    if (p) c->live += nsize - osize;
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- --expect: every value, as duckdb_read.mjs shows them ---------------- */

static void lua_text(FILE *f, const inlay_bytes *b)
{
    fputc('"', f);
    const unsigned char *p = b->data;
    for (size_t i = 0; i < b->len; i++) {
        if (p[i] == '"' || p[i] == '\\') fprintf(f, "\\%c", p[i]);
        else if (p[i] >= 0x20 && p[i] < 0x7f) fputc(p[i], f);
        else fprintf(f, "\\%03u", p[i]);
    }
    fputc('"', f);
}

/* Column c of frame f, appended to the dump's column file. */
static void dump_frame(FILE *const *out, const game_frame *g)
{
    size_t h = 0, n = 0;
    for (size_t i = 0; i < g->n; i++) {
        fprintf(out[EV_TS], "\"%lldus\",", (long long)g->ts[i]);
        fprintf(out[EV_FRAME], "\"%lld\",", (long long)g->frame[i]);
        fprintf(out[EV_ENTITY], "\"%u\",", (unsigned)g->entity[i]);
        lua_text(out[EV_KIND], &g->kind[i]);
        fputc(',', out[EV_KIND]);
        fprintf(out[EV_X], "%.17g,", (double)g->x[i]);
        fprintf(out[EV_Y], "%.17g,", (double)g->y[i]);
        if (g->hp_def[i]) fprintf(out[EV_HP], "\"%d\",", (int)g->hp[h++]);
        else fputs("nil,", out[EV_HP]);
        if (g->note_def[i]) {
            lua_text(out[EV_NOTE], &g->note[n++]);
            fputc(',', out[EV_NOTE]);
        } else {
            fputs("nil,", out[EV_NOTE]);
        }
    }
}

static int write_expect(const char *path, FILE *const *cols, uint64_t rows, uint64_t row_groups)
{
    static const char *const names[EV_COLUMNS] = { "ts", "frame", "entity", "kind", "x", "y", "hp", "note" };
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "return { rows = %llu, row_groups = %llu, values = {\n", (unsigned long long)rows,
            (unsigned long long)row_groups);
    for (int c = 0; c < EV_COLUMNS; c++) {
        fprintf(f, "  %s = { n = %llu, ", names[c], (unsigned long long)rows);
        rewind(cols[c]);
        char buf[1 << 16];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, cols[c])) > 0) fwrite(buf, 1, k, f);
        fputs("},\n", f);
    }
    fputs("} }\n", f);
    return fclose(f);
}

/* ---- the loop ------------------------------------------------------------------ */

static int usage(void)
{
    fprintf(stderr, "usage: game_loop [--seconds S] [--flush-every N] [--warmup S] [--out PATH] [--expect PATH]\n");
    return 2;
}

int main(int argc, char **argv)
{
    long seconds = 120, flush_every = 10, warmup = 30;
    const char *out = "game_loop.parquet", *expect = NULL;
    for (int i = 1; i < argc; i++) {
        if (!argv[i + 1]) return usage();
        if (!strcmp(argv[i], "--seconds")) seconds = atol(argv[++i]);
        else if (!strcmp(argv[i], "--flush-every")) flush_every = atol(argv[++i]);
        else if (!strcmp(argv[i], "--warmup")) warmup = atol(argv[++i]);
        else if (!strcmp(argv[i], "--out")) out = argv[++i];
        else if (!strcmp(argv[i], "--expect")) expect = argv[++i];
        else return usage();
    }
    if (seconds < 1 || flush_every < 1 || warmup < 0 || warmup >= seconds) return usage();

    counter count = { 0, 0 };
    inlay_options o;
    inlay_options_init(&o);
    o.alloc = (inlay_allocator){ counting_alloc, &count };
    inlay_schema *s = game_events_schema();
    if (!s) return 1;
    inlay_writer *w;
    if (inlay_writer_open_file(&w, out, s, &o) != INLAY_OK) {
        fprintf(stderr, "game_loop: %s\n", w ? inlay_writer_errmsg(w) : "out of memory");
        inlay_writer_free(w);
        return 1;
    }
    inlay_schema_free(s);

    FILE *cols[EV_COLUMNS] = { 0 };
    if (expect)
        for (int c = 0; c < EV_COLUMNS; c++)
            if (!(cols[c] = tmpfile())) return 1;

    static game_frame frame;   /* the host's arrays, reused every frame */
    const int64_t frames = (int64_t)seconds * EV_FPS, warm_frames = (int64_t)warmup * EV_FPS;
    uint64_t events = 0, steady_allocs = 0, worst = 0, warm_allocs = 0;
    double t0 = now_s();
    for (int64_t fr = 0; fr < frames; fr++) {
        game_frame_fill(&frame, fr);
        if (expect) dump_frame(cols, &frame);
        const uint64_t before = count.calls;
        int st = inlay_writer_append_columns(w, frame.batches, EV_COLUMNS);
        if (st == INLAY_OK && (fr + 1) % (flush_every * EV_FPS) == 0) st = inlay_writer_flush_row_group(w);
        if (st != INLAY_OK) {
            fprintf(stderr, "game_loop: frame %lld: %s\n", (long long)fr, inlay_writer_errmsg(w));
            inlay_writer_free(w);
            return 1;
        }
        const uint64_t spent = count.calls - before;
        if (fr < warm_frames) {
            warm_allocs += spent;
        } else {
            steady_allocs += spent;
            if (spent > worst) worst = spent;
        }
        events += frame.n;
    }
    const double loop_s = now_s() - t0;
    inlay_writer_stats st;
    inlay_writer_get_stats(w, &st);
    if (inlay_writer_close(w) != INLAY_OK) {
        fprintf(stderr, "game_loop: %s\n", inlay_writer_errmsg(w));
        inlay_writer_free(w);
        return 1;
    }
    inlay_writer_get_stats(w, &st);
    inlay_writer_free(w);
    if (expect && write_expect(expect, cols, events, st.row_groups)) {
        fprintf(stderr, "game_loop: cannot write %s\n", expect);
        return 1;
    }

    printf("game_loop: %lld frames (%ld s at %d fps), %llu events, %llu row groups (one every %ld s), %llu bytes\n",
           (long long)frames, seconds, EV_FPS, (unsigned long long)events, (unsigned long long)st.row_groups,
           flush_every, (unsigned long long)st.bytes_written);
    printf("time: %.1f ns per event, %.2f us per frame, appends and flushes included\n", loop_s * 1e9 / (double)events,
           loop_s * 1e6 / (double)frames);
    printf("allocations: %llu in the first %ld s (warm-up), then %llu in %lld frames: %.3f per frame, at most %llu "
           "in one frame\n",
           (unsigned long long)warm_allocs, warmup, (unsigned long long)steady_allocs,
           (long long)(frames - warm_frames), (double)steady_allocs / (double)(frames - warm_frames),
           (unsigned long long)worst);
    const size_t live = count.live;
    printf("bytes still held by the library: %zu\n", live);
    return live == 0 ? 0 : 1;
}
