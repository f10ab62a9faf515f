/* The floor of a spawn-bound graph: COUNT runs of `true`, at most JOBS at once, started with
 * posix_spawnp and reaped with waitpid, nothing else (no pipes, no environment built, no
 * record). With JOBS 1 it is a chain; with JOBS 2 a wide graph at -j2.
 * Usage: floor COUNT JOBS */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: floor COUNT JOBS\n");
    return 2;
  }
  long count = atol(argv[1]), jobs = atol(argv[2]), started = 0, running = 0;
  char *args[] = {"true", NULL};
  while (started < count || running > 0) {
    while (running < jobs && started < count) {
      pid_t pid;
      if (posix_spawnp(&pid, "true", NULL, NULL, args, environ) != 0) {
        perror("posix_spawnp");
        return 1;
      }
      started++;
      running++;
    }
    int status;
    if (waitpid(-1, &status, 0) < 0) {
      perror("waitpid");
      return 1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "a child failed\n");
      return 1;
    }
    running--;
  }
  return 0;
}
