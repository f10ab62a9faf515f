// The orphan watchdog: a forked helper that outlives runner just long enough to end the process
// groups runner started, however runner died (SIGKILL, OOM killer, a crash).
//
// PR_SET_PDEATHSIG only reaches runner's direct children; a task's background process
// (`sleep 100 &`, a double-forked daemon) would be reparented and live on. The watchdog keeps
// the list of live groups: every spawned child writes its group id to the watchdog's pipe
// before it execs, and the watchdog drops groups that have no member left every half second.
// When the pipe reaches end of file — every copy of runner's end is closed, which the kernel does
// when runner dies, any way — the watchdog sends SIGTERM (and SIGCONT, so a stopped group can act
// on it) to each group still alive, SIGKILL after a grace period, and exits.
//
// A pipe, not a socket: a pipe packs 4-byte records into pages (16 384 fit in the default 64 KiB),
// where an AF_UNIX socket charges each send a whole buffer and blocks after 278. Runner sends no
// "gone" records (they would cost it system calls per task): a group id cannot be reused within
// the half second before a prune unless the kernel cycles through its whole pid range
// (/proc/sys/kernel/pid_max) in that time.
//
// The child only makes system calls: it is forked from a multithreaded process, and never
// returns to Swift.
#define _GNU_SOURCE
#include "runner_shim.h"
#include "shim_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

enum {
  WATCHDOG_FD = 3,               // the pipe's read end, in the watchdog
  WATCHDOG_GRACE_MS = 2000,      // between SIGTERM and SIGKILL after runner died
  WATCHDOG_PRUNE_MS = 500,       // how often the list drops groups that ended on their own
  WATCHDOG_BATCH_MS = 50,        // lets records accumulate: one wake-up per batch, not per spawn
  WATCHDOG_CAPACITY = 64 * 1024, // live groups at once; more are not tracked
};

static pthread_once_t watchdog_once = PTHREAD_ONCE_INIT;
static int watchdog_pipe = -1; // runner's (write) end, O_CLOEXEC
static int watchdog_child = -1;

// Only the watchdog writes these: in runner they stay untouched zero pages.
static int32_t groups[WATCHDOG_CAPACITY];
static int group_count;

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

static void add_group(int32_t pgid) {
  if (group_count < WATCHDOG_CAPACITY) groups[group_count++] = pgid;
}

static void remove_group(int32_t pgid) {
  for (int i = group_count - 1; i >= 0; i--) {
    if (groups[i] != pgid) continue;
    groups[i] = groups[--group_count];
    return;
  }
}

// Drops groups with no member left. A member that is a zombie still counts (kill succeeds):
// that costs at most a grace period, never a wrong kill.
static void prune(void) {
  for (int i = group_count - 1; i >= 0; i--) {
    if (kill(-groups[i], 0) == 0 || errno == EPERM) continue;
    groups[i] = groups[--group_count];
  }
}

static void signal_all(int sig) {
  for (int i = 0; i < group_count; i++) kill(-groups[i], sig);
}

static void terminate_all(void) {
  prune();
  if (group_count == 0) return;
  signal_all(SIGTERM);
  signal_all(SIGCONT);
  int64_t deadline = now_ms() + WATCHDOG_GRACE_MS;
  while (group_count > 0 && now_ms() < deadline) {
    sleep_ms(20);
    prune();
  }
  signal_all(SIGKILL);
}

static unsigned long parse_number(const char **cursor) {
  unsigned long value = 0;
  while (**cursor >= '0' && **cursor <= '9') value = value * 10 + (unsigned long)(*(*cursor)++ - '0');
  return value;
}

// `ps aux` and `pgrep -f` read a process's argv from its memory, which is still runner's: the
// watchdog would pass for a second runner. Overwrites this copy (private since the fork) with
// its name, but only after /proc/self/cmdline confirms where the arguments are.
static void rename_command_line(void) {
  char stat[1024], line[4096];
  int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t count = read(fd, stat, sizeof stat - 1);
  close(fd);
  if (count <= 0) return;
  stat[count] = 0;
  // "pid (comm) state …": after the last ')', field 3 onwards; arg_start and arg_end are 48 and 49.
  const char *cursor = strrchr(stat, ')');
  if (!cursor) return;
  for (int field = 2; field < 48 && *cursor; cursor++)
    if (*cursor == ' ') field++;
  unsigned long start = parse_number(&cursor);
  if (*cursor++ != ' ') return;
  unsigned long end = parse_number(&cursor);
  if (start == 0 || end <= start || end - start > sizeof line) return;
  fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  count = read(fd, line, sizeof line);
  close(fd);
  volatile char *arguments = (volatile char *)start;
  if (count != (ssize_t)(end - start)) return;
  for (ssize_t i = 0; i < count; i++)
    if (arguments[i] != line[i]) return;
  static const char name[] = "runner-watchdog";
  for (ssize_t i = 0; i < count; i++) arguments[i] = i < (ssize_t)sizeof name - 1 ? name[i] : 0;
}

// Leaves runner's session (a terminal's Ctrl-C, a hangup or a signal to runner's process group
// must not reach it), its descriptors (a task's pipe or runner's stdout held open here would
// keep a reader waiting) and its working directory.
static void detach(int pipe_end) {
  for (int sig = 1; sig < _NSIG; sig++) {
    struct sigaction sa;
    if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa) != 0) continue;
    if (sa.sa_handler == SIG_DFL) continue;
    sa.sa_handler = SIG_DFL; // runner's handlers would run Swift code in this copy of runner
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
  }
  // Only the end of file from runner's side may end the watchdog (or SIGKILL).
  int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2};
  for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) signal(ignored[i], SIG_IGN);
  setsid();
  prctl(PR_SET_NAME, "runner-watchdog");
  rename_command_line();
  if (chdir("/") != 0) {}
  if (pipe_end != WATCHDOG_FD) {
    dup2(pipe_end, WATCHDOG_FD);
    close(pipe_end);
  }
  fcntl(WATCHDOG_FD, F_SETFD, 0);
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; fd++)
    if (null >= 0 && null != fd) dup2(null, fd);
  if (syscall(SYS_close_range, WATCHDOG_FD + 1, ~0U, 0) != 0) {
    struct rlimit limit;
    rlim_t top = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
    if (top > 65536) top = 65536;
    for (int fd = WATCHDOG_FD + 1; fd < (int)top; fd++) close(fd);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
}

__attribute__((noreturn)) static void watchdog_main(int pipe_end) {
  detach(pipe_end);
  unsigned char buffer[4096 + sizeof(int32_t)];
  size_t held = 0;
  int64_t last_prune = now_ms();
  for (;;) {
    struct pollfd entry = {.fd = WATCHDOG_FD, .events = POLLIN};
    int ready = poll(&entry, 1, group_count > 0 ? WATCHDOG_PRUNE_MS : -1);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      ssize_t count = read(WATCHDOG_FD, buffer + held, sizeof buffer - held);
      if (count == 0) break; // runner is gone
      if (count < 0 && errno != EINTR && errno != EAGAIN) break;
      if (count > 0) held += (size_t)count;
      size_t used = 0;
      for (; held - used >= sizeof(int32_t); used += sizeof(int32_t)) {
        int32_t record;
        memcpy(&record, buffer + used, sizeof record);
        if (record > 0) add_group(record);
        else if (record < 0) remove_group(-record);
      }
      memmove(buffer, buffer + used, held - used);
      held -= used;
    }
    if (now_ms() - last_prune >= WATCHDOG_PRUNE_MS || group_count == WATCHDOG_CAPACITY) {
      prune();
      last_prune = now_ms();
    }
    sleep_ms(WATCHDOG_BATCH_MS);
  }
  terminate_all();
  _exit(0);
}

static void watchdog_start(void) {
  int ends[2]; // [0] the watchdog reads, [1] runner writes
  if (pipe2(ends, O_CLOEXEC) != 0) return;
  // Runner's end must not be 0-2: a spawned child dup2s onto those before it writes its record.
  if (ends[1] <= 2) {
    int moved = fcntl(ends[1], F_DUPFD_CLOEXEC, 3);
    close(ends[1]);
    ends[1] = moved;
  }
  if (ends[1] < 0) {
    close(ends[0]);
    return;
  }
  // No runner handler may run in the child before it resets them.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  pid_t pid = fork();
  if (pid == 0) {
    close(ends[1]);
    watchdog_main(ends[0]);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  close(ends[0]);
  if (pid < 0) {
    close(ends[1]);
    return;
  }
  watchdog_pipe = ends[1];
  watchdog_child = pid;
}

int runner_watchdog_fd(void) {
  pthread_once(&watchdog_once, watchdog_start);
  return watchdog_pipe;
}

void runner_watchdog_send(int fd, int32_t record) {
  if (fd < 0) return;
  // Up to PIPE_BUF bytes go into a pipe in one piece, so concurrent writers never interleave.
  ssize_t written;
  do written = write(fd, &record, sizeof record);
  while (written < 0 && errno == EINTR);
  if (written < 0 && errno == EPIPE) {
    // The watchdog is gone. The SIGPIPE this raised is pending (signals are blocked here): take
    // it, or it would kill the task the moment it unblocks signals.
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_signal, NULL, &zero);
  }
}

int runner_watchdog_pid(void) {
  runner_watchdog_fd();
  return watchdog_child;
}
