import CRunnerShim
import Glibc

/// An eventfd that wakes a thread sleeping in `poll` (the live view's): `signal` from any
/// thread, `drain` in the one woken. Close-on-exec and non-blocking.
package final class Wakeup: Sendable {
  /// Negative when none could be made (the thread then wakes on its timeout alone).
  package let descriptor: Int32

  package init() {
    descriptor = runner_eventfd_create()
  }

  package func signal() {
    if descriptor >= 0 { runner_eventfd_signal(descriptor) }
  }

  package func drain() {
    if descriptor >= 0 { runner_eventfd_drain(descriptor) }
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }
}
