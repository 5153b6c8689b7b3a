#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H

#include <stddef.h>

/// Heap figures for memory reports (locbench, benchmarks).
typedef struct {
    /// Bytes allocated by the application (jemalloc `stats.allocated`; glibc: `uordblks + hblkhd`).
    size_t allocated;
    /// Bytes in physically resident allocator pages (jemalloc `stats.resident`; glibc: 0, unknown).
    size_t resident;
    /// 1 when the figures come from jemalloc's mallctl, 0 for the glibc mallinfo2 fallback.
    int fromJemalloc;
} heapstats;

/// Reads the current heap figures (refreshing jemalloc's statistics epoch first).
heapstats heapstats_read(void);

#endif
