#include "CHeapUsage.h"

#if defined(__GLIBC__)
#include <malloc.h>

uint64_t cheapusage_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
}
#else
uint64_t cheapusage_heap_in_use(void) { return 0; }
#endif
