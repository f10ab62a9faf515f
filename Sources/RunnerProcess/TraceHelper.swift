import Glibc

/// `runner-trace` (Sources/runner-trace): a small static program that runs a command traced
/// as runner traces a task, where runner itself is not — on a remote worker, for a
/// `sources: auto` task — and writes what it saw to a log the worker returns as an output.
package enum TraceHelper {
  /// The installed helper: beside runner's executable (SwiftPM's build directory), or in
  /// `../libexec/runner/` from it (the packages); nil when neither holds it.
  package static let path: String? = {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let directory = String(executable[..<slash])
    for candidate in [directory + "/runner-trace", directory + "/../libexec/runner/runner-trace"]
    where Kernel.isExecutable(candidate) {
      return candidate
    }
    return nil
  }()

  /// What a helper's log says: the command's working directory on the worker and what its
  /// processes did there (absolute paths on the worker); nil when the bytes are not a log.
  package static func log(_ bytes: [UInt8]) -> (directory: String, log: ProcessTrace.Log)? {
    let header = Array("runner-trace 1\n".utf8)
    guard bytes.starts(with: header) else { return nil }
    var directory: String?
    var log = ProcessTrace.Log()
    let records = bytes[header.count...]
    var start = records.startIndex
    while start < records.endIndex {
      guard let end = records[start...].firstIndex(of: 0) else { return nil }
      guard end > start else { return nil }  // a record without its kind: not the helper's
      let text = records[(start + 1)..<end]
      switch records[start] {
      case UInt8(ascii: "c"): directory = String(validating: text, as: UTF8.self)
      case UInt8(ascii: "!"): log.problem = log.problem ?? String(decoding: text, as: UTF8.self)
      default: ProcessTrace.append(record: records[start..<end], to: &log)
      }
      start = end + 1
    }
    guard let directory, directory.hasPrefix("/") else { return nil }
    return (directory, log)
  }
}
