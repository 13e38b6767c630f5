/*
 * sniff.c — the format and the CSV dialect of an input from a sample of
 * its head, decided as DuckDB's CSV sniffer decides them (see sniff.h).
 *
 * Dialect. Every combination the options leave open — delimiter , | ;
 * tab; quote " ' none; escape doubled quotes or backslash (tried only when
 * the sample holds a backslash) — walks the sample once with a small state
 * machine that splits records into fields exactly as the tokenizer
 * (csv.c) would: a quote opens a quoted field only at the start of a
 * field, a closing quote must be followed by a delimiter or a line end.
 * A quoting error (a closing quote followed by something else than a
 * delimiter or a line end, a quote never closed) counts against a
 * combination, and the walk goes on at the next line as the tokenizer
 * does. The ranking: combinations giving more than one field first; then
 * the sound ones, with at most one error and 5% of the records, and no
 * quoted field left open at the end of a sample that is not the whole
 * input; then the one whose most common field count covers the largest
 * share of its records, the records its quoting broke counted for it (a
 * share, not a count: reading the lines of one long quoted field as
 * records makes many records, not consistent ones); then one that found
 * quoted fields (a quote that quotes nothing proves nothing); then fewer
 * errors; then more fields; then the first in the order above, so a file
 * without quotes gets '"' and doubled quotes, the defaults that also read
 * any quoting further on. So a quote that breaks a record or two of a
 * quoted file stays, and the broken records are reported (DuckDB drops
 * such a quote and reads every quote in the file as text), while an
 * escape that breaks records loses to one that does not.
 *
 * Header. The sample's records, under that dialect, are classified column
 * by column from the second record on, as inference classifies values
 * (textval.c: int, double, boolean, date, timestamp, time, else text). The
 * first record is a header when one of its cells does not parse as its
 * column's type (an int column whose first cell is "id"), or when every
 * column is text (nothing tells a header from data there, and a header is
 * by far the likelier); it is data when every cell parses as the type of
 * the column below it. A lone record is a header when all its cells are
 * text. With a schema given, a first record naming one of its columns is
 * a header.
 *
 * Resynchronising in a chunk (inference across a file) uses the same
 * state machine, started outside and inside quotes.
 */
#include "sniff.h"
#include "source.h"
#include "textval.h"
#include "csv.h"
#include "error.h"

#include <stdio.h>
#include <xxhash.h>

/* ---- format ------------------------------------------------------------------ */

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    const size_t n = strlen(suffix);
    if (len < n) return false;
    for (size_t i = 0; i < n; i++) {
        char a = s[len - n + i];
        if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
        if (a != suffix[i]) return false;
    }
    return true;
}

inlay_source_format inl_sniff_format_of(const char *path, bool *tsv)
{
    size_t len = strlen(path);
    if (ends_with(path, len, ".gz")) len -= 3;
    else if (ends_with(path, len, ".zst")) len -= 4;
    else if (ends_with(path, len, ".zstd")) len -= 5;
    *tsv = ends_with(path, len, ".tsv") || ends_with(path, len, ".tab");
    if (*tsv || ends_with(path, len, ".csv")) return INLAY_FORMAT_CSV;
    if (ends_with(path, len, ".json") || ends_with(path, len, ".jsonl") || ends_with(path, len, ".ndjson"))
        return INLAY_FORMAT_NDJSON;
    return INLAY_FORMAT_AUTO;
}

static size_t bom_length(const uint8_t *p, size_t n)
{
    return n >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* NDJSON when the first byte past a BOM and blanks opens an object or an array. */
static inlay_source_format by_content(const uint8_t *p, size_t n)
{
    size_t i = bom_length(p, n);
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n')) i++;
    return i < n && (p[i] == '{' || p[i] == '[') ? INLAY_FORMAT_NDJSON : INLAY_FORMAT_CSV;
}

/* ---- the walk: records and fields as the tokenizer splits them --------------- */

enum { W_START, W_UNQUOTED, W_QUOTED, W_AFTER };   /* field start, unquoted, in quotes, past the closing quote */

#define WALK_WIDTHS 8

typedef struct walk {
    uint8_t delim;
    int quote, esc;         /* bytes, or -1 for none; esc -1: quotes are doubled */
    size_t want;            /* every record must have this many fields; 0 = any */
    size_t max_records;
    bool skip_first;        /* the text starts inside a record: the first one only ends */
    /* results */
    size_t errors;          /* quoting errors */
    bool mismatch;          /* a record of another width than `want` */
    size_t records;
    size_t quoted;          /* quoted fields */
    size_t first_end;       /* just past the first record's terminator (0 = no record ended) */
    size_t last_end;        /* just past the last complete record */
    size_t width[WALK_WIDTHS], count[WALK_WIDTHS];
    size_t nwidths;
    bool open_at_end;       /* the text ended inside a quoted field (and was not cut short by max_records) */
} walk;

static void note_record(walk *w, size_t fields, size_t end)
{
    w->records++;
    w->last_end = end;
    if (w->want && fields != w->want) w->mismatch = true;
    for (size_t k = 0; k < w->nwidths; k++) {
        if (w->width[k] == fields) {
            w->count[k]++;
            return;
        }
    }
    if (w->nwidths < WALK_WIDTHS) {   /* past that many widths the records are no help anyway */
        w->width[w->nwidths] = fields;
        w->count[w->nwidths++] = 1;
    }
}

/* Walks p[0..n) from `state`. A quoted field still open at the end is a
 * quoting error only when at_end (else the sample cut it). */
static void walk_text(const uint8_t *p, size_t n, bool at_end, int state, walk *w)
{
    size_t fields = 1;
    bool empty = state == W_START;    /* nothing of the record yet: an empty line is none */
    bool skip = w->skip_first;
    for (size_t i = 0; i < n; i++) {
        const uint8_t c = p[i];
        if (state == W_QUOTED) {
            if ((int)c == w->esc && i + 1 < n && ((int)p[i + 1] == w->quote || (int)p[i + 1] == w->esc)) {
                i++;
            } else if ((int)c == w->quote) {
                if (w->esc < 0 && i + 1 < n && p[i + 1] == c) i++;
                else state = W_AFTER;
            }
            continue;
        }
        if (c == w->delim) {
            fields++;
            state = W_START;
            empty = false;
            continue;
        }
        if (c == '\r' && i + 1 < n && p[i + 1] == '\n') continue;   /* the LF ends the record */
        if (c != '\n') {
            if (state == W_AFTER) {   /* the record is bad: on at the next line */
                w->errors++;
                const uint8_t *nl = memchr(p + i, '\n', n - i);
                if (!nl) return;
                i = (size_t)(nl - p);
                if (skip) {
                    skip = false;
                    w->first_end = i + 1;
                }
                fields = 1;
                state = W_START;
                empty = true;
                continue;
            }
            if (state == W_START && (int)c == w->quote) {
                state = W_QUOTED;
                w->quoted++;
            } else {
                state = W_UNQUOTED;
            }
            empty = false;
            continue;
        }
        if (skip) {
            skip = false;
            w->first_end = i + 1;
        } else if (!empty) {
            if (!w->first_end) w->first_end = i + 1;
            note_record(w, fields, i + 1);
            if (w->records >= w->max_records) return;
        }
        fields = 1;
        state = W_START;
        empty = true;
    }
    if (state == W_QUOTED) {
        w->open_at_end = true;
        if (at_end) w->errors++;
        return;
    }
    if (at_end && !empty && !skip) note_record(w, fields, n);
}

static void walk_init(walk *w, uint8_t delim, int quote, int esc, size_t want, size_t max_records)
{
    memset(w, 0, sizeof *w);
    w->delim = delim;
    w->quote = quote;
    w->esc = esc;
    w->want = want;
    w->max_records = max_records;
}

/* ---- the dialect ---------------------------------------------------------------- */

typedef struct cand {
    uint8_t delim;
    int quote, esc;
    size_t score, width;
    bool whole;             /* the sample is the whole input */
    walk w;
} cand;

/* The most common width of a walk, and how many records have it. */
static void mode_of(cand *c)
{
    size_t best = 0, width = 0;
    for (size_t k = 0; k < c->w.nwidths; k++) {
        if (c->w.count[k] > best || (c->w.count[k] == best && c->w.width[k] > width)) {
            best = c->w.count[k];
            width = c->w.width[k];
        }
    }
    c->width = width;
    c->score = width > 1 ? best : 0;
}

static bool sound(const cand *c)
{
    return c->w.errors <= 1 + (c->w.records + c->w.errors) / 20 && (c->whole || !c->w.open_at_end);
}

static bool better(const cand *a, const cand *b)
{
    const bool wa = a->width > 1, wb = b->width > 1;
    if (wa != wb) return wa;
    const bool oa = sound(a), ob = sound(b);
    if (oa != ob) return oa;
    /* (score + errors) / (records + errors), compared without dividing */
    const unsigned __int128 sa = a->score + a->w.errors, ta = a->w.records + a->w.errors;
    const unsigned __int128 sb = b->score + b->w.errors, tb = b->w.records + b->w.errors;
    if (sa * tb != sb * ta) return sa * tb > sb * ta;
    if ((a->w.quoted > 0) != (b->w.quoted > 0)) return a->w.quoted > 0;
    if (a->w.errors != b->w.errors) return a->w.errors < b->w.errors;
    return a->width > b->width;
}

/* Chooses delimiter, quote and escape over text[0..n). */
static void choose_dialect(const uint8_t *text, size_t n, bool whole, const inlay_source_options *o, bool tsv,
                           inlay_source_dialect *d)
{
    static const uint8_t delims[] = { ',', '|', ';', '\t' };
    static const int quotes[] = { '"', '\'', -1 };
    uint8_t dl[4];
    int ql[3], el[2];
    size_t nd = 0, nq = 0, ne = 0;
    if (o->delimiter) {
        dl[nd++] = (uint8_t)o->delimiter;
    } else if (tsv) {
        dl[nd++] = '\t';
        d->sniffed |= INLAY_SNIFFED_DELIMITER;
    } else {
        for (size_t i = 0; i < sizeof delims; i++) dl[nd++] = delims[i];
        d->sniffed |= INLAY_SNIFFED_DELIMITER;
    }
    if (o->quote != INLAY_SNIFF) {
        ql[nq++] = o->quote ? (int)(uint8_t)o->quote : -1;
    } else {
        for (size_t i = 0; i < 3; i++) ql[nq++] = quotes[i];
        d->sniffed |= INLAY_SNIFFED_QUOTE;
    }
    if (o->escape != INLAY_SNIFF) {
        el[ne++] = o->escape ? (int)(uint8_t)o->escape : -1;   /* the quote itself: doubled, below */
    } else {
        el[ne++] = -1;
        if (memchr(text, '\\', n)) el[ne++] = '\\';
        d->sniffed |= INLAY_SNIFFED_ESCAPE;
    }
    cand best;
    memset(&best, 0, sizeof best);
    bool have = false;
    for (size_t i = 0; i < nd; i++) {
        for (size_t j = 0; j < nq; j++) {
            for (size_t k = 0; k < ne; k++) {
                /* without a quote there is nothing to escape; an escape equal to the
                   quote means doubled quotes; one equal to the delimiter cannot work */
                const int esc = ql[j] < 0 || el[k] == ql[j] ? -1 : el[k];
                if ((ql[j] < 0 && k > 0) || ql[j] == dl[i] || (esc >= 0 && esc == dl[i])) continue;
                cand c = { dl[i], ql[j], esc, 0, 0, whole, { 0 } };
                walk_init(&c.w, c.delim, c.quote, c.esc, 0, SNIFF_MAX_RECORDS);
                walk_text(text, n, whole, W_START, &c.w);
                mode_of(&c);
                if (!have || better(&c, &best)) {
                    best = c;
                    have = true;
                }
            }
        }
    }
    if (!have) {   /* nothing could be tried: what the options say, or the defaults */
        best.delim = nd ? dl[0] : ',';
        best.quote = nq ? ql[0] : '"';
        best.esc = ne ? el[0] : -1;
    }
    /* a sniffed quote other than '"' that quotes nothing only stands for none */
    if (have && o->quote == INLAY_SNIFF && best.quote != '"' && best.w.quoted == 0) best.quote = -1;
    d->delimiter = (char)best.delim;
    d->quote = best.quote < 0 ? 0 : (char)best.quote;
    d->escape = best.quote < 0 ? 0 : best.esc < 0 ? d->quote : (char)best.esc;
}

/* ---- the header -------------------------------------------------------------------- */

/* The kind a value's text has, spaces around it left out as the source
 * leaves them out of numbers and dates. */
static int kind_of_text(const char *p, size_t len, bool *leading_zero)
{
    while (len && (p[0] == ' ' || p[0] == '\t')) { p++; len--; }
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    textval_class info;
    memset(&info, 0, sizeof info);
    const int k = (int)inl_textval_classify(p, len, &info);
    *leading_zero = k == TEXTVAL_KIND_INT && info.leading_zero;
    return k;
}

enum { K_NONE = -1 };

/* The lattice of inference (infer.c): int -> double, date -> timestamp, else text. */
static int merge(int a, int b)
{
    if (a == K_NONE || a == b) return b;
    if ((a == TEXTVAL_KIND_INT && b == TEXTVAL_KIND_DOUBLE) || (a == TEXTVAL_KIND_DOUBLE && b == TEXTVAL_KIND_INT))
        return TEXTVAL_KIND_DOUBLE;
    if ((a == TEXTVAL_KIND_DATE && b == TEXTVAL_KIND_TIMESTAMP) || (a == TEXTVAL_KIND_TIMESTAMP && b == TEXTVAL_KIND_DATE))
        return TEXTVAL_KIND_TIMESTAMP;
    return TEXTVAL_KIND_STRING;
}

/* Whether a cell of kind `cell` parses as a column of kind `col`. */
static bool fits(int col, int cell)
{
    return col == K_NONE || col == TEXTVAL_KIND_STRING || merge(col, cell) == col;
}

static bool names_cell(const csv_field *f, const char *const *names, size_t nnames)
{
    const char *p = f->data;
    size_t len = f->len;
    while (len && (p[0] == ' ' || p[0] == '\t')) { p++; len--; }
    while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
    for (size_t i = 0; i < nnames; i++)
        if (strlen(names[i]) == len && memcmp(names[i], p, len) == 0) return true;
    return false;
}

typedef struct header_scan {
    int *first;         /* kind of each cell of the first record; K_NONE for a null */
    int *col;           /* kind of each column below it */
    size_t n;           /* fields of the first record */
    size_t records;
    bool named;         /* the first record names a schema column */
} header_scan;

static void header_record(header_scan *h, const csv_field *f, size_t nf, const null_set *nulls,
                          const char *const *names, size_t nnames)
{
    const bool first = h->records == 0;
    h->records++;
    const size_t m = nf < h->n ? nf : h->n;
    for (size_t i = 0; i < m; i++) {
        bool lz = false;
        const int k = inl_null_set_match(nulls, &f[i]) ? K_NONE : kind_of_text(f[i].data, f[i].len, &lz);
        if (first) {
            h->first[i] = k;
            if (names && names_cell(&f[i], names, nnames)) h->named = true;
        } else if (k != K_NONE) {
            h->col[i] = merge(h->col[i], lz ? TEXTVAL_KIND_STRING : k);   /* "007" is a code, as infer.c has it */
        }
    }
}

static bool header_verdict(const header_scan *h)
{
    if (h->named) return true;
    if (h->records == 0) return true;
    bool any = false, all_text = true;
    for (size_t i = 0; i < h->n; i++) {
        if (h->first[i] != K_NONE) any = true;
        if (h->first[i] != K_NONE && h->first[i] != TEXTVAL_KIND_STRING) all_text = false;
    }
    if (h->records == 1) return any && all_text;
    bool typed = false;
    for (size_t i = 0; i < h->n; i++)
        if (h->col[i] != K_NONE && h->col[i] != TEXTVAL_KIND_STRING) typed = true;
    if (!typed) return true;
    for (size_t i = 0; i < h->n; i++)
        if (h->first[i] != K_NONE && !fits(h->col[i], h->first[i])) return true;
    return false;
}

/* Reads the sample's records under the chosen dialect and decides. */
static int detect_header(const uint8_t *text, size_t n, const inlay_source_options *o, const char *const *names,
                         size_t nnames, inlay_source_dialect *d, const inlay_allocator *a)
{
    input_membuf m = { text, n, 0 };
    input_reader *in = NULL;
    csv_reader *r = NULL;
    null_set nulls;
    header_scan h;
    memset(&h, 0, sizeof h);
    int st = inl_null_set_init(&nulls, o, d->quote, a);
    if (st == INLAY_ERR_ARGUMENT) {   /* a NULL marker: the source reports it; no markers here */
        inl_null_set_free(&nulls, a);
        st = 0;
    }
    if (!st) st = inl_input_open_fn(&in, inl_input_membuf_read, &m, INPUT_PLAIN, a, NULL, 0);
    csv_options co;
    inl_csv_options_init(&co);
    co.delimiter = d->delimiter;
    co.quote = d->quote;
    co.escape = d->escape;
    if (!st) st = inl_csv_open(&r, in, &co, a);
    const csv_field *f;
    size_t nf;
    int k;
    while (!st && h.records < SNIFF_MAX_RECORDS && (k = inl_csv_next(r, &f, &nf)) != 0) {
        if (k < 0) {
            if (inl_csv_error_status(r) != INLAY_ERR_VALUE) break;   /* a record cut by the sample's end */
            continue;
        }
        if (h.records == 0) {
            h.n = nf;
            h.first = inl_mem_alloc(a, nf * sizeof *h.first);
            h.col = inl_mem_alloc(a, nf * sizeof *h.col);
            if (!h.first || !h.col) {
                st = INLAY_ERR_NOMEM;
                break;
            }
            for (size_t i = 0; i < nf; i++) h.col[i] = K_NONE;
        }
        header_record(&h, f, nf, &nulls, names, nnames);
    }
    if (!st) d->header = header_verdict(&h);
    inl_mem_free(a, h.first, h.n * sizeof *h.first);
    inl_mem_free(a, h.col, h.n * sizeof *h.col);
    inl_csv_close(r);
    inl_input_close(in);
    inl_null_set_free(&nulls, a);
    return st;
}

/* ---- header names -------------------------------------------------------------------- */

/* The names given so far, as a hash set over their offsets in nb (nb may
 * move as it grows, offsets do not): scanning every earlier name for each
 * candidate took cubic time on a header of one name repeated. Each entry
 * also remembers, for the name used as a base, the next suffix to try:
 * names are only ever added, so "<base>_1" .. "<base>_<next - 1>" stay
 * taken and the search for the next duplicate starts where the last one
 * stopped. Every base is a name given (itself, or taken already), so one
 * table serves both. */
typedef struct {
    size_t off;      /* of the name in nb */
    size_t len;      /* 0: a free slot (no name is empty: "column<i>" stands for one) */
    unsigned next;   /* the first k "<name>_<k>" may still be free for */
} name_slot;

typedef struct {
    name_slot *slot;
    size_t mask;     /* slots - 1; twice the names or more, so probes stay short */
} name_set;

/* The slot holding p[0..len), or the free slot where it would go (there
 * is always one: the table has at least twice as many slots as names). */
static name_slot *name_find(const name_set *s, const buf *nb, const char *p, size_t len)
{
    for (size_t i = (size_t)XXH3_64bits(p, len) & s->mask;; i = (i + 1) & s->mask) {
        name_slot *e = &s->slot[i];
        if (!e->len || (e->len == len && memcmp(nb->data + e->off, p, len) == 0)) return e;
    }
}

int inl_sniff_header_names(const csv_field *f, size_t nf, buf *nb, const inlay_allocator *a)
{
    nb->len = 0;
    if (!nf) return 0;
    size_t nslots = 2;
    while (nslots / 2 < nf) {
        if (nslots > SIZE_MAX / 2 / sizeof(name_slot)) return INLAY_ERR_NOMEM;
        nslots *= 2;
    }
    name_set set = { inl_mem_alloc(a, nslots * sizeof(name_slot)), nslots - 1 };
    if (!set.slot) return INLAY_ERR_NOMEM;
    memset(set.slot, 0, nslots * sizeof(name_slot));
    int st = 0;
    for (size_t i = 0; i < nf; i++) {
        const char *p = f[i].data;
        size_t len = f[i].len;
        const char *nul = len ? memchr(p, 0, len) : NULL;   /* names are NUL-terminated: one per field */
        if (nul) len = (size_t)(nul - p);
        while (len && (p[0] == ' ' || p[0] == '\t')) { p++; len--; }
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t')) len--;
        char made[32];
        if (!len) {
            len = (size_t)snprintf(made, sizeof made, "column%zu", i);
            p = made;
        }
        const size_t start = nb->len;
        if (inl_buf_reserve(nb, a, len + 24)) {
            st = INLAY_ERR_NOMEM;
            break;
        }
        char *name = (char *)nb->data + start;
        memcpy(name, p, len);
        size_t n = len;
        name_slot *e = name_find(&set, nb, name, n);
        if (e->len) {   /* taken: "<name>_k" with the first k free, from where the last search stopped */
            name_slot *base = e;
            unsigned k = base->next;
            for (;; k++) {
                n = len + (size_t)snprintf(name + len, 24, "_%u", k);
                e = name_find(&set, nb, name, n);
                if (!e->len) break;
            }
            base->next = k + 1;
        }
        *e = (name_slot){ start, n, 1 };
        name[n] = 0;
        nb->len = start + n + 1;
    }
    inl_mem_free(a, set.slot, nslots * sizeof(name_slot));
    return st;
}

/* ---- entry points -------------------------------------------------------------------- */

/* Where the records start: past a BOM and the rows to skip. */
static size_t records_start(const uint8_t *text, size_t len, size_t skip_rows)
{
    size_t off = bom_length(text, len);
    for (size_t k = 0; k < skip_rows && off < len; k++) {
        const uint8_t *nl = memchr(text + off, '\n', len - off);
        off = nl ? (size_t)(nl - text) + 1 : len;
    }
    return off;
}

int inl_sniff_text(const uint8_t *text, size_t len, bool whole, const char *path, const inlay_source_options *o,
                   const char *const *names, size_t nnames, inlay_source_dialect *d, const inlay_allocator *alloc)
{
    const inlay_allocator al = inl_mem_or_default(alloc), *a = &al;
    const inlay_input_compression comp = d->compression;
    memset(d, 0, sizeof *d);
    d->compression = comp;
    bool tsv = false;
    const inlay_source_format by_name = inl_sniff_format_of(path ? path : "", &tsv);
    if (o->format != INLAY_FORMAT_AUTO) {
        d->format = o->format;
    } else {
        d->format = by_name != INLAY_FORMAT_AUTO ? by_name : by_content(text, len);
        d->sniffed |= INLAY_SNIFFED_FORMAT;
    }
    if (d->format == INLAY_FORMAT_NDJSON) return 0;
    const size_t off = records_start(text, len, o->skip_rows);
    const uint8_t *t = text + off;
    size_t n = len - off;
    if (!whole) {   /* the last line may be cut: leave it out */
        const uint8_t *p = t + n;
        while (p > t && p[-1] != '\n') p--;
        if (p > t) n = (size_t)(p - t);
    }
    choose_dialect(t, n, whole, o, tsv, d);
    if (o->header != INLAY_SNIFF) {
        d->header = o->header != 0;
        return 0;
    }
    d->sniffed |= INLAY_SNIFFED_HEADER;
    return detect_header(t, n, o, names, nnames, d, a);
}

/* Whether the sample ends inside a field quoted with '"' (or the quote
 * given), under any delimiter there is to try, before SNIFF_MAX_RECORDS:
 * a quoted field longer than the sample, which the sample cannot judge. */
static bool ends_in_quotes(const uint8_t *text, size_t len, const inlay_source_options *o)
{
    static const uint8_t delims[] = { ',', '|', ';', '\t' };
    if (o->quote == 0) return false;
    const int quote = o->quote == INLAY_SNIFF ? '"' : (int)(uint8_t)o->quote;
    const int esc = o->escape == INLAY_SNIFF || !o->escape || o->escape == quote ? -1 : (int)(uint8_t)o->escape;
    const size_t off = records_start(text, len, o->skip_rows);
    while (len > off && text[len - 1] != '\n') len--;   /* a quote opened on the cut line proves nothing */
    for (size_t i = 0; i < sizeof delims; i++) {
        const uint8_t d = o->delimiter ? (uint8_t)o->delimiter : delims[i];
        walk w;
        walk_init(&w, d, quote, esc, 0, SNIFF_MAX_RECORDS);
        walk_text(text + off, len - off, false, W_START, &w);
        if (w.open_at_end) return true;
        if (o->delimiter) break;
    }
    return false;
}

/* Whether the options leave anything to find in the text. */
static bool all_given(const inlay_source_options *o)
{
    if (o->format == INLAY_FORMAT_NDJSON) return true;
    return o->format == INLAY_FORMAT_CSV && o->delimiter && o->quote != INLAY_SNIFF && o->escape != INLAY_SNIFF &&
           o->header != INLAY_SNIFF;
}

int inl_sniff_input(input_reader *in, const char *path, const inlay_source_options *o, const char *const *names,
                    size_t nnames, inlay_source_dialect *d, const inlay_allocator *alloc, char *err, size_t errcap)
{
    const inlay_allocator al = inl_mem_or_default(alloc), *a = &al;
    if (err && errcap) err[0] = 0;   /* every failure below leaves a message */
    const input_compression c = inl_input_compression(in);
    d->compression = c == INPUT_GZIP ? INLAY_INPUT_GZIP : c == INPUT_ZSTD ? INLAY_INPUT_ZSTD : INLAY_INPUT_PLAIN;
    if (all_given(o)) return inl_sniff_text((const uint8_t *)"", 0, false, path, o, names, nnames, d, a);
    size_t cap = SNIFF_SAMPLE_BYTES, n = 0;
    uint8_t *sample = inl_mem_alloc(a, cap);
    if (!sample) return inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    bool whole = false;
    int st = 0;
    for (;;) {
        while (n < cap) {
            const ptrdiff_t k = inl_input_read(in, sample + n, cap - n);
            if (k < 0) {
                st = inl_err_format(err, errcap, INLAY_ERR_IO, "%s", inl_input_errmsg(in));
                break;
            }
            if (k == 0) {
                whole = true;
                break;
            }
            n += (size_t)k;
        }
        /* a quoted field runs past the sample: read on, up to a bound */
        if (st || whole || cap >= SNIFF_MAX_SAMPLE_BYTES || o->format == INLAY_FORMAT_NDJSON ||
            !ends_in_quotes(sample, n, o))
            break;
        uint8_t *more = inl_mem_realloc(a, sample, cap, cap * 2);
        if (!more) {
            st = inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
            break;
        }
        sample = more;
        cap *= 2;
    }
    if (!st) st = inl_sniff_text(sample, n, whole, path, o, names, nnames, d, a);
    if (!st && inl_input_unread(in, sample, n)) st = inl_err_format(err, errcap, INLAY_ERR_NOMEM, "out of memory");
    else if (st && err && errcap && !err[0])
        inl_err_format(err, errcap, st, st == INLAY_ERR_NOMEM ? "out of memory" : "unusable delimiter, quote or escape character");
    inl_mem_free(a, sample, cap);
    return st;
}

bool inl_sniff_resync(const uint8_t *p, size_t len, bool at_start, bool at_end, const inlay_source_dialect *d,
                      size_t nfields, size_t *start, size_t *end)
{
    const int quote = d->quote ? (int)(uint8_t)d->quote : -1;
    const int esc = d->quote && d->escape && d->escape != d->quote ? (int)(uint8_t)d->escape : -1;
    walk out, in;
    if (at_start) {   /* certain: only where the last whole record ends is to be found */
        walk_init(&out, (uint8_t)d->delimiter, quote, esc, 0, SIZE_MAX);
        walk_text(p, len, at_end, W_START, &out);
        *start = 0;
        *end = out.last_end;
        return out.records > 0;
    }
    const uint8_t *nl = memchr(p, '\n', len);
    if (!nl || !nfields) return false;
    const size_t p0 = (size_t)(nl - p) + 1;
    walk_init(&out, (uint8_t)d->delimiter, quote, esc, nfields, SIZE_MAX);
    walk_text(p + p0, len - p0, at_end, W_START, &out);
    const bool out_ok = !out.errors && !out.mismatch && out.records > 0;
    bool in_ok = false;
    if (quote >= 0) {
        walk_init(&in, (uint8_t)d->delimiter, quote, esc, nfields, SIZE_MAX);
        in.skip_first = true;
        walk_text(p + p0, len - p0, at_end, W_QUOTED, &in);
        in_ok = !in.errors && !in.mismatch && in.records > 0;
    }
    if (out_ok == in_ok) return false;
    *start = p0 + (out_ok ? 0 : in.first_end);
    *end = p0 + (out_ok ? out.last_end : in.last_end);
    return true;
}
