// Swift's Glibc module does not export <sys/epoll.h>, and swift-nio's epoll shim is not a product: this asks the
// one question the NMEA sources need before handing a descriptor to NIO's pipe channel, which traps on one that
// epoll refuses.
#include "CPollability.h"

#ifdef __linux__
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

int cpollability_can_poll(int descriptor) {
    int poller = epoll_create1(EPOLL_CLOEXEC);
    if (poller < 0) return 1;
    struct epoll_event event = { .events = EPOLLIN };
    int added = epoll_ctl(poller, EPOLL_CTL_ADD, descriptor, &event);
    int refused = added != 0 && errno == EPERM;
    close(poller);
    return refused ? 0 : 1;
}
#else
int cpollability_can_poll(int descriptor) {
    (void)descriptor;
    return 1;
}
#endif
