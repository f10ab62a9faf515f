import RunnerBasics
import Synchronization

/// Everything a process printed on stdout, bytes as they came (`git`'s answers, `make --version`).
package final class CollectedOutput: OutputLineSink {
  private let bytes = Mutex<[UInt8]>([])

  package init() {}

  package var text: String { bytes.withLock { String(decoding: $0, as: UTF8.self) } }

  package func receive(lines: OutputLines, stream: OutputStreamKind) {
    if stream == .stdout { bytes.withLock { $0.append(contentsOf: lines.bytes) } }
  }

  package func receive(fragment: UnsafeRawBufferPointer, stream: OutputStreamKind) {
    if stream == .stdout { bytes.withLock { $0.append(contentsOf: fragment) } }
  }
}
