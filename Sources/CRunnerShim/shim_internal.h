#ifndef RUNNER_SHIM_INTERNAL_H
#define RUNNER_SHIM_INTERNAL_H

#include <sched.h>
#include <stdint.h>

// Between the shim's C files; not part of the module Swift sees.

/// Runner's end of the orphan watchdog's pipe, starting the watchdog on first use; -1 when it
/// could not be started (spawning goes on without it).
int runner_watchdog_fd(void);
/// Sends one record: a process group id to watch (its negation forgets it). Async-signal-safe,
/// so a spawned child announces its own group before it execs. The caller must have SIGPIPE
/// blocked: a write to a dead watchdog raises it.
void runner_watchdog_send(int fd, int32_t record);

/// In a forked child just before exec: installs the tracing filter and sends its listener (or
/// the errno of the failure) on `socket` (tracer.c).
void runner_trace_child(int socket);
/// Receives what runner_trace_child sent: 0 with the listener, an errno, or -1 for nothing.
int runner_trace_receive(int socket, int *listener);
/// Hands a listener to the tracer thread; a handle for runner_trace_take, or -errno.
int runner_trace_attach(int listener);

/// While spawns stall (runner_spawn_waited), binds the calling thread to the CPU it runs on, so
/// the child it is about to clone starts there (spawn_cpu.c); the thread's own mask to give
/// back with runner_unpin, or NULL when nothing was changed.
const cpu_set_t *runner_pin_for_spawn(void);
/// Sets the calling thread's (or a cloned child's) mask back to `mask`; nothing for NULL.
void runner_unpin(const cpu_set_t *mask);
/// How long the calling thread waited for its last child's exec: a stall pins its next spawns.
void runner_spawn_waited(int64_t nanoseconds);
/// Whether the calling thread's last clone spawn started its child pinned.
int runner_spawn_was_pinned(void);

#endif
