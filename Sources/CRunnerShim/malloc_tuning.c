#include "runner_malloc.h"

#include <malloc.h>
#include <sys/resource.h>

void runner_tune_malloc(void) {
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // Each arena reserves 64 MiB of address space; glibc allows 8 a processor. Under an address
  // space limit (ulimit -v or -d) a many-core machine would spend it on arenas.
  struct rlimit as, data;
  int limited = (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) ||
                (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY);
  if (limited) mallopt(M_ARENA_MAX, 8);
}
