import RunnerCache
import Synchronization

/// A cache beyond this machine — a REAPI v2 server over gRPC, or Bazel's HTTP cache — as the
/// executor sees it: results move whole between it and the local cache, named by the task's
/// `ActionKey`. `RunnerRemote` implements it; the core links no network code.
package protocol RemoteCache: Sendable {
  /// Its address, for warnings and the plan.
  var name: String { get }

  /// The result stored for `key` as a local cache entry: its output files downloaded into
  /// `scratch` (`contents[i]` holds `entry.files[i]`), every blob checked against its digest.
  /// nil when the remote cache holds no result for it.
  func fetch(_ key: ActionKey, scratch: String) async throws(RemoteCacheError) -> RemoteResult?

  /// Stores a local entry (read back from the local cache, its contents in its file) as `key`'s
  /// result: every blob first, the result last. False when the entry cannot be a result (an
  /// output outside the task's directory).
  func store(_ entry: CacheEntry, for key: ActionKey) async throws(RemoteCacheError) -> Bool

  /// Ends its connections.
  func close() async

  /// Whether it restores only results signed by a trusted key (`remote.trust`): a remote
  /// executor's own cache of results, which nobody signs, is then not asked.
  var trustsOnlySigned: Bool { get }
}

extension RemoteCache {
  package var trustsOnlySigned: Bool { false }
}

/// A result found in the remote cache, as a local cache entry.
package struct RemoteResult: Sendable {
  package var entry: CacheEntry
  /// Where each of `entry.files` was downloaded, in order.
  package var contents: [String]
  /// Who vouches for it, for a spot check's report: "signed by key ID", "not signed", or
  /// "signed by key ID (not checked: no remote.trust)".
  package var signer: String

  package init(entry: CacheEntry, contents: [String], signer: String) {
    self.entry = entry
    self.contents = contents
    self.signer = signer
  }
}

/// Why an exchange with the remote cache failed.
package struct RemoteCacheError: Error, Sendable, CustomStringConvertible {
  package var description: String
  /// The server answered with bytes that are not what it was asked for: this result is
  /// unusable, the server may still serve others.
  package var corrupt: Bool
  /// The result is not signed by a key the run trusts (`remote.trust`): a miss, not a fault.
  /// The description then completes "holds a result for 'TASK' …".
  package var untrusted: Bool

  package init(_ description: String, corrupt: Bool = false, untrusted: Bool = false) {
    self.description = description
    self.corrupt = corrupt
    self.untrusted = untrusted
  }
}

/// The remote cache of one run: a fault costs one warning and turns the cache off for the rest
/// of the run (every task is then a miss, as with no remote cache), so a slow or dead server
/// costs one timeout per run, never a failed or a wrong build. A corrupt result is a miss for
/// its task only.
package final class RemoteCacheSession: Sendable {
  package let cache: any RemoteCache
  /// Whether the run stores what it ran (`--remote-upload=false` makes it read-only).
  package let uploads: Bool
  /// `--verify-cache`: the share of results found that are run here and compared instead.
  package let spotCheck: CacheSpotCheck?
  private let faults = RemoteFaults()
  private let state = Mutex(State())

  struct State {
    var hits = 0
    var misses = 0
    var stored = 0
    /// Results found but not signed by a trusted key (misses too).
    var untrusted = 0
    /// Results found and picked for a spot check (not hits: run here instead).
    var checked = 0
    /// Spot-checked results that differed from the run here.
    var differed = 0
  }

  package init(_ cache: any RemoteCache, uploads: Bool, spotCheck: CacheSpotCheck? = nil) {
    self.cache = cache
    self.uploads = uploads
    self.spotCheck = spotCheck
  }

  package var isOff: Bool { faults.isOff }

  /// Hits, misses and results stored so far.
  package var counts: (hits: Int, misses: Int, stored: Int) {
    state.withLock { ($0.hits, $0.misses, $0.stored) }
  }

  /// Results found that no trusted key signed, so far (counted among the misses).
  package var untrusted: Int { state.withLock { $0.untrusted } }

  /// Results spot-checked so far, and how many of them differed.
  package var checks: (checked: Int, differed: Int) { state.withLock { ($0.checked, $0.differed) } }

  /// Whether the result stored as `key`'s, when found, is run here and compared rather than
  /// restored (`--verify-cache`).
  package func picksForCheck(_ key: ActionKey) -> Bool { spotCheck?.picks(key) ?? false }

  /// Notes a spot check made: a result compared with the run here.
  package func noteCheck(differed: Bool) {
    state.withLock { state in
      state.checked += 1
      if differed { state.differed += 1 }
    }
  }

  /// The result for `key`; nil on a miss or a fault (warned about once).
  /// - Parameter forCheck: a result found is not a hit: it is counted when its check ends.
  package func fetch(
    _ key: ActionKey, task: String, scratch: String, forCheck: Bool = false, warn: (String) -> Void
  ) async -> RemoteResult? {
    guard !isOff else { return nil }
    do {
      let found = try await cache.fetch(key, scratch: scratch)
      // A result picked for a check is counted when the check ends (`noteCheck`).
      state.withLock { state in
        if found == nil {
          state.misses += 1
        } else if !forCheck {
          state.hits += 1
        }
      }
      return found
    } catch let error where error.untrusted {
      // Said once a run, with the key found: the next ones are counted in the summary.
      let first = state.withLock { state -> Bool in
        state.misses += 1
        state.untrusted += 1
        return state.untrusted == 1
      }
      if first, !Task.isCancelled {
        warn(
          "remote cache \(cache.name) holds a result for '\(task)' \(error), so it is not restored: running it "
            + "(other untrusted results are counted, not named)")
      }
      return nil
    } catch {
      state.withLock { $0.misses += 1 }
      fault(error, doing: "reading '\(task)' from", warn: warn)
      return nil
    }
  }

  /// Stores `entry` as `key`'s result, unless the session is read-only or off.
  package func store(_ entry: CacheEntry, for key: ActionKey, task: String, warn: (String) -> Void) async {
    guard uploads, !isOff else { return }
    do {
      if try await cache.store(entry, for: key) { state.withLock { $0.stored += 1 } }
    } catch {
      fault(error, doing: "storing '\(task)' in", warn: warn)
    }
  }

  private func fault(_ error: RemoteCacheError, doing what: String, warn: (String) -> Void) {
    faults.report(error, warn: warn) { turnsOff in
      "remote cache \(cache.name): \(what) it: \(error); "
        + (turnsOff ? "going on without the remote cache" : "running it")
    }
  }
}

/// The faults of one run's remote cache or executor: a corrupt answer (this task's alone) is
/// said each time; the first other fault is said once and turns the layer off for the rest of
/// the run. Nothing is said while the run is being cancelled (fail-fast, Ctrl-C end its calls:
/// no fault of the server's).
package final class RemoteFaults: Sendable {
  private let off = Mutex(false)

  package init() {}

  package var isOff: Bool { off.withLock { $0 } }

  /// Says `error` through `warn`, worded by `message(turnsOff)`.
  package func report(_ error: RemoteCacheError, warn: (String) -> Void, message: (_ turnsOff: Bool) -> String) {
    if Task.isCancelled { return }
    if error.corrupt { return warn(message(false)) }
    let first = off.withLock { off -> Bool in
      defer { off = true }
      return !off
    }
    if first { warn(message(true)) }
  }
}

/// The remote layer of a run: the remote cache and the remote executor, each when named.
package struct RemoteSessions: Sendable {
  /// Asked after the local cache misses and given what runs (`--remote-cache`).
  package var cache: RemoteCacheSession?
  /// Given the tasks that can run there (`--remote-exec`).
  package var execution: RemoteExecutionSession?

  package init(cache: RemoteCacheSession? = nil, execution: RemoteExecutionSession? = nil) {
    self.cache = cache
    self.execution = execution
  }
}
