/*
 * version.c — the version of the library as built (the header's may be a
 * different one, in a host compiled against another release).
 */
#include "inlay.h"

unsigned inlay_version_number(void) { return INLAY_VERSION_NUMBER; }

const char *inlay_version(void) { return INLAY_VERSION_STRING; }
