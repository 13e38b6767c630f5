/*
 * write_example — writes a small game-telemetry table through the C API and
 * prints what it wrote: the schema, the rows, and the file's size.
 *
 *     inlay_example [out.parquet]
 */
#include <inlay.h>
#include <stdio.h>
#include <string.h>

#define ROWS 8

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "example.parquet";
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s) return 1;
    int ok = inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL) > 0 &&
             inlay_schema_add(s, 0, "ts", INLAY_REQUIRED, inlay_type_timestamp(INLAY_MICROS, true), NULL) > 0 &&
             inlay_schema_add(s, 0, "player", INLAY_OPTIONAL, inlay_type_string(), NULL) > 0 &&
             inlay_schema_add(s, 0, "score", INLAY_OPTIONAL, inlay_type_double(), NULL) > 0 &&
             inlay_schema_add(s, 0, "won", INLAY_REQUIRED, inlay_type_boolean(), NULL) > 0;
    if (!ok) {
        fprintf(stderr, "inlay_example: %s\n", inlay_schema_errmsg(s));
        return 1;
    }

    int64_t id[ROWS], ts[ROWS];
    double score[ROWS];
    bool won[ROWS];
    inlay_bytes player[ROWS];
    static const char *names[] = { "ana", "bo", "chen", NULL };
    int16_t player_def[ROWS], score_def[ROWS];
    size_t nplayers = 0, nscores = 0;
    for (int i = 0; i < ROWS; i++) {
        id[i] = i + 1;
        ts[i] = 1700000000000000 + (int64_t)i * 1500000;
        won[i] = i % 3 == 0;
        const char *name = names[i % 4];
        player_def[i] = name != NULL;
        if (name) player[nplayers++] = (inlay_bytes){ name, strlen(name) };
        score_def[i] = i % 5 != 4;
        if (score_def[i]) score[nscores++] = 100.0 + 12.5 * i;
    }

    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, NULL);
    char text[1024];
    inlay_schema_format(s, text, sizeof text);
    inlay_schema_free(s);
    if (st == INLAY_OK) {
        inlay_levels pl = { player_def, NULL, NULL }, sl = { score_def, NULL, NULL };
        if ((st = inlay_writer_append_i64(w, 0, id, ROWS, NULL)) ||
            (st = inlay_writer_append_i64(w, 1, ts, ROWS, NULL)) ||
            (st = inlay_writer_append_bytes(w, 2, player, ROWS, &pl)) ||
            (st = inlay_writer_append_double(w, 3, score, ROWS, &sl)) ||
            (st = inlay_writer_append_bool(w, 4, won, ROWS, NULL)) ||
            (st = inlay_writer_close(w))) {
        }
    }
    if (st != INLAY_OK) {
        fprintf(stderr, "inlay_example: %s\n", w ? inlay_writer_errmsg(w) : inlay_strerror(st));
        inlay_writer_free(w);
        return 1;
    }

    printf("wrote %s: %llu rows, %llu row group(s), %llu bytes (inlay %s)\n", path,
           (unsigned long long)inlay_writer_rows(w), (unsigned long long)inlay_writer_row_groups(w),
           (unsigned long long)inlay_writer_bytes(w), inlay_version());
    printf("%s", text);
    printf("%-4s %-17s %-7s %-7s %s\n", "id", "ts (us, UTC)", "player", "score", "won");
    size_t p = 0, q = 0;
    for (int i = 0; i < ROWS; i++) {
        char sc[32] = "null";
        if (score_def[i]) snprintf(sc, sizeof sc, "%.1f", score[q++]);
        printf("%-4lld %-17lld %-7.*s %-7s %s\n", (long long)id[i], (long long)ts[i],
               player_def[i] ? (int)player[p].len : 4, player_def[i] ? (const char *)player[p].data : "null",
               sc, won[i] ? "true" : "false");
        if (player_def[i]) p++;
    }
    inlay_writer_free(w);
    return 0;
}
