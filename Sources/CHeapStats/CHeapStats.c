// jemalloc's statistics when the process is linked against it (Package.swift does so when Debian's
// libjemalloc-dev is installed), else glibc's mallinfo2: the documented fallback.
#include "CHeapStats.h"
#include <stdint.h>

#if defined(HEAPSTATS_JEMALLOC)
#include <jemalloc/jemalloc.h>

heapstats heapstats_read(void) {
    heapstats stats = {0, 1};
    uint64_t epoch = 1;
    size_t size = sizeof(epoch);
    mallctl("epoch", &epoch, &size, &epoch, size);
    size = sizeof(size_t);
    mallctl("stats.allocated", &stats.allocated, &size, NULL, 0);
    return stats;
}
#else
#if defined(__GLIBC__)
#include <malloc.h>
#endif

heapstats heapstats_read(void) {
    heapstats stats = {0, 0};
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    stats.allocated = info.uordblks + info.hblkhd;
#endif
    return stats;
}
#endif
