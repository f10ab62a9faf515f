// runner-trace: runs a command with its whole process tree traced (the shim's tracer.c) and
// writes what it did to files to a log. Remote execution of a `sources: auto` task sends it
// to the worker beside the task's inputs, where runner itself is not; it needs glibc's
// kernel interfaces only (a static binary) and no privileges.
//
//   runner-trace LOG COMMAND [ARGUMENT...]
//
// Runs COMMAND (searched in PATH) with this process's stdio and environment, waits for it,
// writes LOG and ends as COMMAND ended (its exit status, or its signal raised again). LOG is
// "runner-trace 1\n" and then records `kind path NUL`: `c` the working directory, `!` why
// what follows is not everything the command did (it could not be traced, a call could not
// be read), then the tracer's own records. LOG is written whole or not at all.
#define _GNU_SOURCE
#include "../CRunnerShim/shim_internal.h"
#include "runner_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_all(int fd, const char *bytes, size_t count) {
  while (count > 0) {
    ssize_t written = write(fd, bytes, count);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return -1;
    bytes += written;
    count -= (size_t)written;
  }
  return 0;
}

static int write_record(int fd, char kind, const char *text) {
  return write_all(fd, &kind, 1) || write_all(fd, text, strlen(text) + 1);
}

// LOG's directory made, then LOG written beside it under a temporary name and renamed.
static int write_log(const char *log, const char *problem, const char *records, long length) {
  char *directory = strdup(log);
  if (!directory) return -1;
  for (char *slash = strchr(directory + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
    *slash = 0;
    mkdir(directory, 0777);
    *slash = '/';
  }
  free(directory);
  char temporary[4096];
  if (snprintf(temporary, sizeof temporary, "%s.%d.partial", log, (int)getpid()) >= (int)sizeof temporary) return -1;
  int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  char cwd[4096];
  int failed = write_all(fd, "runner-trace 1\n", 15) || write_record(fd, 'c', getcwd(cwd, sizeof cwd) ? cwd : "");
  if (!failed && problem) failed = write_record(fd, '!', problem);
  if (!failed && length > 0) failed = write_all(fd, records, (size_t)length);
  if (close(fd) != 0) failed = 1;
  if (failed || rename(temporary, log) != 0) {
    unlink(temporary);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3 || !argv[1][0]) {
    fprintf(stderr, "usage: runner-trace LOG COMMAND [ARGUMENT...]\n");
    return 2;
  }
  const char *log = argv[1];
  char problem[256] = {0};
  int available = runner_trace_available();
  int sockets[2] = {-1, -1};
  if (available != 0) {
    snprintf(problem, sizeof problem, "the worker cannot trace (%s)", strerror(-available));
  } else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    snprintf(problem, sizeof problem, "cannot make the tracer's socket (%s)", strerror(errno));
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("runner-trace: fork");
    return 127;
  }
  if (pid == 0) {
    if (sockets[0] >= 0) {
      close(sockets[0]);
      // From here on every file system call waits for the tracer thread of this process.
      runner_trace_child(sockets[1]);
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "runner-trace: %s: %s\n", argv[2], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
  }
  int handle = -1;
  if (sockets[0] >= 0) {
    close(sockets[1]);
    int listener = -1;
    int error = runner_trace_receive(sockets[0], &listener);
    close(sockets[0]);
    if (error == 0) {
      handle = runner_trace_attach(listener);
      if (handle < 0) snprintf(problem, sizeof problem, "cannot watch the command (%s)", strerror(-handle));
    } else {
      snprintf(problem, sizeof problem, "the command could not be traced (%s)",
               error > 0 ? strerror(error) : "it sent nothing");
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      perror("runner-trace: waitpid");
      return 127;
    }
  }
  char *records = NULL;
  long length = 0;
  if (handle >= 0) {
    int incomplete = 0;
    length = runner_trace_take(handle, &records, &incomplete);
    if (length < 0) snprintf(problem, sizeof problem, "the trace was lost");
    if (incomplete && !problem[0]) snprintf(problem, sizeof problem, "a call could not be read");
  }
  if (write_log(log, problem[0] ? problem : NULL, records, length) != 0) {
    fprintf(stderr, "runner-trace: cannot write %s: %s\n", log, strerror(errno));
    return 127;
  }
  free(records);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WEXITSTATUS(status);
}
