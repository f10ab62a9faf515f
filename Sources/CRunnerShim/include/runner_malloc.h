#ifndef RUNNER_MALLOC_H
#define RUNNER_MALLOC_H

/// Tunes glibc's allocator for a run with many small allocations on several threads: the heaps
/// grow in large steps and keep freed memory, instead of an mprotect or a trim every few pages.
void runner_tune_malloc(void);

#endif
