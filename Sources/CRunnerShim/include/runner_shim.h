#ifndef RUNNER_SHIM_H
#define RUNNER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// Child-process and event-loop primitives for runner's process reactor.
// Everything here returns 0 (or a non-negative value) on success and -errno on failure,
// so Swift never has to read the thread-local errno.

/// Where a failed spawn went wrong, so the caller can word the error.
enum runner_spawn_stage {
  RUNNER_STAGE_NONE = 0,   // the child exec'd
  RUNNER_STAGE_PARENT = 1, // pipe2 / clone failed in runner itself
  RUNNER_STAGE_SETUP = 2,  // setpgid, prctl, dup2 in the child
  RUNNER_STAGE_CHDIR = 3,  // chdir to the working directory
  RUNNER_STAGE_EXEC = 4,   // execve
};

struct runner_child {
  int pid;       // also the process-group id
  int pidfd;     // O_CLOEXEC, readable when the child exits
  int stdout_fd; // read end, O_CLOEXEC | O_NONBLOCK
  int stderr_fd; // read end, O_CLOEXEC | O_NONBLOCK
  int error;     // errno of the failure, 0 on success
  int stage;     // enum runner_spawn_stage
};

/// Raises the soft limit on open files to the hard limit (as Go's runtime does): a run of
/// hundreds of tasks at once needs a few descriptors each. Children get the original soft
/// limit back before they exec (a program may use select(), which cannot see fds >= 1024).
/// Returns the new soft limit, or -errno.
long runner_raise_fd_limit(void);

// glibc's memrchr (a GNU extension Swift's Glibc module does not show): the last `c` in the
// first `n` bytes of `s`, or NULL.
const void *runner_memrchr(const void *s, int c, size_t n);

/// The capacity runner asks for on the pipe of a task's stdout once it has carried the kernel's
/// 64 KiB (0: never). A big pipe lets a chatty task write on while runner sleeps, with fewer
/// wake-ups for both; a quiet task never pays for one. Set by the scheduler from the run's
/// concurrency: an unprivileged user's pipes count against fs.pipe-user-pages-soft, past which
/// every new pipe of that user is cut to two pages.
void runner_set_pipe_size(int bytes);

/// Gives the pipe at `fd` the size `runner_set_pipe_size` set. 1 when it did, 0 when there is
/// none to give or the kernel refused (the pipe keeps its size).
int runner_grow_pipe(int fd);

/// A signal ignored when runner started (SIGHUP under nohup, SIGTSTP): tasks keep it ignored;
/// otherwise they get SIGHUP and SIGTSTP with their defaults although runner ignores them to
/// watch them.
void runner_keep_ignored(int sig);

/// Makes runner's process group the foreground group of the terminal on stdin again, after an
/// interactive task (SIGTTOU blocked meanwhile). Nothing when stdin is no terminal.
void runner_reclaim_terminal(void);

/// An anonymous file in memory (memfd_create, close-on-exec), or -errno.
int runner_memfd(const char *name);

/// Starts `path` with `argv` and `envp` (both NULL-terminated) in a new process group, stdin
/// from `devnull_fd`, stdout/stderr to fresh pipes, in `cwd` (NULL: inherit), with
/// `devnull_fd` -1 for an interactive task: the child keeps runner's stdin, stdout and stderr
/// (the pipes still exist and see end of file at exec) and, when stdin is a terminal, makes
/// its group the terminal's foreground group (`runner_reclaim_terminal` takes it back). With
/// PR_SET_PDEATHSIG(SIGKILL) tied to the calling thread and a default signal mask. The group is
/// registered with the orphan watchdog (started on the first spawn) before the child execs.
/// Returns 0 and fills `out`, or -errno with `out->stage` set (no fd is left open then).
int runner_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                 struct runner_child *out);

/// Spawn pinning (spawn_cpu.c), for tests. A spawn that waited milliseconds for its child's
/// exec (the child started on a CPU another program held) makes the calling thread's next
/// spawns start their child on the thread's CPU; `runner_spawn_stalled` does as such a spawn
/// does. `runner_last_spawn_pinned`: 1 when the thread's last runner_spawn started its child
/// pinned, 0 when not, -1 in builds that spawn by fork (sanitizers), which never pin.
void runner_spawn_stalled(void);
int runner_last_spawn_pinned(void);

/// The next spawn on the calling thread (runner_spawn, runner_fork_spawn, runner_traced_spawn)
/// passes these two descriptors, open in runner, to the child across exec (FD_CLOEXEC cleared
/// in the child only); -1 for none. A jobserver's pipe ends. Applies to one spawn.
void runner_spawn_inherit(int first, int second);

/// Same contract as `runner_spawn`, through fork instead of clone(CLONE_VM | CLONE_VFORK): slower
/// (it copies runner's page tables), but tools that must follow every write to memory, such as
/// ThreadSanitizer, can follow a forked child. `runner_spawn` uses it in sanitizer builds.
int runner_fork_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                      struct runner_child *out);

/// Same contract as `runner_spawn` but through posix_spawn (no PDEATHSIG); kept for benchmarks.
int runner_posix_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                       struct runner_child *out);

/// Unblocks SIGCHLD on the calling thread, the one that spawns. A child's exit signal goes to the
/// thread that started it; while that thread blocks SIGCHLD, the kernel queues the signal for the
/// process and wakes another thread that does not block it (runner's main thread, parked in
/// sigsuspend) once per task. Unblocked, with SIGCHLD's default disposition, the kernel drops it.
// As runner_fork_spawn, with the child's process tree traced (tracer.c): *trace is a handle
// for runner_trace_take, or -1 with *trace_error the errno of why the child runs untraced.
// `sandbox_fd`, a Landlock ruleset or -1, is put on the child before exec.
int runner_traced_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                        int sandbox_fd, struct runner_child *out, int *trace, int *trace_error);

// Landlock (sandbox.c): the kernel's version of it, or -errno when it has none.
int runner_sandbox_abi(void);

enum { RUNNER_SANDBOX_READ = 0, RUNNER_SANDBOX_LIST = 1, RUNNER_SANDBOX_WRITE = 2, RUNNER_SANDBOX_DEVICE = 3 };

// A ruleset granting kinds[i] beneath paths[i] (a file: the file's part of it; a path not
// there: nothing): its fd (close-on-exec), or -errno.
int runner_sandbox_ruleset(const char *const paths[], const int kinds[], int count);

// 0 when tracing can work here (seccomp user notification), else -errno.
int runner_trace_available(void);

// Stops recording `trace` (its processes' calls go on, unrecorded) and hands over its records,
// `kind path NUL` each, to be freed with free(); returns their length, -1 for no such trace.
// *incomplete is set when a call could not be read or resolved.
long runner_trace_take(int trace, char **records, int *incomplete);

void runner_accept_child_exits(void);

/// Reaps the exited child behind `pidfd` without blocking. Returns 1 and sets
/// `*kind` (1 exited, 2 signaled) and `*value` when reaped, 0 if still running, -errno on error.
int runner_reap(int pidfd, int *kind, int *value);

/// kill(-pgid, sig); returns 0 or -errno (-ESRCH when the group has no members left).
int runner_kill_group(int pgid, int sig);

// Thin event-loop wrappers: epoll_event is a packed struct that Swift cannot import safely.
int runner_epoll_create(void);
int runner_epoll_add(int epfd, int fd, uint64_t token);
/// Waits up to `timeout_ms` (-1 forever); fills `tokens[i]` and `events[i]` (EPOLLIN=1, EPOLLHUP/ERR=2).
/* A pipe's capacity in bytes (F_GETPIPE_SZ); 0 if unknown. */
int runner_pipe_capacity(int fd);
/* Removes fd from the epoll set (a pipe set aside for a moment); 0 or -errno. */
int runner_epoll_remove(int epfd, int fd);
/* Waits at most timeout_ns nanoseconds (-1: no limit; below a millisecond with epoll_pwait2
   where the kernel has it). */
int runner_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int64_t timeout_ns);
int runner_eventfd_create(void);
void runner_eventfd_signal(int fd);
void runner_eventfd_drain(int fd);
int runner_open_devnull(void);

/// The bytes waiting in a pipe or fifo (FIONREAD), or -errno.
int runner_pipe_count(int fd);

/// A pipe, both ends close-on-exec and numbered 3 or more (pipe2, which Swift's Glibc module
/// does not show): 0 or -errno.
int runner_pipe(int fds[2]);
/// read(2) that retries EINTR; returns bytes, 0 at EOF, or -errno (-EAGAIN when empty).
long runner_read(int fd, void *buffer, unsigned long count);
void runner_close(int fd);
/// CLOCK_MONOTONIC in nanoseconds.
int64_t runner_now_ns(void);
/// Whether `path` is a regular file runner may execute (access X_OK + S_ISREG).
int runner_is_executable(const char *path);
/// The orphan watchdog's pid (starting it if needed), -1 if it could not be started; for tests.
///
/// The watchdog is a forked helper, outside runner's session, holding a list of the process
/// groups runner started. When runner dies, however it dies, the watchdog sends SIGTERM to every
/// group still alive, SIGKILL 2 s later, and exits.
int runner_watchdog_pid(void);
/// Number of open fds of this process (counts /proc/self/fd); for tests.
int runner_count_open_fds(void);

#endif
