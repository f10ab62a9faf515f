#ifndef RUNNER_SHIM_INTERNAL_H
#define RUNNER_SHIM_INTERNAL_H

#include <stdint.h>

// Between the shim's C files; not part of the module Swift sees.

/// Runner's end of the orphan watchdog's socket, starting the watchdog on first use; -1 when it
/// could not be started (spawning goes on without it).
int runner_watchdog_socket(void);
/// Sends one record: a process group id to watch, or its negation to forget it. Async-signal-safe,
/// so a spawned child can announce its own group before it execs.
void runner_watchdog_send(int fd, int32_t record);
/// After the leader of group `pgid` was reaped: tells the watchdog to forget the group if no
/// member is left.
void runner_watchdog_forget_if_empty(int pgid);

#endif
