import Glibc
import RunnerBasics

/// Uploads to the remote cache under way, each an empty file `.runner/uploads/<fingerprint>`
/// from before the upload starts until it is done. One an interrupt, a fail-fast stop or a
/// fault cut short stays, and a later run that finds the task up to date makes the upload
/// then: otherwise that task's result would never reach the remote cache.
extension IncrementalStore {
  func pendingUploadPath(_ fingerprint: String) -> String {
    directory + "/uploads/" + fingerprint
  }

  package func markUploadPending(_ fingerprint: String) {
    let path = pendingUploadPath(fingerprint)
    try? CacheFileSystem.makeDirectories(FilePath.parent(of: path))
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0o644)
    if descriptor >= 0 { close(descriptor) }
  }

  package func uploadDone(_ fingerprint: String) {
    CacheFileSystem.remove(pendingUploadPath(fingerprint))
  }

  /// Whether an upload of `fingerprint` was started and not done.
  package func uploadPending(_ fingerprint: String) -> Bool {
    CacheFileSystem.status(pendingUploadPath(fingerprint)) != nil
  }
}
