#define _GNU_SOURCE
#include "CLinux.h"
#include <errno.h>
#include <fcntl.h>

int relaydeck_errno(void) { return errno; }
void relaydeck_set_errno(int value) { errno = value; }

int relaydeck_fcntl_getfl(int fd) { return fcntl(fd, F_GETFL); }

int relaydeck_set_nonblocking(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    if (flags & O_NONBLOCK) return 0;
    return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

int relaydeck_set_cloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) return -1;
    if (flags & FD_CLOEXEC) return 0;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

int relaydeck_accept(int fd, struct sockaddr_storage *addr, socklen_t *len) {
    return accept4(fd, (struct sockaddr *)addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

size_t relaydeck_sun_path_size(void) {
    struct sockaddr_un un;
    return sizeof(un.sun_path);
}
