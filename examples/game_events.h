/*
 * game_events.h — the event stream of a simulated game, shared by the
 * host examples (game_loop.c, game_loop.cpp, script_host.c): a flat schema
 * and a generator that fills a frame's events into arrays the host owns
 * and reuses, so a frame costs the host no allocation either.
 *
 *   ts      timestamp(us, utc)   when the event happened in game time
 *   frame   int64                the frame it happened in
 *   entity  uint32               who did it
 *   kind    string               move, shoot, hit, pickup, chat, spawn, death, debug
 *   x, y    float                where, in metres
 *   hp      int16, optional      health after a hit
 *   note    string, optional     chat text, rarely
 *
 * Everything comes from a fixed-seed PRNG: the same frames, events and
 * values on every run and machine.
 */
#ifndef GAME_EVENTS_H
#define GAME_EVENTS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <inlay.h>

enum { EV_TS, EV_FRAME, EV_ENTITY, EV_KIND, EV_X, EV_Y, EV_HP, EV_NOTE, EV_COLUMNS };
enum { EV_MAX_PER_FRAME = 400, EV_FPS = 60 };

static const int64_t EV_START_US = 1717200000000000;   /* 2024-06-01T00:00:00Z */

static const char *const ev_kinds[] = { "move", "shoot", "hit", "pickup", "chat", "spawn", "death", "debug" };
static const char *const ev_notes[] = { "gg", "need backup", "on my way", "nice shot", "brb", "lag!" };

/* The schema; the caller frees it. NULL with a message on stderr on failure. */
static inline inlay_schema *game_events_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s) return NULL;
    const int ok = inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL) > 0 &&
                   inlay_schema_add(s, 0, "frame", INLAY_REQUIRED, inlay_type_int(64, true), NULL) > 0 &&
                   inlay_schema_add(s, 0, "entity", INLAY_REQUIRED, inlay_type_int(32, false), NULL) > 0 &&
                   inlay_schema_add(s, 0, "kind", INLAY_REQUIRED, inlay_type_string(), NULL) > 0 &&
                   inlay_schema_add(s, 0, "x", INLAY_REQUIRED, inlay_type_float(), NULL) > 0 &&
                   inlay_schema_add(s, 0, "y", INLAY_REQUIRED, inlay_type_float(), NULL) > 0 &&
                   inlay_schema_add(s, 0, "hp", INLAY_OPTIONAL, inlay_type_int(16, true), NULL) > 0 &&
                   inlay_schema_add(s, 0, "note", INLAY_OPTIONAL, inlay_type_string(), NULL) > 0;
    if (!ok) {
        fprintf(stderr, "game_events: %s\n", inlay_schema_errmsg(s));
        inlay_schema_free(s);
        return NULL;
    }
    return s;
}

/* One frame's events, in the host's own arrays: values dense (a null takes
 * no slot), definition levels for the optional columns. */
typedef struct game_frame {
    size_t n;
    int64_t ts[EV_MAX_PER_FRAME], frame[EV_MAX_PER_FRAME];
    int32_t entity[EV_MAX_PER_FRAME];
    inlay_bytes kind[EV_MAX_PER_FRAME];
    float x[EV_MAX_PER_FRAME], y[EV_MAX_PER_FRAME];
    int32_t hp[EV_MAX_PER_FRAME];
    int16_t hp_def[EV_MAX_PER_FRAME];
    size_t nhp;
    inlay_bytes note[EV_MAX_PER_FRAME];
    int16_t note_def[EV_MAX_PER_FRAME];
    size_t nnote;
    inlay_column_batch batches[EV_COLUMNS];
} game_frame;

/* splitmix64 */
static inline uint64_t game_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Frame number `frame`'s events (its seed is the frame number, so any frame
 * can be made again on its own), with the batches describing them. */
static inline void game_frame_fill(game_frame *f, int64_t frame)
{
    uint64_t r = (uint64_t)frame * 0x632BE59BD9B4E019ull + 1;
    const int64_t frame_start = EV_START_US + frame * 1000000 / EV_FPS;
    f->n = 200 + (size_t)(game_rand(&r) % 201);
    f->nhp = f->nnote = 0;
    for (size_t i = 0; i < f->n; i++) {
        const uint64_t a = game_rand(&r), b = game_rand(&r);
        const unsigned kind = (unsigned)(a % 100) < 40 ? 0 : (unsigned)(a % 8);
        f->ts[i] = frame_start + (int64_t)(i * 16666 / f->n);
        f->frame[i] = frame;
        f->entity[i] = (int32_t)(uint32_t)(1000 + (a >> 8) % 5000);
        f->kind[i] = (inlay_bytes){ ev_kinds[kind], strlen(ev_kinds[kind]) };
        f->x[i] = (float)((int64_t)(b % 200001) - 100000) / 100.0f;
        f->y[i] = (float)((int64_t)((b >> 20) % 200001) - 100000) / 100.0f;
        f->hp_def[i] = kind == 2;   /* hit */
        if (kind == 2) f->hp[f->nhp++] = (int32_t)((b >> 40) % 101);
        f->note_def[i] = kind == 4;   /* chat */
        if (kind == 4) {
            const char *t = ev_notes[(b >> 44) % 6];
            f->note[f->nnote++] = (inlay_bytes){ t, strlen(t) };
        }
    }
    const void *values[EV_COLUMNS] = { f->ts, f->frame, f->entity, f->kind, f->x, f->y, f->hp, f->note };
    for (int c = 0; c < EV_COLUMNS; c++) {
        f->batches[c] = (inlay_column_batch){ .column = c, .values = values[c], .count = f->n };
        memset(&f->batches[c].levels, 0, sizeof f->batches[c].levels);
    }
    f->batches[EV_HP].levels.def = f->hp_def;
    f->batches[EV_NOTE].levels.def = f->note_def;
}

#endif
