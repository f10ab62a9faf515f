import Foundation
import PackagePlugin

/// Writes `Version+Commit.swift` with the git commit the build is made from (empty outside a
/// checkout), so `runner --version` can name it. The file is rewritten only when the commit
/// changes, so an ordinary rebuild recompiles nothing.
@main
struct VersionStamp: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
    let script = """
      set -e
      mkdir -p "$2"
      commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null || true)
      if [ -n "$commit" ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
        commit="$commit-dirty"
      fi
      printf 'let buildCommit: String? = "%s"\\n' "$commit" > "$2/.commit.tmp"
      if cmp -s "$2/.commit.tmp" "$2/Version+Commit.swift"; then rm -f "$2/.commit.tmp"
      else mv "$2/.commit.tmp" "$2/Version+Commit.swift"; fi
      """
    return [
      .prebuildCommand(
        displayName: "Stamping the git commit into \(target.name)",
        executable: URL(filePath: "/bin/sh"),
        arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
        outputFilesDirectory: output)
    ]
  }
}
