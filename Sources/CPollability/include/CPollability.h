#ifndef CPOLLABILITY_H
#define CPOLLABILITY_H

/// Whether the kernel's poller can watch `descriptor` for input: 1, or 0 when it refuses it (on Linux, epoll
/// answers EPERM for regular files and for devices without a poll operation, such as /dev/null). Asked of a
/// throwaway epoll instance; 1 wherever the question cannot be asked (no epoll, or one could not be made).
int cpollability_can_poll(int descriptor);

#endif
