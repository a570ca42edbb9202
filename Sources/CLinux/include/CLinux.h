#ifndef RELAYDECK_CLINUX_H
#define RELAYDECK_CLINUX_H

// Linux interfaces that Swift's Glibc module does not export (checked with Swift 6.3.1),
// and small wrappers for what Swift cannot call (macros, variadic functions).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stddef.h>

// errno is a macro over a thread-local location.
int relaydeck_errno(void);
void relaydeck_set_errno(int value);

// fcntl is variadic.
int relaydeck_set_nonblocking(int fd);
int relaydeck_set_cloexec(int fd);
int relaydeck_fcntl_getfl(int fd);

// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
int relaydeck_accept(int fd, struct sockaddr_storage *addr, socklen_t *len);

// sizeof(struct sockaddr_un.sun_path): Swift imports the array as a tuple.
size_t relaydeck_sun_path_size(void);

#endif
