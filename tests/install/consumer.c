/*
 * consumer.c — a host program of the installed libinlay, as a user of the
 * package builds it: with pkg-config, or with find_package(inlay). It uses
 * inlay.h only and checks every status it gets.
 *
 *     consumer DIR     writes DIR/rows.parquet (rows appended by the program)
 *                      and DIR/csv.parquet (a CSV file read by a source)
 *
 * The source reads its input on a second thread, so a static link of it
 * needs what libinlay.a needs: zstd, zlib and the threads library. Each
 * file must start and end with the Parquet magic "PAR1". Prints
 * "inlay X.Y.Z: 2 files, N rows" and exits 0, or says what failed and
 * exits 1.
 */
#include <inlay.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what, int status, const char *msg)
{
    fprintf(stderr, "consumer: %s: %s%s%s\n", what, inlay_strerror(status), msg && *msg ? ": " : "",
            msg ? msg : "");
    return 1;
}

static int has_magic(const char *path)
{
    FILE *f = fopen(path, "rb");
    char head[4], tail[4];
    int ok = f && fread(head, 1, 4, f) == 4 && fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4 &&
             memcmp(head, "PAR1", 4) == 0 && memcmp(tail, "PAR1", 4) == 0;
    if (f) fclose(f);
    if (!ok) fprintf(stderr, "consumer: %s does not start and end with PAR1\n", path);
    return ok;
}

static inlay_schema *make_schema(void)
{
    inlay_schema *s = inlay_schema_create(NULL);
    if (!s) return NULL;
    if (inlay_schema_add(s, 0, "id", INLAY_REQUIRED, inlay_type_int(64, true), NULL) <= 0 ||
        inlay_schema_add(s, 0, "name", INLAY_OPTIONAL, inlay_type_string(), NULL) <= 0) {
        fprintf(stderr, "consumer: schema: %s\n", inlay_schema_errmsg(s));
        inlay_schema_free(s);
        return NULL;
    }
    return s;
}

/* Five rows, two of them without a name. */
static int write_rows(const char *path, const inlay_schema *s, uint64_t *rows)
{
    static const int64_t ids[] = { 1, 2, 3, 4, 5 };
    static const int16_t defs[] = { 1, 0, 1, 1, 0 };
    const inlay_bytes names[] = { { "ana", 3 }, { "chen", 4 }, { "dora", 4 } };
    inlay_levels lv = { defs, NULL, NULL };
    inlay_options o;
    inlay_options_init(&o);

    inlay_writer *w = NULL;
    int st = inlay_writer_open_file(&w, path, s, &o);
    if (st != INLAY_OK) {
        fail("inlay_writer_open_file", st, w ? inlay_writer_errmsg(w) : NULL);
        inlay_writer_free(w);
        return 1;
    }
    if ((st = inlay_writer_append_i64(w, 0, ids, 5, NULL)) != INLAY_OK ||
        (st = inlay_writer_append_bytes(w, 1, names, 5, &lv)) != INLAY_OK ||
        (st = inlay_writer_close(w)) != INLAY_OK) {
        fail("writing rows", st, inlay_writer_errmsg(w));
        inlay_writer_free(w);
        return 1;
    }
    *rows += inlay_writer_rows(w);
    inlay_writer_free(w);
    return 0;
}

/* The same schema from a CSV file, through a source with a parsing thread. */
static int write_csv(const char *csv, const char *path, const inlay_schema *s, uint64_t *rows)
{
    FILE *f = fopen(csv, "w");
    if (!f || fputs("id,name\n10,eve\n11,\n12,finn\n", f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "consumer: cannot write %s\n", csv);
        return 1;
    }
    inlay_source_options so;
    inlay_source_options_init(&so);
    so.threads = 2;
    inlay_source *src = NULL;
    int st = inlay_source_open(&src, csv, s, &so);
    if (st != INLAY_OK) {
        fail("inlay_source_open", st, src ? inlay_source_errmsg(src) : NULL);
        inlay_source_free(src);
        return 1;
    }
    inlay_writer *w = NULL;
    st = inlay_writer_open_file(&w, path, s, NULL);
    if (st != INLAY_OK) {
        fail("inlay_writer_open_file", st, w ? inlay_writer_errmsg(w) : NULL);
        inlay_writer_free(w);
        inlay_source_free(src);
        return 1;
    }
    size_t n;
    while ((st = inlay_source_next(src, &n)) == INLAY_OK && n > 0) {
        int ncolumns;
        const inlay_column_batch *b = inlay_source_batch(src, &ncolumns);
        if ((st = inlay_writer_append_columns(w, b, ncolumns)) != INLAY_OK) break;
    }
    if (st != INLAY_OK) {
        fail("reading the CSV file", st, *inlay_source_errmsg(src) ? inlay_source_errmsg(src) : inlay_writer_errmsg(w));
    } else if ((st = inlay_writer_close(w)) != INLAY_OK) {
        fail("inlay_writer_close", st, inlay_writer_errmsg(w));
    } else {
        *rows += inlay_writer_rows(w);
    }
    inlay_writer_free(w);
    inlay_source_free(src);
    return st != INLAY_OK;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: consumer DIR\n");
        return 2;
    }
    /* the header this program was compiled with is the library it runs with */
    if (inlay_version_number() != INLAY_VERSION_NUMBER || strcmp(inlay_version(), INLAY_VERSION_STRING) != 0) {
        fprintf(stderr, "consumer: inlay.h is %s, the library loaded is %s\n", INLAY_VERSION_STRING, inlay_version());
        return 1;
    }
    char rows_path[4096], csv_path[4096], out_path[4096];
    snprintf(rows_path, sizeof rows_path, "%s/rows.parquet", argv[1]);
    snprintf(csv_path, sizeof csv_path, "%s/input.csv", argv[1]);
    snprintf(out_path, sizeof out_path, "%s/csv.parquet", argv[1]);

    inlay_schema *s = make_schema();
    if (!s) return 1;
    uint64_t rows = 0;
    int bad = write_rows(rows_path, s, &rows) || write_csv(csv_path, out_path, s, &rows);
    inlay_schema_free(s);
    if (bad || !has_magic(rows_path) || !has_magic(out_path)) return 1;
    if (rows != 8) {
        fprintf(stderr, "consumer: wrote %llu rows, expected 8\n", (unsigned long long)rows);
        return 1;
    }
    printf("inlay %s: 2 files, %llu rows\n", inlay_version(), (unsigned long long)rows);
    return 0;
}
