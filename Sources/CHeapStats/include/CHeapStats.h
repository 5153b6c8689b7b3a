#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H

#include <stddef.h>

/// Heap figures for locbench's memory report.
typedef struct {
    /// Bytes allocated by the application (jemalloc `stats.allocated`; glibc: `uordblks + hblkhd`).
    size_t allocated;
    /// 1 when the figures come from jemalloc's mallctl, 0 for the glibc mallinfo2 fallback.
    int fromJemalloc;
} heapstats;

/// Reads the current heap figures (refreshing jemalloc's statistics epoch first).
heapstats heapstats_read(void);

#endif
