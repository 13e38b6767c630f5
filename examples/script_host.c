/*
 * script_host — a game host that runs a user's Lua transform on each batch
 * of events before writing it, under a memory limit and an instruction
 * budget (inlay_lua.h): the analyst's script (schemas/game_enrich.lua by
 * default) adds a column and drops rows; the host's columns that the
 * script does not touch go to the file without becoming Lua values.
 *
 *     script_host [--seconds S] [--script FILE] [--function NAME] [--out PATH]
 *                 [--max-memory BYTES] [--max-instructions N]
 *
 * A batch whose script fails or runs past its budget is reported and
 * skipped; the game (and the next batch) goes on.
 */
#include <stdlib.h>

#include <inlay_lua.h>

#include "game_events.h"

int main(int argc, char **argv)
{
    long seconds = 30;
    const char *script = "schemas/game_enrich.lua", *function = "enrich", *out = "script_host.parquet";
    size_t max_memory = 64u << 20;
    uint64_t max_instructions = 20000000;
    for (int i = 1; i < argc; i++) {
        if (!argv[i + 1]) goto usage;
        if (!strcmp(argv[i], "--seconds")) seconds = atol(argv[++i]);
        else if (!strcmp(argv[i], "--script")) script = argv[++i];
        else if (!strcmp(argv[i], "--function")) function = argv[++i];
        else if (!strcmp(argv[i], "--out")) out = argv[++i];
        else if (!strcmp(argv[i], "--max-memory")) max_memory = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--max-instructions")) max_instructions = strtoull(argv[++i], NULL, 10);
        else goto usage;
    }
    if (seconds < 1) goto usage;

    /* the file: the events, and the column the script adds */
    inlay_schema *in = game_events_schema(), *outs = game_events_schema();
    if (!in || !outs || inlay_schema_add(outs, 0, "zone", INLAY_OPTIONAL, inlay_type_string(), NULL) < 0) return 1;
    inlay_writer *w;
    if (inlay_writer_open_file(&w, out, outs, NULL) != INLAY_OK) {
        fprintf(stderr, "script_host: %s\n", w ? inlay_writer_errmsg(w) : "out of memory");
        inlay_writer_free(w);
        return 1;
    }
    inlay_schema_free(outs);

    inlay_lua_options o;
    inlay_lua_options_init(&o);
    o.max_memory = max_memory;
    o.max_instructions = max_instructions;
    inlay_lua *rt;
    inlay_lua_transform *t = NULL;
    if (inlay_lua_create(&rt, &o) != INLAY_OK) return 1;
    if (inlay_lua_load_file(rt, script) != INLAY_OK ||
        inlay_lua_transform_open(&t, rt, function, in, w) != INLAY_OK) {
        fprintf(stderr, "script_host: %s\n", inlay_lua_errmsg(rt));
        inlay_lua_free(rt);
        inlay_writer_free(w);
        return 1;
    }

    /* one batch per second of game time: 60 frames' events, gathered */
    static game_frame frame;
    enum { BATCH = EV_FPS * EV_MAX_PER_FRAME };
    static int64_t ts[BATCH], fr[BATCH];
    static int32_t entity[BATCH], hp[BATCH];
    static float x[BATCH], y[BATCH];
    static inlay_bytes kind[BATCH], note[BATCH];
    static int16_t hp_def[BATCH], note_def[BATCH];
    uint64_t events = 0, ok = 0, failed = 0;
    for (long sec = 0; sec < seconds; sec++) {
        size_t n = 0, nhp = 0, nnote = 0;
        for (int f = 0; f < EV_FPS; f++) {
            game_frame_fill(&frame, (int64_t)sec * EV_FPS + f);
            memcpy(ts + n, frame.ts, frame.n * sizeof *ts);
            memcpy(fr + n, frame.frame, frame.n * sizeof *fr);
            memcpy(entity + n, frame.entity, frame.n * sizeof *entity);
            memcpy(kind + n, frame.kind, frame.n * sizeof *kind);
            memcpy(x + n, frame.x, frame.n * sizeof *x);
            memcpy(y + n, frame.y, frame.n * sizeof *y);
            memcpy(hp_def + n, frame.hp_def, frame.n * sizeof *hp_def);
            memcpy(note_def + n, frame.note_def, frame.n * sizeof *note_def);
            memcpy(hp + nhp, frame.hp, frame.nhp * sizeof *hp);
            memcpy(note + nnote, frame.note, frame.nnote * sizeof *note);
            n += frame.n;
            nhp += frame.nhp;
            nnote += frame.nnote;
        }
        const void *values[EV_COLUMNS] = { ts, fr, entity, kind, x, y, hp, note };
        inlay_column_batch b[EV_COLUMNS];
        for (int c = 0; c < EV_COLUMNS; c++) {
            memset(&b[c], 0, sizeof b[c]);
            b[c].column = c;
            b[c].values = values[c];
            b[c].count = n;
        }
        b[EV_HP].levels.def = hp_def;
        b[EV_NOTE].levels.def = note_def;
        events += n;
        if (inlay_lua_transform_run(t, b, EV_COLUMNS, n) == INLAY_OK) {
            ok++;
        } else {
            failed++;
            fprintf(stderr, "script_host: second %ld skipped: %s\n", sec, inlay_lua_errmsg(rt));
        }
    }
    inlay_lua_transform_free(t);
    inlay_lua_free(rt);
    if (inlay_writer_close(w) != INLAY_OK) {
        fprintf(stderr, "script_host: %s\n", inlay_writer_errmsg(w));
        inlay_writer_free(w);
        return 1;
    }
    printf("script_host: %llu events in %llu batches through %s(); %llu batches failed; %llu rows written\n",
           (unsigned long long)events, (unsigned long long)(ok + failed), function, (unsigned long long)failed,
           (unsigned long long)inlay_writer_rows(w));
    inlay_writer_free(w);
    inlay_schema_free(in);
    return failed ? 3 : 0;

usage:
    fprintf(stderr, "usage: script_host [--seconds S] [--script FILE] [--function NAME] [--out PATH] "
                    "[--max-memory BYTES] [--max-instructions N]\n");
    return 2;
}
