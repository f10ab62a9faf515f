import Glibc
import RunnerBasics

/// Dedicated threads for CPU-heavy work (image kernels), so that it never occupies Swift's
/// cooperative pool, which has one thread per core: the scheduler loop and process
/// completions run there and must react within milliseconds (fail-fast) even while a
/// 12-megapixel blur is computing.
///
/// Work opts in with `withTaskExecutorPreference(ComputeExecutor.shared)`; child tasks
/// (the kernels' row bands) inherit the preference.
package final class ComputeExecutor: TaskExecutor, @unchecked Sendable {
  // @unchecked: every mutable field is guarded by `mutex`.
  package static let shared = ComputeExecutor(threads: Terminal.processorCount)

  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let available = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var jobs: [UnownedJob] = []
  private var head = 0

  init(threads: Int) {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(available, nil)
    for _ in 0..<max(1, threads) {
      let started = DetachedThread.start { self.work() }
      precondition(started, "cannot start a compute thread")
    }
  }

  package func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    pthread_mutex_lock(mutex)
    jobs.append(job)
    pthread_cond_signal(available)
    pthread_mutex_unlock(mutex)
  }

  private func work() -> Never {
    let executor = asUnownedTaskExecutor()
    while true {
      pthread_mutex_lock(mutex)
      while head == jobs.count { pthread_cond_wait(available, mutex) }
      let job = jobs[head]
      head += 1
      if head == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        head = 0
      }
      pthread_mutex_unlock(mutex)
      job.runSynchronously(on: executor)
    }
  }
}
