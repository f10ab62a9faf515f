// The one place runner forks. Kept small: everything that can be done in Swift is.
#define _GNU_SOURCE
#include "runner_shim.h"
#include "shim_internal.h"

#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// ThreadSanitizer cannot follow a child that runs on runner's memory (CLONE_VM): its
// interceptors would update runner's shadow state from the child. Sanitizer builds fork.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RUNNER_SPAWN_BY_FORK 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define RUNNER_SPAWN_BY_FORK 1
#endif

#ifndef P_PIDFD
#define P_PIDFD 3
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
static pid_t cached_pid;

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// Shared with the child through CLONE_VM: the parent is suspended (CLONE_VFORK) until the
// child execs or exits, so the child can report a failure by plain stores, no pipe needed. A
// forked child has its own copy and reports through `report_fd` instead.
struct child_args {
  const char *path;
  char *const *argv;
  char *const *envp;
  const char *cwd;
  int devnull_fd, stdout_w, stderr_w, watchdog_fd, report_fd;
  pid_t parent;
  volatile int error, stage;
  // Set when clone3 already reset every handler (CLONE_CLEAR_SIGHAND): only runner's SIG_IGNs are left.
  int handlers_cleared;
  // A traced child's end of the socket its seccomp listener goes to (runner_trace_child); -1.
  int trace_socket;
  // A Landlock ruleset the child restricts itself by (`sandbox: strict`); -1.
  int sandbox_fd;
  // Descriptors the child keeps across exec (a jobserver's), or -1.
  int inherit[2];
  // The mask the child sets back just before exec, when the parent bound it to its own CPU
  // (spawn_cpu.c); NULL otherwise.
  const cpu_set_t *affinity;
};

// Set by runner_spawn_inherit for the next spawn on this thread.
static __thread int next_inherit[2] = {-1, -1};

void runner_spawn_inherit(int first, int second) {
  next_inherit[0] = first;
  next_inherit[1] = second;
}

static void take_inherit(struct child_args *a) {
  a->inherit[0] = next_inherit[0];
  a->inherit[1] = next_inherit[1];
  next_inherit[0] = next_inherit[1] = -1;
}

static int child_fail(struct child_args *a, int stage) {
  int error = errno;
  a->error = error;
  a->stage = stage;
  if (a->report_fd >= 0) {
    int record[2] = {stage, error};
    if (write(a->report_fd, record, sizeof record) < 0) {}
  }
  _exit(127);
}

// Runs on runner's memory with a private fd table and signal-handler table. Only
// async-signal-safe system calls; no malloc, no locks.
// The soft limit runner started with, given back to every child (0: not raised).
static struct rlimit original_files;
static int files_raised;

static _Atomic int pipe_size;

void runner_set_pipe_size(int bytes) { pipe_size = bytes; }

int runner_grow_pipe(int fd) {
  int size = pipe_size;
  if (size <= 0) return 0;
  return fcntl(fd, F_SETPIPE_SZ, size) >= 0;  // a refusal leaves the default: no harm
}

void runner_reclaim_terminal(void) {
  if (!isatty(0)) return;
  sigset_t ttou, old;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  pthread_sigmask(SIG_BLOCK, &ttou, &old);
  tcsetpgrp(0, getpgrp());
  pthread_sigmask(SIG_SETMASK, &old, NULL);
}

const void *runner_memrchr(const void *s, int c, size_t n) { return memrchr(s, c, n); }

int runner_memfd(const char *name) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

long runner_raise_fd_limit(void) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -errno;
  if (limit.rlim_cur >= limit.rlim_max) return (long)limit.rlim_cur;
  original_files = limit;
  limit.rlim_cur = limit.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) return -errno;
  files_raised = 1;
  return (long)limit.rlim_cur;
}

// Signals ignored when runner started (`nohup runner`): tasks keep ignoring them.
static _Atomic unsigned long kept_ignored;

void runner_keep_ignored(int sig) { kept_ignored |= 1UL << sig; }

// Runner ignores these to watch them; a task gets them with their defaults.
static int reset_when_ignored(int sig) {
  if (sig == SIGPIPE || sig == SIGINT || sig == SIGTERM || sig == SIGQUIT) return 1;
  if (sig == SIGHUP || sig == SIGTSTP) return !(kept_ignored & (1UL << sig));
  return 0;
}

static int child_main(void *p) {
  struct child_args *a = p;
  // All signals are blocked (the parent did it). A handler runner installed must not run here
  // on runner's memory once we unblock, and runner's SIG_IGN for SIGPIPE/SIGINT/... must not
  // leak into tasks, so reset those before unblocking.
  for (int sig = 1; sig < _NSIG && !a->handlers_cleared; sig++) {
    struct sigaction sa;
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0) continue;
    if (sa.sa_handler == SIG_DFL) continue;
    if (sa.sa_handler == SIG_IGN && !reset_when_ignored(sig)) continue;
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
  }
  if (a->handlers_cleared) {
    // Exec keeps an ignored signal ignored; these a task must get with their defaults.
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    if (reset_when_ignored(SIGHUP)) sigaction(SIGHUP, &sa, NULL);
    if (reset_when_ignored(SIGTSTP)) sigaction(SIGTSTP, &sa, NULL);
  }
  // Own group: cancellation kills the task's grandchildren with one kill(-pgid).
  if (setpgid(0, 0) != 0) child_fail(a, RUNNER_STAGE_SETUP);
  // Listed before anything of the task runs: it cannot start a process the watchdog misses.
  runner_watchdog_send(a->watchdog_fd, (int32_t)getpid());
  // The direct child dies with runner's reactor thread, even on SIGKILL. The getppid check
  // closes the race where runner died before prctl ran.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(a, RUNNER_STAGE_SETUP);
  if (getppid() != a->parent) _exit(127);
  if (a->devnull_fd < 0) {
    // Interactive: runner's own stdio; the terminal's foreground is this group (every signal
    // is still blocked here, SIGTTOU included, so tcsetpgrp from the background works).
    if (isatty(0)) tcsetpgrp(0, getpid());
  } else if (dup2(a->devnull_fd, 0) < 0 || dup2(a->stdout_w, 1) < 0 || dup2(a->stderr_w, 2) < 0) {
    child_fail(a, RUNNER_STAGE_SETUP);
  }
  // Another library in runner may have opened fds without O_CLOEXEC; a stray pipe end in a
  // task would keep some other task's output open. Best effort (needs Linux 5.11).
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  for (int i = 0; i < 2; i++) {
    if (a->inherit[i] >= 0 && fcntl(a->inherit[i], F_SETFD, 0) != 0) child_fail(a, RUNNER_STAGE_SETUP);
  }
  // "." is where runner already is: no path lookup for the common case.
  if (a->cwd && strcmp(a->cwd, ".") != 0 && chdir(a->cwd) != 0) child_fail(a, RUNNER_STAGE_CHDIR);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  if (files_raised) setrlimit(RLIMIT_NOFILE, &original_files);
  if (a->sandbox_fd >= 0) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(a, RUNNER_STAGE_SETUP);
    if (syscall(SYS_landlock_restrict_self, a->sandbox_fd, 0) != 0) child_fail(a, RUNNER_STAGE_SETUP);
    close(a->sandbox_fd);
  }
  runner_unpin(a->affinity);
  // Last: from here on every file system call waits for runner's tracer thread.
  if (a->trace_socket >= 0) runner_trace_child(a->trace_socket);
  execve(a->path, a->argv, a->envp);
  return child_fail(a, RUNNER_STAGE_EXEC);
}

int runner_pipe(int fds[2]) {
  // Runner's pipe ends must be >= 3 (runner may have started with one of 0, 1, 2 closed), or
  // the child's dup2 onto 0/1/2 would clobber them.
  if (pipe2(fds, O_CLOEXEC) != 0) return -errno;
  for (int i = 0; i < 2; i++) {
    if (fds[i] > 2) continue;
    int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    close(fds[i]);
    if (moved < 0) {
      close(fds[1 - i]);
      return -saved;
    }
    fds[i] = moved;
  }
  return 0;
}

static int make_pipe(int fds[2]) {
  int rc = runner_pipe(fds);
  if (rc != 0) return rc;
  // Only runner's end is non-blocking; the task's end must behave like a normal stdout.
  fcntl(fds[0], F_SETFL, O_NONBLOCK);
  return 0;
}

static int make_pipes(int out[2], int err[2], struct runner_child *child) {
  memset(child, 0, sizeof *child);
  child->pid = child->pidfd = child->stdout_fd = child->stderr_fd = -1;
  child->stage = RUNNER_STAGE_PARENT;
  int rc = make_pipe(out);
  if (rc != 0) return child->error = -rc, rc;
  rc = make_pipe(err);
  if (rc != 0) {
    close(out[0]);
    close(out[1]);
    return child->error = -rc, rc;
  }
  return 0;
}

static int finish(int out[2], int err[2], pid_t pid, int pidfd, struct runner_child *child) {
  close(out[1]);
  close(err[1]);
  child->pid = pid;
  child->pidfd = pidfd;
  child->stdout_fd = out[0];
  child->stderr_fd = err[0];
  child->stage = RUNNER_STAGE_NONE;
  child->error = 0;
  return 0;
}

static void fail_after_fork(int out[2], int err[2], pid_t pid, int pidfd) {
  close(out[0]);
  close(out[1]);
  close(err[0]);
  close(err[1]);
  if (pidfd >= 0) {
    siginfo_t info;
    waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED);
    close(pidfd);
  } else if (pid > 0) {
    waitpid(pid, NULL, 0);
  }
}

#if defined(__x86_64__) && !RUNNER_SPAWN_BY_FORK
#define RUNNER_HAVE_CLONE3 1
#ifndef CLONE_CLEAR_SIGHAND
#define CLONE_CLEAR_SIGHAND 0x100000000ULL
#endif

// struct clone_args, version 0 (64 bytes), as the kernel reads it.
struct clone3_args {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

// Set once clone3 turned out to be missing (before Linux 5.5, or filtered by seccomp).
static int clone3_unavailable;

// clone3 with `fn(arg)` run on the stack the arguments name. glibc has no clone3 wrapper, and
// the child cannot return into C code (its stack is not the frame the compiler set up), so the
// child's side is in assembly: call fn, then exit with its result. Returns the pid or -errno.
static long clone3_call(struct clone3_args *args, int (*fn)(void *), void *arg) {
  long result;
  register void *argument __asm__("r8") = arg;
  __asm__ volatile("syscall\n\t"
                   "testq %%rax, %%rax\n\t"
                   "jnz 1f\n\t"
                   "xorl %%ebp, %%ebp\n\t"
                   "movq %%r8, %%rdi\n\t"
                   "callq *%%rdx\n\t"
                   "movl %%eax, %%edi\n\t"
                   "movl $60, %%eax\n\t" // SYS_exit
                   "syscall\n\t"
                   "hlt\n"
                   "1:\n\t"
                   : "=a"(result)
                   : "0"((long)SYS_clone3), "D"(args), "S"(sizeof *args), "d"(fn), "r"(argument)
                   : "rcx", "r11", "memory");
  return result;
}
#endif

// Runner's pid, read once: glibc makes getpid a system call, and runner never forks a process
// that goes on spawning (the watchdog does not).
static pid_t self_pid(void) {
  pid_t pid = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);
  if (pid == 0) {
    pid = getpid();
    __atomic_store_n(&cached_pid, pid, __ATOMIC_RELAXED);
  }
  return pid;
}

void runner_accept_child_exits(void) {
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  pthread_sigmask(SIG_UNBLOCK, &child, NULL);
}

int runner_last_spawn_pinned(void) {
#if RUNNER_SPAWN_BY_FORK
  return -1;
#else
  return runner_spawn_was_pinned();
#endif
}

int runner_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                 struct runner_child *child) {
#if RUNNER_SPAWN_BY_FORK
  return runner_fork_spawn(path, argv, envp, cwd, devnull_fd, child);
#else
  int out[2], err[2];
  int rc = make_pipes(out, err, child);
  if (rc != 0) return rc;

  int watchdog = runner_watchdog_fd();
  struct child_args args = {path, argv, envp, cwd, devnull_fd, out[1], err[1], watchdog, -1, self_pid(), 0, 0, 0, -1, -1};
  take_inherit(&args);
  // The child runs on this buffer while this frame is suspended by CLONE_VFORK.
  char stack[32 * 1024] __attribute__((aligned(16)));

  // Block everything so no handler runs in the child before it resets dispositions. SIGCHLD
  // stays as it was: the child has no children of its own before it execs, so none can reach
  // it, and blocking it here would let another task's exit wake runner's main thread (see
  // runner_accept_child_exits).
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  args.affinity = runner_pin_for_spawn();
  int64_t started = runner_now_ns();
  int pidfd = -1;
  pid_t pid = -1;
  errno = ENOSYS;
#if RUNNER_HAVE_CLONE3
  // CLONE_CLEAR_SIGHAND resets runner's handlers in the kernel, sparing the child a sigaction
  // call per signal (64 system calls while this thread waits).
  if (!__atomic_load_n(&clone3_unavailable, __ATOMIC_RELAXED)) {
    struct clone3_args cl = {
        .flags = CLONE_VM | CLONE_VFORK | CLONE_PIDFD | CLONE_CLEAR_SIGHAND,
        .pidfd = (uint64_t)(uintptr_t)&pidfd,
        .exit_signal = SIGCHLD,
        .stack = (uint64_t)(uintptr_t)stack,
        .stack_size = sizeof stack,
    };
    args.handlers_cleared = 1;
    long result = clone3_call(&cl, child_main, &args);
    if (result >= 0) {
      pid = (pid_t)result;
    } else {
      errno = (int)-result;
      args.handlers_cleared = 0;
      if (errno == ENOSYS || errno == EINVAL || errno == E2BIG) {
        __atomic_store_n(&clone3_unavailable, 1, __ATOMIC_RELAXED);
      }
    }
  }
  if (pid < 0 && (errno == ENOSYS || errno == EINVAL || errno == E2BIG))
#endif
    pid = clone(child_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &args, &pidfd);
  if (pid < 0 && errno == EINVAL) {
    // Kernels before 5.2 have no CLONE_PIDFD.
    pid = clone(child_main, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
    if (pid > 0) pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  }
  int clone_errno = errno;
  runner_spawn_waited(runner_now_ns() - started);
  runner_unpin(args.affinity);
  pthread_sigmask(SIG_SETMASK, &old, NULL);

  if (pid < 0) {
    fail_after_fork(out, err, -1, -1);
    child->error = clone_errno;
    return -clone_errno;
  }
  if (args.stage != RUNNER_STAGE_NONE || pidfd < 0) {
    int stage = args.stage != RUNNER_STAGE_NONE ? args.stage : RUNNER_STAGE_PARENT;
    int error = args.stage != RUNNER_STAGE_NONE ? args.error : clone_errno;
    if (pidfd < 0) kill(pid, SIGKILL);
    fail_after_fork(out, err, pid, pidfd);
    child->stage = stage;
    child->error = error;
    return -error;
  }
  return finish(out, err, pid, pidfd, child);
#endif
}

static int fork_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                      int sandbox_fd, struct runner_child *child, int sockets[2], int *trace, int *trace_error);

int runner_fork_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                      struct runner_child *child) {
  int trace = -1, trace_error = 0;
  return fork_spawn(path, argv, envp, cwd, devnull_fd, -1, child, NULL, &trace, &trace_error);
}

int runner_traced_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                        int sandbox_fd, struct runner_child *child, int *trace, int *trace_error) {
  int sockets[2];
  *trace = -1;
  *trace_error = 0;
  int available = runner_trace_available();
  if (available != 0) {
    *trace_error = -available;
    return fork_spawn(path, argv, envp, cwd, devnull_fd, sandbox_fd, child, NULL, trace, trace_error);
  }
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    *trace_error = errno;
    return fork_spawn(path, argv, envp, cwd, devnull_fd, sandbox_fd, child, NULL, trace, trace_error);
  }
  return fork_spawn(path, argv, envp, cwd, devnull_fd, sandbox_fd, child, sockets, trace, trace_error);
}

// Forks; with `sockets`, the child installs the tracing filter and sends its listener on
// sockets[1], which this side receives on sockets[0] and hands to the tracer thread before it
// waits for the exec (which the tracer thread lets through).
static int fork_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                      int sandbox_fd, struct runner_child *child, int sockets[2], int *trace, int *trace_error) {
  int out[2], err[2], report[2];
  int rc = make_pipes(out, err, child);
  if (rc != 0) {
    if (sockets) close(sockets[0]), close(sockets[1]);
    return rc;
  }
  if ((rc = make_pipe(report)) != 0) {
    if (sockets) close(sockets[0]), close(sockets[1]);
    fail_after_fork(out, err, -1, -1);
    child->error = -rc;
    return rc;
  }
  fcntl(report[0], F_SETFL, 0); // the parent waits on it
  int watchdog = runner_watchdog_fd();
  struct child_args args = {
      path, argv, envp, cwd, devnull_fd, out[1], err[1], watchdog, report[1], self_pid(), 0, 0, 0,
      sockets ? sockets[1] : -1, sandbox_fd};
  take_inherit(&args);
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pid_t pid = fork();
  if (pid == 0) child_main(&args);
  int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(report[1]);
  if (sockets) {
    close(sockets[1]);
    if (pid > 0) {
      int listener = -1;
      int error = runner_trace_receive(sockets[0], &listener);
      if (error == 0) {
        *trace = runner_trace_attach(listener);
        if (*trace < 0) *trace_error = -*trace, *trace = -1;
      } else {
        // The child failed before it could say (its failure is in the report), or could not
        // install the filter (EBUSY: a runner it runs under traces it already) and runs untraced.
        *trace_error = error > 0 ? error : ECHILD;
      }
    }
    close(sockets[0]);
  }
  if (pid < 0) {
    close(report[0]);
    fail_after_fork(out, err, -1, -1);
    child->error = fork_errno;
    return -fork_errno;
  }
  // End of file: the child exec'd (the pipe is O_CLOEXEC). A record: where and why it failed.
  int record[2];
  ssize_t count;
  do count = read(report[0], record, sizeof record);
  while (count < 0 && errno == EINTR);
  close(report[0]);
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  int pidfd_errno = errno;
  if (count == (ssize_t)sizeof record || pidfd < 0) {
    if (pidfd < 0) kill(pid, SIGKILL);
    fail_after_fork(out, err, pid, pidfd);
    child->stage = pidfd < 0 ? RUNNER_STAGE_PARENT : record[0];
    child->error = pidfd < 0 ? pidfd_errno : record[1];
    return -child->error;
  }
  return finish(out, err, pid, pidfd, child);
}

int runner_posix_spawn(const char *path, char *const argv[], char *const envp[], const char *cwd, int devnull_fd,
                       struct runner_child *child) {
  int out[2], err[2];
  int rc = make_pipes(out, err, child);
  if (rc != 0) return rc;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, devnull_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  if (cwd) posix_spawn_file_actions_addchdir_np(&actions, cwd);
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pid_t pid;
  int error = posix_spawn(&pid, path, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    fail_after_fork(out, err, -1, -1);
    child->stage = RUNNER_STAGE_EXEC;
    child->error = error;
    return -error;
  }
  sigset_t pipe_signal, old;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &old);
  runner_watchdog_send(runner_watchdog_fd(), pid);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pidfd < 0) {
    error = errno;
    kill(pid, SIGKILL);
    fail_after_fork(out, err, pid, -1);
    child->error = error;
    return -error;
  }
  return finish(out, err, pid, pidfd, child);
}

int runner_reap(int pidfd, int *kind, int *value) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int rc;
  do rc = waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) return -errno;
  if (info.si_pid == 0) return 0;
  *kind = info.si_code == CLD_EXITED ? 1 : 2;
  *value = info.si_status;
  return 1;
}

int runner_kill_group(int pgid, int sig) {
  if (pgid <= 1) return -EINVAL; // kill(-1) or kill(0) would hit far more than one task
  return kill(-pgid, sig) == 0 ? 0 : -errno;
}

int runner_epoll_create(void) {
  int fd = epoll_create1(EPOLL_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

int runner_epoll_add(int epfd, int fd, uint64_t token) {
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = token};
  return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : -errno;
}

int runner_epoll_remove(int epfd, int fd) {
  return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL) == 0 ? 0 : -errno;
}

/* Nanoseconds as epoll_wait's milliseconds, rounded up, at most INT_MAX. */
static int timeout_ms(int64_t ns) {
  int64_t ms = ns / 1000000 + (ns % 1000000 != 0);
  return ms > INT_MAX ? INT_MAX : (int)ms;
}

int runner_pipe_capacity(int fd) {
  int size = fcntl(fd, F_GETPIPE_SZ);
  return size >= 0 ? size : 0;
}

/* 0 unknown, 1 epoll_pwait2 works, -1 it does not (before Linux 5.11, or a seccomp filter). */
static _Atomic int pwait2_state = 0;

int runner_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int64_t timeout_ns) {
  struct epoll_event buffer[64];
  if (max > 64) max = 64;
  int n;
  if (timeout_ns > 0 && timeout_ns % 1000000 != 0 && pwait2_state >= 0) {
    struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
    n = epoll_pwait2(epfd, buffer, max, &timeout, NULL);
    if (n < 0 && errno != EINTR) {
      /* ENOSYS before Linux 5.11; EPERM where a seccomp filter does not know it. */
      pwait2_state = -1;
      n = epoll_wait(epfd, buffer, max, timeout_ms(timeout_ns));
    }
  } else {
    n = epoll_wait(epfd, buffer, max, timeout_ns < 0 ? -1 : timeout_ms(timeout_ns));
  }
  if (n < 0) return -errno;
  for (int i = 0; i < n; i++) {
    tokens[i] = buffer[i].data.u64;
    events[i] = ((buffer[i].events & EPOLLIN) ? 1u : 0u) | ((buffer[i].events & (EPOLLHUP | EPOLLERR)) ? 2u : 0u);
  }
  return n;
}

int runner_eventfd_create(void) {
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  return fd >= 0 ? fd : -errno;
}

void runner_eventfd_signal(int fd) {
  uint64_t one = 1;
  // EAGAIN means the counter is saturated: the loop is already due to wake.
  while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void runner_eventfd_drain(int fd) {
  uint64_t value;
  while (read(fd, &value, sizeof value) < 0 && errno == EINTR) {}
}

int runner_open_devnull(void) {
  int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

long runner_read(int fd, void *buffer, unsigned long count) {
  ssize_t n;
  do n = read(fd, buffer, count);
  while (n < 0 && errno == EINTR);
  return n >= 0 ? (long)n : -(long)errno;
}

void runner_close(int fd) {
  // Linux releases the fd even when close reports EINTR; retrying could close a reused fd.
  close(fd);
}

int64_t runner_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int runner_is_executable(const char *path) {
  struct stat st;
  return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int runner_count_open_fds(void) {
  DIR *dir = opendir("/proc/self/fd");
  if (!dir) return -errno;
  int count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL)
    if (entry->d_name[0] != '.') count++;
  closedir(dir);
  return count - 1; // the directory's own fd
}

int runner_pipe_count(int fd) {
  int count = 0;
  return ioctl(fd, FIONREAD, &count) == 0 ? count : -errno;
}

