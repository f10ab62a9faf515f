#include "runner_malloc.h"

#include <malloc.h>

void runner_tune_malloc(void) {
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
