/*
 * writer.h — what a dataset (dataset.c) needs of the writer beyond inlay.h:
 * a call checked whole before its rows are split among files, and the
 * split parts appended without their values being looked at again.
 */
#ifndef INLAY_WRITER_H
#define INLAY_WRITER_H

#include "inlay.h"

/* Check batches as inlay_writer_append_columns does (levels, values, the
 * declared sort order, which then counts them as the last rows seen),
 * staging and buffering nothing. Rows in the message count from the
 * writer's rows so far (0 for a writer that never took any). */
int inl_writer_check_columns(inlay_writer *w, const inlay_column_batch *batches, int n);

/* inlay_writer_append_columns for batches inl_writer_check_columns has
 * passed (or parts of them): byte arrays are taken as checked. */
int inl_writer_append_checked(inlay_writer *w, const inlay_column_batch *batches, int n);

/* Give back what an idle writer keeps only to go faster: its compressors'
 * contexts, its scratch buffers, the room of its pages past their values,
 * the memo tables of dictionaries its open chunks do not use (a first page
 * still deciding decides now). The next append makes them again as it
 * needs them. For a dataset holding many files open, each written in
 * turn. A writer with workers keeps everything. Errors of the decision's
 * trial are sticky, as an append's. */
int inl_writer_trim(inlay_writer *w);

#endif
