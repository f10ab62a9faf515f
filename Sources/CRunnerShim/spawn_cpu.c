// Keeps a spawned child on the spawning thread's CPU until it execs, while the machine is busy.
//
// runner_spawn's child runs on runner's memory while the spawning thread waits for its exec
// (CLONE_VM | CLONE_VFORK). The kernel places a new task on the CPU it finds least loaded, and
// on a busy machine that can be a CPU that another program holds for milliseconds more, while
// the spawning thread's own CPU, about to go idle, waits with it: beside a CPU hog on 2 cores,
// `perf sched timehist` showed 55 such stalls of 2-3 ms in 1 000 spawns.
//
// A spawn that waited longer than a child's start takes (STALL_NS) turns pinning on for the
// next PINNED_SPAWNS: the thread binds itself to its CPU before the clone, the child inherits
// that and so starts at once, where the spawner just stopped, and sets the wide mask back as
// its last step before exec; from exec on the kernel places it. Pinning is not the rule: a
// pinned child tends to stay on the spawner's CPU after its exec too, and on an idle machine
// the kernel's own choice, another CPU, is what lets two children run at once (pinned always,
// 5 000 `true` at -j2 took 1.6 times as long on 2 idle cores).
#define _GNU_SOURCE
#include "runner_shim.h"
#include "shim_internal.h"

#include <sched.h>

enum {
  STALL_NS = 1500 * 1000, // a child starts in 50-500 us here; beside a busy program, 2-3 ms
  PINNED_SPAWNS = 128,
};

// The spawning thread's mask while a pinned child of it starts: the child sets it back.
static __thread cpu_set_t own_mask;
static __thread int pinned_left;
static __thread int last_pinned;

const cpu_set_t *runner_pin_for_spawn(void) {
  last_pinned = 0;
  if (pinned_left <= 0) return NULL;
  pinned_left--;
  // Read at every pinned spawn: runner's mask may have been changed since (`taskset -a -p`).
  if (sched_getaffinity(0, sizeof own_mask, &own_mask) != 0 || CPU_COUNT(&own_mask) < 2) return NULL;
  int cpu = sched_getcpu();
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &own_mask)) return NULL;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0) return NULL;
  last_pinned = 1;
  return &own_mask;
}

// A refusal in the child (only if runner's cpuset lost every CPU of the mask meanwhile) leaves
// the task on one CPU: slower, not wrong. In the parent, a mask changed by `taskset -a -p`
// during the clone (microseconds) is undone by this.
void runner_unpin(const cpu_set_t *mask) {
  if (mask) sched_setaffinity(0, sizeof *mask, mask);
}

void runner_spawn_waited(int64_t nanoseconds) {
  if (nanoseconds > STALL_NS) pinned_left = PINNED_SPAWNS;
}

void runner_spawn_stalled(void) { pinned_left = PINNED_SPAWNS; }

int runner_spawn_was_pinned(void) { return last_pinned; }
