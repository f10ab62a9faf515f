import Glibc

/// The commands loading runs itself (a param's `default: { sh: CMD }`): `sh -c CMD` in a
/// directory, its stdout read whole, its stderr left on runner's. Loading is synchronous and
/// such commands are few and short, so `popen` serves; the loader takes another for tests.
package enum LoadTimeShell {
  package static func run(_ command: String, in directory: String) -> (status: Int32, output: String) {
    let script = "cd '" + directory.replacing("'", with: "'\\''") + "' && " + command
    guard let stream = popen(script, "r") else { return (127, "") }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = fread(&buffer, 1, buffer.count, stream)
      if count <= 0 { break }
      bytes.append(contentsOf: buffer[..<count])
    }
    let status = pclose(stream)
    // pclose gives a wait status: the exit code, or 128 + the signal that ended it.
    let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (code, String(decoding: bytes, as: UTF8.self))
  }

  package static let shell: @Sendable (_ command: String, _ directory: String) -> (status: Int32, output: String) = {
    run($0, in: $1)
  }
}
