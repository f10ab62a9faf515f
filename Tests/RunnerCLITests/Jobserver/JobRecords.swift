import Foundation

/// The start and end lines jobs append to one log (`>>`, one write each), read in the order
/// they were written: how many jobs ran at once comes from the records, not from the clock.
struct JobRecords {
  let lines: [Substring]

  init(_ text: String?) {
    lines = (text ?? "").split(separator: "\n")
  }

  var starts: Int { lines.count { $0.hasPrefix("start ") } }

  /// The most jobs between their start and end lines at any point of the log.
  var mostAtOnce: Int {
    var running = 0
    var most = 0
    for line in lines {
      running += line.hasPrefix("start ") ? 1 : line.hasPrefix("end ") ? -1 : 0
      most = max(most, running)
    }
    return most
  }

  /// A makefile of `N` jobs (`make N=10 TAG=a LOG=log.txt NAP=0.2`), each recording itself.
  static let makefile = """
    N ?= 10
    NAP ?= 0.2
    JOBS := $(addprefix job,$(shell seq 1 $(N)))
    all: $(JOBS)
    job%:
    \t@echo "start $(TAG)$*" >> $(LOG); sleep $(NAP); echo "end $(TAG)$*" >> $(LOG)

    """

  /// A ninja file of `count` edges tagged `tag`, each recording itself in log.txt.
  static func ninjaFile(tag: String, count: Int) -> String {
    var text = """
      rule job
        command = echo "start $tag$n" >> log.txt; sleep 0.2; echo "end $tag$n" >> log.txt; touch $out

      """
    for n in 1...count { text += "build out/\(tag)\(n): job\n  n = \(n)\n  tag = \(tag)\n" }
    return text
  }

  /// A program on the test's `PATH` or named by `variable`; nil when there is none.
  static func tool(_ name: String, variable: String? = nil) -> String? {
    let environment = ProcessInfo.processInfo.environment
    if let variable, let path = environment[variable], FileManager.default.isExecutableFile(atPath: path) {
      return path
    }
    let path: String = environment["PATH"] ?? "/usr/bin:/bin"
    let directories: [String] = path.split(separator: ":").map(String.init) + ["\(NSHomeDirectory())/.cargo/bin"]
    return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }
}
