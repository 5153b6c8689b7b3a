#ifndef CHEAPSTATS_H
#define CHEAPSTATS_H

#include <stddef.h>

/// Bytes currently allocated from the C heap by this process (glibc's mallinfo2 `uordblks`,
/// plus memory in mmap'ed chunks `hblkhd`), or 0 where the C library cannot tell.
/// Swift's Glibc module does not export mallinfo2, hence this tiny C shim.
size_t cheapstats_allocated_bytes(void);

#endif
