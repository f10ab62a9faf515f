import Foundation

/// A real terminal for the live view's tests: a tmux server of the test's own, one pane running
/// an interactive bash (job control: Ctrl-Z and `fg` work), driven with send-keys and read with
/// capture-pane.
final class TmuxPane {
  static let executable = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
  /// tmux, and python3 to start its server without the test process's descriptors.
  static var available: Bool {
    executable != nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
  }

  let socket = "runner-test-\(UUID().uuidString)"
  let directory: URL

  init(directory: URL, width: Int = 100, height: Int = 20) throws {
    self.directory = directory
    // The view is not shown in CI: the pane's shell runs without CI's variables.
    let shell = "env -u CI -u GITHUB_ACTIONS NO_COLOR=1 PS1='$ ' bash --norc --noprofile -i"
    try tmux(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-c", directory.path, shell])
    do {
      try tmux(["set-option", "-g", "status", "off"])
      _ = try wait("the shell's prompt") { $0.contains { $0.hasPrefix("$") } }
    } catch {
      close()
      throw error
    }
  }

  /// Ends the tmux server and the pane's shell (`kill-server` alone left the server waiting).
  func close() {
    let pids = (try? tmux(["display-message", "-p", "-t", "0", "#{pid} #{pane_pid}"])) ?? ""
    for pid in pids.split(whereSeparator: \.isWhitespace).compactMap({ pid_t($0) }) { kill(pid, SIGKILL) }
    unlink("/tmp/tmux-\(getuid())/\(socket)")
  }

  @discardableResult
  func tmux(_ arguments: [String]) throws -> String {
    // posix_spawn and waitpid, and a file for what the client prints: a pipe's end would be
    // inherited by a tmux server another test starts meanwhile (which lives on), and the
    // reader would wait for it forever.
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)").path
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var argv = [Self.executable!, "-L", socket, "-f", "/dev/null"] + arguments
    if arguments.first == "new-session" {
      // The server gets nothing else of the test process: one that kept a pipe another test
      // reads (its runner's stdout) would hold that test up until it ends.
      argv =
        ["/usr/bin/python3", "-c", "import os, sys; os.closerange(3, 1 << 16); os.execv(sys.argv[1], sys.argv[1:])"]
        + argv
    }
    var cArguments = argv.map { strdup($0) } + [nil]
    defer { for pointer in cArguments { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let data = FileManager.default.contents(atPath: output) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// Types a command line and Enter.
  func type(_ line: String) throws {
    try tmux(["send-keys", "-t", "0", "-l", line])
    try tmux(["send-keys", "-t", "0", "Enter"])
  }

  /// Presses keys by tmux's names (`Down`, `C-c`, `PageUp`).
  func press(_ keys: String...) throws {
    try tmux(["send-keys", "-t", "0"] + keys)
  }

  /// The rows the pane shows now.
  func screen() throws -> [String] {
    try tmux(["capture-pane", "-p", "-t", "0"]).components(separatedBy: "\n")
  }

  struct Timeout: Error, CustomStringConvertible {
    var what: String
    var screen: [String]
    var description: String { "no \(what) within the time; the screen:\n" + screen.joined(separator: "\n") }
  }

  /// Polls the screen until `condition` holds (20 s at most: a loaded CI machine is slow).
  @discardableResult
  func wait(_ what: String, _ condition: ([String]) -> Bool) throws -> [String] {
    let deadline = Date().addingTimeInterval(20)
    var last: [String] = []
    while Date() < deadline {
      last = try screen()
      if condition(last) { return last }
      Thread.sleep(forTimeInterval: 0.05)
    }
    throw Timeout(what: what, screen: last)
  }

  /// Waits for a row that contains `text`.
  @discardableResult
  func wait(for text: String) throws -> [String] {
    try wait("'\(text)'") { $0.contains { $0.contains(text) } }
  }
}
