// Watching what a task's processes do to files, without privileges: a seccomp filter, installed
// in the child just before it execs and inherited by everything it starts (forks, vforks,
// clones, exec'd interpreters, static binaries), sends each file system call to runner through
// a user-notification listener (SECCOMP_RET_USER_NOTIF, Linux 5.5). One thread of runner's
// reads the call's path from the process's memory, resolves it against the process's working
// directory or directory descriptor, records it, and lets the call go on unchanged
// (SECCOMP_USER_NOTIF_FLAG_CONTINUE). Nothing is denied but io_uring_setup, which fails with
// ENOSYS so that programs fall back to calls the filter sees.
//
// Records are `kind path NUL`: r read, w written (created, truncated, opened for writing),
// p looked up (stat, access, a directory opened), d listed, x exec'd, u removed
// (unlinked, renamed away), m a directory made.
#define _GNU_SOURCE
#include "runner_shim.h"
#include "shim_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_faccessat2
#define SYS_faccessat2 439
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

#define X32_SYSCALL_BIT 0x40000000U
// The most bytes of records one trace keeps; past it the trace is incomplete.
#define TRACE_LIMIT ((size_t)256 << 20)

// Every call that names a path, but `readlink` (compilers call it on each component of every
// header's path: two thirds of a compile's calls) and the `stat` of a descriptor (checked in
// the filter, below).
static const int traced_calls[] = {
    SYS_open,      SYS_openat,     SYS_openat2,   SYS_creat,    SYS_stat,      SYS_lstat,   SYS_access,
    SYS_faccessat, SYS_faccessat2, SYS_execve,    SYS_execveat, SYS_getdents64, SYS_getdents, SYS_unlink,
    SYS_unlinkat,  SYS_rmdir,      SYS_rename,    SYS_renameat, SYS_renameat2, SYS_link,    SYS_linkat,
    SYS_symlink,   SYS_symlinkat,  SYS_mkdir,     SYS_mkdirat,  SYS_truncate,
};
#define TRACED_COUNT ((int)(sizeof traced_calls / sizeof traced_calls[0]))

// The filter, built with jumps to labels (instruction indices) resolved as it is emitted.
struct program {
  struct sock_filter code[TRACED_COUNT + 20];
  int count;
};

static void emit(struct program *p, unsigned short code, unsigned k) {
  p->code[p->count++] = (struct sock_filter){code, 0, 0, k};
}

// A conditional jump to the instructions at `yes` and `no` (absolute indices).
static void jump(struct program *p, unsigned short code, unsigned k, int yes, int no) {
  int next = p->count + 1;
  p->code[p->count++] = (struct sock_filter){code, (unsigned char)(yes - next), (unsigned char)(no - next), k};
}

// In the child, after fork and before exec: only async-signal-safe calls. Installs the filter
// and sends its listener to runner over `socket` (SCM_RIGHTS), or the errno of the failure.
void runner_trace_child(int socket) {
  // Where each part of the filter starts.
  const int calls = 7, uring = calls + TRACED_COUNT, allowed = uring + 1, refuse = allowed + 1;
  const int fstatat = refuse + 1, statx = fstatat + 2, allow = statx + 2, notify = allow + 1;
  const unsigned args = (unsigned)offsetof(struct seccomp_data, args);
  struct program p = {.count = 0};
  emit(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
  // Another architecture's calls (a 32-bit program) have other numbers: runner is told, and
  // marks the trace incomplete.
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 3, 2);
  emit(&p, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  emit(&p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
  jump(&p, BPF_JMP | BPF_JGE | BPF_K, X32_SYSCALL_BIT, notify, 5);
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_newfstatat, fstatat, 6);
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_statx, statx, calls);
  for (int i = 0; i < TRACED_COUNT; i++) {
    jump(&p, BPF_JMP | BPF_JEQ | BPF_K, (unsigned)traced_calls[i], notify, calls + i + 1);
  }
  // At `uring`.
  jump(&p, BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, refuse, allowed);
  emit(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  emit(&p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  // fstat is newfstatat(fd, "", buf, AT_EMPTY_PATH) in glibc, statx(fd, "", AT_EMPTY_PATH) in
  // Rust: no path, so no notification (the flag's low word is the argument's first).
  emit(&p, BPF_LD | BPF_W | BPF_ABS, args + 3 * 8);
  jump(&p, BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, allow, notify);
  emit(&p, BPF_LD | BPF_W | BPF_ABS, args + 2 * 8);
  jump(&p, BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, allow, notify);
  emit(&p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  emit(&p, BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
  if (p.count != notify + 1 || uring != calls + TRACED_COUNT) _exit(127);
  struct sock_fprog program = {.len = (unsigned short)p.count, .filter = p.code};

  int error = 0;
  int listener = -1;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    error = errno;
  } else {
    listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener < 0) error = errno;
  }
  struct iovec part = {.iov_base = &error, .iov_len = sizeof error};
  union {
    char bytes[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
  if (listener >= 0) {
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &listener, sizeof(int));
  }
  // The filter does not see sendmsg or close: they go on at once.
  if (sendmsg(socket, &message, MSG_NOSIGNAL) < 0) {}
  if (listener >= 0) close(listener);
  close(socket);
}

// What the child sent: 0 and its listener, or the errno of the failure (-1 for none sent).
int runner_trace_receive(int socket, int *listener) {
  int error = -1;
  struct iovec part = {.iov_base = &error, .iov_len = sizeof error};
  union {
    char bytes[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.bytes,
                           .msg_controllen = sizeof control.bytes};
  *listener = -1;
  ssize_t count;
  do count = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  while (count < 0 && errno == EINTR);
  if (count != (ssize_t)sizeof error) return -1;
  for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) memcpy(listener, CMSG_DATA(header), sizeof(int));
  }
  if (error == 0 && *listener < 0) return -1;
  return error;
}

struct trace {
  // The handle runner holds: unique for the life of runner, so a stale one finds nothing.
  int id;
  int listener;
  int finished;   // taken: calls go on, unrecorded
  int closed;     // every process of it is gone: the listener is closed
  int incomplete; // a call it could not read or resolve, or another architecture's
  char *records;
  size_t length, capacity;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct trace **traces;
static int trace_count;
static int last_id;
static int tracer_epoll = -1;
static struct seccomp_notif_sizes sizes;

static void append(struct trace *trace, char kind, const char *path, size_t length) {
  if (trace->finished) return;
  size_t needed = trace->length + length + 2;
  if (needed > TRACE_LIMIT) {
    trace->incomplete = 1;
    return;
  }
  if (needed > trace->capacity) {
    size_t capacity = trace->capacity ? trace->capacity * 2 : 4096;
    while (capacity < needed) capacity *= 2;
    char *grown = realloc(trace->records, capacity);
    if (!grown) {
      trace->incomplete = 1;
      return;
    }
    trace->records = grown;
    trace->capacity = capacity;
  }
  trace->records[trace->length++] = kind;
  memcpy(trace->records + trace->length, path, length);
  trace->length += length;
  trace->records[trace->length++] = 0;
}

// The NUL-terminated string at `address` in `pid`'s memory, read page by page (a string that
// ends before an unmapped page must not fail). Returns its length, or -1.
static long read_string(pid_t pid, uint64_t address, char *out, size_t size) {
  size_t done = 0;
  while (done < size - 1) {
    uint64_t at = address + done;
    size_t chunk = 4096 - (size_t)(at % 4096);
    if (chunk > size - 1 - done) chunk = size - 1 - done;
    struct iovec local = {.iov_base = out + done, .iov_len = chunk};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)at, .iov_len = chunk};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got <= 0) return -1;
    char *end = memchr(out + done, 0, (size_t)got);
    if (end) return end - out;
    done += (size_t)got;
  }
  return -1;
}

// `path` (at `address` in `pid`) resolved against `dirfd` there: written to `out`; its length,
// or -1 when it cannot be read or resolved.
static long resolve(pid_t pid, int dirfd, uint64_t address, char *out, size_t size) {
  char path[4096];
  long length = read_string(pid, address, path, sizeof path);
  if (length < 0) return -1;
  if (length > 0 && path[0] == '/') {
    memcpy(out, path, (size_t)length + 1);
    return length;
  }
  char link[64];
  if (dirfd == AT_FDCWD) {
    snprintf(link, sizeof link, "/proc/%d/cwd", pid);
  } else {
    snprintf(link, sizeof link, "/proc/%d/fd/%d", pid, dirfd);
  }
  ssize_t base = readlink(link, out, size - 1);
  if (base <= 0 || out[0] != '/') return -1;
  if ((size_t)base + 1 + (size_t)length + 1 > size) return -1;
  if (length == 0) {
    out[base] = 0;
    return base;
  }
  out[base] = '/';
  memcpy(out + base + 1, path, (size_t)length + 1);
  return base + 1 + length;
}

static void record_path(struct trace *trace, char kind, pid_t pid, int dirfd, uint64_t address) {
  char path[8192];
  long length = resolve(pid, dirfd, address, path, sizeof path);
  if (length < 0) {
    trace->incomplete = 1;
    return;
  }
  append(trace, kind, path, (size_t)length);
}

// An open: a read, a write, or (O_RDWR without O_TRUNC) both, the read first.
static void record_open(struct trace *trace, uint64_t flags, pid_t pid, int dirfd, uint64_t address) {
  char path[8192];
  long length = resolve(pid, dirfd, address, path, sizeof path);
  if (length < 0) {
    trace->incomplete = 1;
    return;
  }
  int mode = (int)(flags & O_ACCMODE);
  if (mode == O_RDONLY && !(flags & (O_CREAT | O_TRUNC))) {
    append(trace, (flags & O_DIRECTORY) ? 'p' : 'r', path, (size_t)length);
    return;
  }
  if (mode == O_RDWR && !(flags & O_TRUNC)) append(trace, 'r', path, (size_t)length);
  append(trace, 'w', path, (size_t)length);
}

// What one call does to files, recorded; called with `lock` held.
static void record(struct trace *trace, const struct seccomp_notif *call) {
  const __u64 *a = call->data.args;
  pid_t pid = (pid_t)call->pid;
  int nr = call->data.nr;
  if (call->data.arch != AUDIT_ARCH_X86_64 || ((unsigned)nr & X32_SYSCALL_BIT)) {
    trace->incomplete = 1;
    return;
  }
  switch (nr) {
  case SYS_open: record_open(trace, a[1], pid, AT_FDCWD, a[0]); break;
  case SYS_openat: record_open(trace, a[2], pid, (int)a[0], a[1]); break;
  case SYS_openat2: {
    uint64_t flags = 0;
    struct iovec local = {.iov_base = &flags, .iov_len = sizeof flags};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)a[2], .iov_len = sizeof flags};
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof flags) {
      trace->incomplete = 1;
      break;
    }
    record_open(trace, flags, pid, (int)a[0], a[1]);
    break;
  }
  case SYS_creat:
  case SYS_truncate: record_path(trace, 'w', pid, AT_FDCWD, a[0]); break;
  case SYS_stat:
  case SYS_lstat:
  case SYS_access: record_path(trace, 'p', pid, AT_FDCWD, a[0]); break;
  case SYS_newfstatat:
  case SYS_statx: {
    int flags = (int)(nr == SYS_newfstatat ? a[3] : a[2]);
    char first = 0;
    struct iovec local = {.iov_base = &first, .iov_len = 1};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)a[1], .iov_len = 1};
    // fstat of a descriptor (an empty path): no lookup.
    if ((flags & AT_EMPTY_PATH) && process_vm_readv(pid, &local, 1, &remote, 1, 0) == 1 && first == 0) break;
    record_path(trace, 'p', pid, (int)a[0], a[1]);
    break;
  }
  case SYS_faccessat:
  case SYS_faccessat2: record_path(trace, 'p', pid, (int)a[0], a[1]); break;
  case SYS_execve: record_path(trace, 'x', pid, AT_FDCWD, a[0]); break;
  case SYS_execveat: record_path(trace, 'x', pid, (int)a[0], a[1]); break;
  case SYS_getdents64:
  case SYS_getdents: {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", pid, (int)a[0]);
    ssize_t length = readlink(link, path, sizeof path);
    if (length <= 0 || path[0] != '/') {
      trace->incomplete = 1;
      break;
    }
    append(trace, 'd', path, (size_t)length);
    break;
  }
  case SYS_unlink:
  case SYS_rmdir: record_path(trace, 'u', pid, AT_FDCWD, a[0]); break;
  case SYS_unlinkat: record_path(trace, 'u', pid, (int)a[0], a[1]); break;
  case SYS_rename:
    record_path(trace, 'u', pid, AT_FDCWD, a[0]);
    record_path(trace, 'w', pid, AT_FDCWD, a[1]);
    break;
  case SYS_renameat:
  case SYS_renameat2:
    record_path(trace, 'u', pid, (int)a[0], a[1]);
    record_path(trace, 'w', pid, (int)a[2], a[3]);
    break;
  case SYS_link:
    record_path(trace, 'r', pid, AT_FDCWD, a[0]);
    record_path(trace, 'w', pid, AT_FDCWD, a[1]);
    break;
  case SYS_linkat:
    record_path(trace, 'r', pid, (int)a[0], a[1]);
    record_path(trace, 'w', pid, (int)a[2], a[3]);
    break;
  case SYS_symlink: record_path(trace, 'w', pid, AT_FDCWD, a[1]); break;
  case SYS_symlinkat: record_path(trace, 'w', pid, (int)a[1], a[2]); break;
  case SYS_mkdir: record_path(trace, 'm', pid, AT_FDCWD, a[0]); break;
  case SYS_mkdirat: record_path(trace, 'm', pid, (int)a[0], a[1]); break;
  default: trace->incomplete = 1; break;
  }
}

static void release(struct trace *trace) {
  free(trace->records);
  free(trace);
}

static void *serve(void *unused) {
  (void)unused;
  struct seccomp_notif *call = calloc(1, sizes.seccomp_notif);
  struct seccomp_notif_resp *answer = calloc(1, sizes.seccomp_notif_resp);
  if (!call || !answer) abort();
  struct epoll_event events[16];
  for (;;) {
    int ready = epoll_wait(tracer_epoll, events, 16, -1);
    if (ready < 0) continue;
    for (int i = 0; i < ready; i++) {
      pthread_mutex_lock(&lock);
      struct trace *trace = traces[events[i].data.u32];
      pthread_mutex_unlock(&lock);
      if (events[i].events & EPOLLIN) {
        memset(call, 0, sizes.seccomp_notif);
        if (ioctl(trace->listener, SECCOMP_IOCTL_NOTIF_RECV, call) == 0) {
          pthread_mutex_lock(&lock);
          if (!trace->finished) {
            size_t before = trace->length;
            int incomplete = trace->incomplete;
            record(trace, call);
            // The process died meanwhile (its pid may be another's now): the call never runs.
            if (ioctl(trace->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &call->id) != 0) {
              trace->length = before;
              trace->incomplete = incomplete;
            }
          }
          pthread_mutex_unlock(&lock);
          memset(answer, 0, sizes.seccomp_notif_resp);
          answer->id = call->id;
          answer->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
          ioctl(trace->listener, SECCOMP_IOCTL_NOTIF_SEND, answer);
        }
      }
      if (events[i].events & (EPOLLHUP | EPOLLERR)) {
        // Every process of the trace is gone.
        epoll_ctl(tracer_epoll, EPOLL_CTL_DEL, trace->listener, NULL);
        close(trace->listener);
        pthread_mutex_lock(&lock);
        trace->closed = 1;
        int done = trace->finished;
        if (done) traces[events[i].data.u32] = NULL;
        pthread_mutex_unlock(&lock);
        if (done) release(trace);
      }
    }
  }
  return NULL;
}

static int start_failure;

static void begin(void) {
  // A listener says when its last process is gone (EPOLLHUP) from Linux 5.9 on; before, the
  // tracer could not release a trace.
  struct utsname system;
  int major = 0, minor = 0;
  if (uname(&system) != 0 || sscanf(system.release, "%d.%d", &major, &minor) != 2 ||
      major < 5 || (major == 5 && minor < 9)) {
    start_failure = -ENOSYS;
    return;
  }
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    start_failure = -errno;
    return;
  }
  tracer_epoll = epoll_create1(EPOLL_CLOEXEC);
  if (tracer_epoll < 0) {
    start_failure = -errno;
    return;
  }
  pthread_t thread;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attributes, serve, NULL);
  pthread_attr_destroy(&attributes);
  if (rc != 0) start_failure = -rc;
}

int runner_trace_available(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, begin);
  return start_failure;
}

int runner_trace_attach(int listener) {
  if (runner_trace_available() != 0) {
    close(listener);
    return start_failure;
  }
  struct trace *trace = calloc(1, sizeof *trace);
  if (!trace) {
    close(listener);
    return -ENOMEM;
  }
  trace->listener = listener;
  pthread_mutex_lock(&lock);
  if (last_id == 0x7fffffff) last_id = 0;
  trace->id = ++last_id;
  int slot = -1;
  for (int i = 0; i < trace_count; i++) {
    if (!traces[i]) {
      slot = i;
      break;
    }
  }
  if (slot < 0) {
    struct trace **grown = realloc(traces, sizeof *traces * (size_t)(trace_count + 16));
    if (!grown) {
      pthread_mutex_unlock(&lock);
      close(listener);
      free(trace);
      return -ENOMEM;
    }
    traces = grown;
    for (int i = trace_count; i < trace_count + 16; i++) traces[i] = NULL;
    slot = trace_count;
    trace_count += 16;
  }
  traces[slot] = trace;
  pthread_mutex_unlock(&lock);
  struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)slot};
  if (epoll_ctl(tracer_epoll, EPOLL_CTL_ADD, listener, &event) != 0) {
    int error = errno;
    pthread_mutex_lock(&lock);
    traces[slot] = NULL;
    pthread_mutex_unlock(&lock);
    close(listener);
    free(trace);
    return -error;
  }
  return trace->id;
}

long runner_trace_take(int handle, char **records, int *incomplete) {
  pthread_mutex_lock(&lock);
  int slot = -1;
  for (int i = 0; i < trace_count; i++) {
    if (traces[i] && traces[i]->id == handle) {
      slot = i;
      break;
    }
  }
  struct trace *trace = slot >= 0 ? traces[slot] : NULL;
  if (!trace || trace->finished) {
    pthread_mutex_unlock(&lock);
    *records = NULL;
    *incomplete = 1;
    return -1;
  }
  trace->finished = 1;
  *records = trace->records;
  *incomplete = trace->incomplete;
  long length = (long)trace->length;
  trace->records = NULL;
  trace->length = trace->capacity = 0;
  int closed = trace->closed;
  if (closed) traces[slot] = NULL;
  pthread_mutex_unlock(&lock);
  if (closed) release(trace);
  return length;
}
