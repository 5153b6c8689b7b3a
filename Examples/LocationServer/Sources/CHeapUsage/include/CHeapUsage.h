#ifndef CHEAPUSAGE_H
#define CHEAPUSAGE_H

#include <stdint.h>

/// Bytes the process's malloc heap has handed out and not taken back (all arenas, mmapped blocks
/// included), or 0 where glibc's mallinfo2 is unavailable.
uint64_t cheapusage_heap_in_use(void);

#endif
