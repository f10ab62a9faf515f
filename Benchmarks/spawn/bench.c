// Spawn cost of runner's clone(CLONE_VM|CLONE_VFORK) path against glibc posix_spawn, same
// contract (own group, /dev/null stdin, two pipes, pidfd). Sequential spawn + reap.
// Build and run: Benchmarks/spawn/spawn.sh
#include "../../Sources/CRunnerShim/runner_shim.c"
#include <stdio.h>
#include <stdlib.h>

extern char **environ;

static double run(int use_clone, char *const argv[], int n) {
  int devnull = runner_open_devnull();
  int64_t start = runner_now_ns();
  for (int i = 0; i < n; i++) {
    struct runner_child c;
    int rc = use_clone ? runner_spawn(argv[0], argv, environ, NULL, devnull, &c)
                       : runner_posix_spawn(argv[0], argv, environ, NULL, devnull, &c);
    if (rc != 0) { fprintf(stderr, "spawn failed: %d stage %d\n", c.error, c.stage); exit(1); }
    siginfo_t info;
    waitid(P_PIDFD, (id_t)c.pidfd, &info, WEXITED);
    close(c.pidfd); close(c.stdout_fd); close(c.stderr_fd);
  }
  close(devnull);
  return (runner_now_ns() - start) / 1e6 / n;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  char *t[] = {"/bin/true", NULL};
  char *sh[] = {"/bin/sh", "-c", "true", NULL};
  for (int round = 0; round < 2; round++) {
    printf("clone+vfork /bin/true   %.3f ms\n", run(1, t, n));
    printf("posix_spawn /bin/true   %.3f ms\n", run(0, t, n));
    printf("clone+vfork sh -c true  %.3f ms\n", run(1, sh, n));
    printf("posix_spawn sh -c true  %.3f ms\n", run(0, sh, n));
  }
  return 0;
}
