/*
 * first_touch.c — bench_first_touch: what this machine charges for memory a
 * process touches for the first time, beside memory it touches again.
 *
 *     build/bench/bench_first_touch [--mib N] [--repeat K]
 *
 * Maps N MiB (default 64) of fresh anonymous memory, writes every byte
 * (memset) and times it; writes it again and times that; unmaps; K rounds
 * (default 3), medians. The first write pays the page faults (and, in a
 * virtual machine whose host takes back the guest's free memory, the host's
 * faults too); the second is the memory's bandwidth alone. Then the same
 * fresh memory mapped first in one call (madvise MADV_POPULATE_WRITE, as
 * the library does for its large buffers: runtime/base/alloc.h) and
 * written: what is left of the first write's cost without a fault per page.
 *
 * A writer's figures carry that cost: every buffer it grows for the first
 * time in a run is fresh memory, so a run whose peak RSS is R MiB pays
 * about R times the "per MiB" figure on top of its work, whatever the
 * thread count. Runners print this line beside their timings.
 */
#define _GNU_SOURCE
#define BENCH_NAME "bench_first_touch"
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* the shared helpers: this program uses only the timing and error ones */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "bench_util.h"
#pragma GCC diagnostic pop

int main(int argc, char **argv)
{
    uint64_t mib = 64, repeat = 3;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = parse_u64("--mib", argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = parse_u64("--repeat", argv[++i]);
        else {
            fprintf(stderr, "usage: bench_first_touch [--mib N] [--repeat K]\n");
            return 2;
        }
    }
    if (mib < 1 || mib > 4096 || repeat < 1 || repeat > 100) {
        fprintf(stderr, "bench_first_touch: --mib in [1, 4096], --repeat in [1, 100]\n");
        return 2;
    }
    const size_t bytes = (size_t)mib << 20;
    double first[100], again[100], mapped[100];
    bool can_map = true;
    for (uint64_t r = 0; r < repeat; r++) {
        uint8_t *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("mmap");
        double t = now();
        memset(p, 1, bytes);
        first[r] = now() - t;
        t = now();
        memset(p, 2, bytes);
        again[r] = now() - t;
        /* the writes must be seen to matter, or the compiler may drop them */
        if (p[bytes - 1] != 2) die("memset");
        munmap(p, bytes);
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("mmap");
        t = now();
        if (madvise(p, bytes, MADV_POPULATE_WRITE) != 0) can_map = false;   /* Linux < 5.14 */
        memset(p, 3, bytes);
        mapped[r] = now() - t;
        if (p[bytes - 1] != 3) die("memset");
        munmap(p, bytes);
    }
    const double f = median(first, (int)repeat), a = median(again, (int)repeat);
    const double pages = (double)bytes / 4096.0;
    printf("first touch       %.2f us per 4 KiB page, %.2f ms per MiB (%llu MiB fresh, median of %llu)\n",
           f * 1e6 / pages, f * 1e3 / (double)mib, (unsigned long long)mib, (unsigned long long)repeat);
    printf("touched again     %.3f ms per MiB (%.1fx cheaper)\n", a * 1e3 / (double)mib, a > 0 ? f / a : 0.0);
    const double m = median(mapped, (int)repeat);
    if (can_map)
        printf("mapped first      %.2f ms per MiB (fresh, MADV_POPULATE_WRITE then written: %.1fx cheaper than faults)\n",
               m * 1e3 / (double)mib, m > 0 ? f / m : 0.0);
    else
        printf("mapped first      not on this kernel (MADV_POPULATE_WRITE: Linux 5.14)\n");
    printf("RESULT first_touch_us_per_page=%.3f first_touch_ms_per_mib=%.4f again_ms_per_mib=%.4f "
           "mapped_ms_per_mib=%.4f mib=%llu\n",
           f * 1e6 / pages, f * 1e3 / (double)mib, a * 1e3 / (double)mib, can_map ? m * 1e3 / (double)mib : -1.0,
           (unsigned long long)mib);
    return 0;
}
