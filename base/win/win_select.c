/* The select() civetweb calls on Windows (win_select.h is included into it first): the
 * same, with the except set left out. civetweb puts every socket it waits on in both its
 * read and except sets; Wine's wineserver aborts under load on a poll that names one
 * socket twice (server/sock.c, complete_async_poll: "output->count == signaled_count"),
 * and every socket of the session goes with it, the listener too. A server needs no
 * except set: on Windows it reports out-of-band data and failed outgoing connects, and a
 * reset connection shows as readable, its recv failing. tests/apps/selectcheck.c shows
 * the abort with a few lines of Winsock and no winagent. */
#include "base/win/win_select.h"

#undef select

int win_select(int nfds, fd_set *readfds, fd_set *writefds, fd_set *exceptfds,
               const struct timeval *timeout)
{
    if (exceptfds)
        FD_ZERO(exceptfds); /* nothing is reported there */
    return select(nfds, readfds, writefds, NULL, timeout);
}
