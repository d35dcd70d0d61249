/* Included first into civetweb.c on Windows (-include): its select() calls become
 * win_select (win_select.c), Winsock's own declaration left as it is. */
#ifndef WINAGENT_BASE_WIN_SELECT_H
#define WINAGENT_BASE_WIN_SELECT_H

#include <winsock2.h>

int win_select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
               const struct timeval *timeout);
#define select win_select

#endif
