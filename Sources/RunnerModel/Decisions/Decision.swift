/// What the engine decides for a task it can skip: up to date, restored from a cache, or run —
/// with the reason when it is not up to date. One decision, made alike (`Judgement` in
/// RunnerCache) for a run, a dry run (`IncrementalPlanner`) and `--explain`.
package enum Decision: Sendable, Equatable {
  case upToDate
  case restore(because: RunReason)
  case run(because: RunReason)

  /// Why the task is not up to date, if it is not.
  package var reason: RunReason? {
    switch self {
    case .upToDate: return nil
    case .restore(let reason), .run(let reason): return reason
    }
  }
}

/// How a recorded run ended: what `.runner/state` says of a task's last decision that was not
/// "up to date".
package enum Outcome: String, Sendable, Equatable {
  case ran
  case restored
  case restoredRemotely = "restored-remote"
  case executedRemotely = "executed-remote"

  /// As `--explain` says it.
  package var words: String {
    switch self {
    case .ran: return "ran"
    case .restored: return "was restored from the cache"
    case .restoredRemotely: return "was restored from the remote cache"
    case .executedRemotely: return "ran on the remote executor"
    }
  }
}

/// How a task ended without running its command here, as the console shows it after `✓`.
package enum Concluded: Sendable, Equatable {
  case upToDate
  case restored
  case restoredRemotely
  /// Ran on the remote executor named, or answered from its cache (nil).
  case ranRemotely(on: String?)

  package var words: String {
    switch self {
    case .upToDate: return "up to date"
    case .restored: return "restored from cache"
    case .restoredRemotely: return "restored from remote cache"
    case .ranRemotely(let executor?): return "ran remotely on \(executor)"
    case .ranRemotely(nil): return "ran remotely (the server's cache)"
    }
  }
}

/// Why a task is not up to date.
package enum RunReason: Sendable, Equatable, CustomStringConvertible {
  /// `--force`.
  case forced
  /// `--watch` started a service it depends on afresh: it runs again, up to date or not.
  case serviceRestarted
  /// No record of a run: never ran, its record was dropped (a failure), or the state was
  /// discarded (damaged, or of another format).
  case noRecord
  /// Its commands (or image steps) changed; for a task with calls decided as one, possibly
  /// those of a task it calls.
  case commandChanged(image: Bool, calls: Bool)
  case directoryChanged
  /// A variable of its key changed, was set or was unset; nil when the record cannot say which.
  case environmentChanged(String?)
  /// Its source files: the first change, and how many more.
  case sourceChanged(SourceChange, more: Int)
  /// What a dependency hands on changed; nil when the record cannot say which dependency.
  case dependencyChanged(String?)
  /// A recorded output file is missing, or not as recorded.
  case outputMissing(String)
  case outputChanged(String)
  /// An image task's image lives only in the cache entry, which is gone.
  case imageNotCached
  /// Its `sources` or `outputs` patterns changed.
  case patternsChanged
  /// Its inputs are found by its runs (a `depfile`, `sources: auto`), and no run recorded them yet
  /// (one added to the task since its last run).
  case readsNotRecorded

  package var description: String {
    switch self {
    case .forced: return "--force"
    case .serviceRestarted: return "a service it uses started again"
    case .noRecord: return "no previous run"
    case .commandChanged(let image, let calls):
      if image { return "image steps changed" }
      return calls ? "its commands or a task it calls changed" : "command changed"
    case .directoryChanged: return "directory changed"
    case .environmentChanged(let name?): return "environment variable \(name) changed"
    case .environmentChanged(nil): return "environment changed"
    case .sourceChanged(let change, let more): return "\(change)" + (more > 0 ? " (and \(more) more)" : "")
    case .dependencyChanged(let name?): return "what '\(name)' hands on changed"
    case .dependencyChanged(nil): return "a dependency's outputs changed"
    case .outputMissing(let path): return "\(path) is missing"
    case .outputChanged(let path): return "\(path) changed"
    case .imageNotCached: return "its image is not in the cache"
    case .patternsChanged: return "sources or outputs patterns changed"
    case .readsNotRecorded: return "no run has recorded what it reads yet"
    }
  }
}

extension Decision {
  /// The same decision with `transform` applied to each path and name in its reason (masking).
  package func mapping(_ transform: (String) -> String) -> Decision {
    switch self {
    case .upToDate: return self
    case .restore(let reason): return .restore(because: reason.mapping(transform))
    case .run(let reason): return .run(because: reason.mapping(transform))
    }
  }
}

extension RunReason {
  /// The same reason with `transform` applied to each path and name in it.
  package func mapping(_ transform: (String) -> String) -> RunReason {
    switch self {
    case .environmentChanged(let name?): return .environmentChanged(transform(name))
    case .sourceChanged(let change, let more):
      return .sourceChanged(SourceChange(path: transform(change.path), kind: change.kind), more: more)
    case .dependencyChanged(let name?): return .dependencyChanged(transform(name))
    case .outputMissing(let path): return .outputMissing(transform(path))
    case .outputChanged(let path): return .outputChanged(transform(path))
    default: return self
    }
  }
}

/// One source file that differs from the record.
package struct SourceChange: Sendable, Equatable, CustomStringConvertible {
  package enum Kind: Sendable, Equatable {
    case changed
    /// Found now, not recorded (a glob matches a new file).
    case added
    /// Recorded, not found now.
    case removed
    /// The same content, another executable bit (`chmod +x`): REAPI's `is_executable` is in the key.
    case mode(executable: Bool)
  }

  package var path: String
  package var kind: Kind

  package init(path: String, kind: Kind) {
    self.path = path
    self.kind = kind
  }

  package var description: String {
    switch kind {
    case .changed: return "\(path) changed"
    case .added: return "\(path) added"
    case .removed: return "\(path) removed"
    case .mode(let executable): return "\(path) became \(executable ? "executable" : "not executable")"
    }
  }
}
