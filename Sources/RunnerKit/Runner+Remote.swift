import RunnerBasics
import RunnerRemoteAPI

extension Runner {
  /// Says what the remote cache and executor did (on stderr) and ends their connections.
  static func closeRemote(_ sessions: RemoteSessions) async {
    if let execution = sessions.execution {
      let (executed, cached) = execution.counts
      let state = execution.isOff ? " (turned off after a fault)" : ""
      Terminal.write(
        "remote execution \(execution.executor.name)\(state): \(executed) executed, \(cached) from its cache\n", to: 2)
      await execution.executor.close()
    }
    if let remote = sessions.cache {
      let (hits, misses, stored) = remote.counts
      let state = remote.isOff ? " (turned off after a fault)" : ""
      let untrusted = remote.untrusted > 0 ? " (\(remote.untrusted) untrusted)" : ""
      let (checked, differed) = remote.checks
      let checks = remote.spotCheck == nil ? "" : ", \(checked) spot-checked (\(differed) differed)"
      Terminal.write(
        "remote cache \(remote.cache.name)\(state): \(hits) hit\(hits == 1 ? "" : "s"), \(misses) "
          + "miss\(misses == 1 ? "" : "es")\(untrusted), \(stored) stored\(checks)\n", to: 2)
      await remote.cache.close()
    }
  }
}
