/// runner's version. The semantic version is set here by hand at a release; the commit comes
/// from `Version+Commit.swift`, which the build writes when it runs in a git checkout.
enum RunnerVersion {
  static let semantic = "0.6.0"

  static var text: String {
    guard let commit = buildCommit, !commit.isEmpty else { return semantic }
    return "\(semantic) (\(commit))"
  }
}
