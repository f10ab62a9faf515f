import RunnerBasics
import RunnerExecution
import RunnerModel
import RunnerProcess

/// The run's jobserver: runner's own with `-j` slots, or, when make (or any jobserver) runs
/// runner and no `-j` was given, a client of that one, as a sub-make is.
enum JobserverSetup {
  struct Made {
    var jobserver: RunJobserver
    var concurrency: Int
    var warning: String?
  }

  /// - Parameters:
  ///   - explicit: `-j` as given on the command line.
  ///   - fallback: the file's `concurrency`, else the number of CPUs.
  static func make(explicit: Int?, fallback: Int, environment: [String: String]) -> Made {
    let own = { (jobs: Int, warning: String?) in
      Made(
        jobserver: RunJobserver(slots: Jobserver(jobs: jobs, temporaryDirectories: fifoDirectories(environment))),
        concurrency: jobs, warning: warning)
    }
    guard let flags = environment["MAKEFLAGS"], MakeFlags.auth(in: flags) != nil else {
      return own(explicit ?? fallback, nil)
    }
    if let explicit {
      return own(
        explicit, "-j\(explicit) given: runner serves its own \(explicit) job slots, not the jobserver in MAKEFLAGS")
    }
    switch JobClient.connect(makeFlags: flags, defaultJobs: fallback) {
    case .success(let client):
      return Made(jobserver: RunJobserver(slots: client), concurrency: client.jobs, warning: nil)
    case .failure(let error):
      return own(fallback, "\(error.description); running \(fallback) task\(fallback == 1 ? "" : "s") at once")
    case nil:
      return own(fallback, nil)
    }
  }

  /// Where the fifos go, best first: a tmpfs (the user's runtime directory, `/dev/shm`), where
  /// making and removing one costs a task a few microseconds, not a journalled disk's 0.1 ms;
  /// then `$TMPDIR`, `/tmp`.
  static func fifoDirectories(_ environment: [String: String]) -> [String] {
    let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return [environment["XDG_RUNTIME_DIR"], "/dev/shm"].compactMap { $0 }.filter { !$0.isEmpty } + [temporary]
  }
}
